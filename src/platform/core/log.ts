/** Structured one-line logs on stderr; never sent to a client. */
type Fields = Record<string, unknown>;
const write = (level: string, message: string, fields: Fields = {}) => {
  if (level === 'debug' && process.env.LOG_LEVEL !== 'debug') return;
  if (level === 'info' && process.env.LOG_LEVEL === 'error') return;
  console.error(JSON.stringify({ t: new Date().toISOString(), level, message, ...fields }));
};
export const log = {
  debug: (message: string, fields?: Fields) => write('debug', message, fields),
  info: (message: string, fields?: Fields) => write('info', message, fields),
  error: (message: string, fields?: Fields) => write('error', message, fields),
};
