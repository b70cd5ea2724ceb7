import { invalidField } from '../core/errors';

/**
 * The address to put in links the service hands out (password reset links, upload links): PUBLIC_URL when it is set,
 * never the request's Host header, which the sender chooses; a request that reached the service under another host
 * is refused, so a forged Host cannot even ask for one. Without PUBLIC_URL the request's own origin is used: set it
 * in production (README, Configuration).
 */
export function linkBase(publicUrl: string | undefined, requestUrl: string): string {
  const reached = new URL(requestUrl);
  if (!publicUrl) return reached.origin;
  const configured = new URL(publicUrl);
  if (reached.host.toLowerCase() !== configured.host.toLowerCase()) {
    throw invalidField('host', `this request reached ${reached.host}, not the service's address ${configured.host} (PUBLIC_URL); links are made only for that address`);
  }
  return publicUrl.replace(/\/+$/, '');
}
