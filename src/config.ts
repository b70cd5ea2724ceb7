import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The environment the service reads, validated once at start so a typo fails fast. */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  ADMIN_EMAIL: Type.String({ minLength: 3, default: 'admin@example.com' }),
  ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 12 })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ default: 'GRC Service <grc@localhost>' }),
  SESSION_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12 }),
  COOKIE_SECURE: Type.Boolean({ default: false }),
  LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('error')], { default: 'info' }),
});
export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {}

export function readConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  const problems = [...Value.Errors(ConfigSchema, converted)];
  if (problems.length > 0) {
    const lines = problems.map((p) => `${p.path.slice(1) || '(root)'}: ${p.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return converted as Config;
}
