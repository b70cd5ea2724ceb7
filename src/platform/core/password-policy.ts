import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * Common passwords from breach corpora, as shipped offline by the maintained zxcvbn-ts project
 * (@zxcvbn-ts/language-common, about 49,000 entries, lower case). Loaded on first use.
 */
let common: ReadonlySet<string> | undefined;
const commonPasswords = () => (common ??= new Set(dictionary['passwords-common'] as string[]));

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

/**
 * Why a new password is refused, or null when it is acceptable: the length rule, one character repeated (spaces only
 * included), a password on the common-password list (compared ignoring case and spaces), or the account's own email.
 */
export function passwordProblem(password: string, account: { email?: string } = {}): string | null {
  const characters = [...password];
  if (characters.length < PASSWORD_MIN_LENGTH || characters.length > PASSWORD_MAX_LENGTH) {
    return `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`;
  }
  if (password.trim() === '') return 'must not be only spaces';
  if (new Set(characters).size === 1) return 'must not be one character repeated';
  const folded = password.toLowerCase().replace(/\s+/g, '');
  if (commonPasswords().has(password.toLowerCase()) || commonPasswords().has(folded)) return 'is a commonly used password; choose another';
  if (account.email && folded === account.email.trim().toLowerCase()) return 'must not be the email address';
  return null;
}
