/**
 * Sign-in addresses (SCIM userNames, e-mails entered on Settings › Users, addresses met at a first single sign-on):
 * stored in one form, and refused when they only look like an account that exists.
 */
import { and, ne, sql } from 'drizzle-orm';
import unhomoglyph from 'unhomoglyph';
import type { DbOrTx } from '../../../db/client';
import { users } from '../../../db/schema';

/**
 * The address as stored: Unicode NFKC (full-width letters, ligatures and other compatibility forms folded to what
 * they show), trimmed, and without the trailing dot of an absolute domain name (`admin@example.com.` is
 * `admin@example.com`).
 */
export const normaliseUserName = (address: string): string => address.normalize('NFKC').trim().replace(/\.+$/, '');

/**
 * The confusable skeleton of an address (Unicode Technical Standard #39, section 4): decomposed, each character
 * replaced by its prototype from the Unicode confusables data (`unhomoglyph`, which ships it), decomposed again. Two
 * addresses with the same skeleton look alike: a Cyrillic а for a Latin a, `rn` for `m`, `0` for `o`. Addresses compare
 * without case, so the skeleton is taken of the lower-cased address and lower-cased again (a prototype may be a
 * capital: `0` becomes `O`).
 */
export const userNameSkeleton = (address: string): string =>
  unhomoglyph(normaliseUserName(address).toLowerCase().normalize('NFD')).normalize('NFD').toLowerCase();

/** The columns to write with an address: the address in its stored form and its skeleton. */
export const userNameColumns = (address: string) => {
  const email = normaliseUserName(address);
  return { email, emailSkeleton: userNameSkeleton(email) };
};

/**
 * Another account whose address looks like `address` without being it (any account, deactivated or deprovisioned
 * included: a look-alike of either is a way to be taken for that person). `except` is the account being changed.
 */
export async function lookAlikeAccount(db: DbOrTx, address: string, except?: string): Promise<string | null> {
  const email = normaliseUserName(address);
  const [found] = await db.select({ email: users.email }).from(users).where(and(
    sql`${users.emailSkeleton} = ${userNameSkeleton(email)}`,
    sql`lower(${users.email}) <> lower(${email})`,
    except ? ne(users.id, except) : undefined,
  )).limit(1);
  return found?.email ?? null;
}

export const lookAlikeMessage = (address: string, existing: string) =>
  `${normaliseUserName(address)} looks like the existing account ${existing} (a look-alike character); use a plain address`;
