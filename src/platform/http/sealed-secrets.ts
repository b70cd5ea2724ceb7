import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Config } from '../../config';
import { AppError } from '../core/errors';

type Keyed = Pick<Config, 'ENCRYPTION_KEY'>;

/**
 * A secret the service must read back (a directory service account's password, a two-factor secret), sealed for storage:
 * AES-256-GCM with ENCRYPTION_KEY when the server has one (`gcm1:` iv.ciphertext.tag, base64url), otherwise kept as
 * `plain:` text. `purpose` is bound in as associated data, so a sealed value cannot be moved to another use.
 */
export function sealSecret(config: Keyed, purpose: string, secret: string): string {
  if (!config.ENCRYPTION_KEY) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(config.ENCRYPTION_KEY, 'base64'), iv);
  cipher.setAAD(Buffer.from(purpose));
  const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `gcm1:${sealed.toString('base64url')}`;
}

/**
 * The secret back, or UNAVAILABLE naming `what` and what to do (`remedy`) when the key is missing or is not the one it
 * was sealed with.
 */
export function openSecret(config: Keyed, purpose: string, stored: string, what: string, remedy = 'Enter it again.'): string {
  if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
  if (!config.ENCRYPTION_KEY) throw new AppError('UNAVAILABLE', `The ${what} is encrypted and this server has no ENCRYPTION_KEY. ${remedy}`);
  const sealed = Buffer.from(stored.slice('gcm1:'.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(config.ENCRYPTION_KEY, 'base64'), sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    throw new AppError('UNAVAILABLE', `The ${what} was encrypted with another ENCRYPTION_KEY. ${remedy}`);
  }
}
