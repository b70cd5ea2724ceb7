import { and, count, eq, gt, lt, sql } from 'drizzle-orm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db, DbOrTx } from '../../db/client';
import { loginAttempts, sessions, users } from '../../db/schema';
import { appendAudit } from './audit';
import { AppError } from './errors';
import { systemActor, type Actor } from './permissions';

/** Failures per email (and, more generously, per address) inside the window before sign-in is refused. */
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_IP = 30;
export const THROTTLE_WINDOW_MINUTES = 15;

export const WRONG_CREDENTIALS = 'The email or password is not correct.';
export const THROTTLED_MESSAGE =
  `Too many failed sign-in attempts. Sign-in for this account is paused for ${THROTTLE_WINDOW_MINUTES} minutes; try again later.`;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A hash verified when the email is unknown, so the answer takes as long as for a real account. */
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= Bun.password.hash(randomBytes(16).toString('hex'), { algorithm: 'argon2id' }));

export interface NewSession {
  /** Goes in the cookie; only its SHA-256 is stored. */
  secret: string;
  csrfToken: string;
  userId: string;
  expiresAt: Date;
}

export interface ResolvedSession {
  userId: string;
  csrfToken: string;
  expiresAt: Date;
}

async function recentFailures(db: DbOrTx, column: typeof loginAttempts.email | typeof loginAttempts.ip, value: string): Promise<number> {
  const since = new Date(Date.now() - THROTTLE_WINDOW_MINUTES * 60_000);
  // Failures after the latest success in the window: a successful sign-in starts the count again.
  const [row] = await db.select({ n: count() }).from(loginAttempts).where(and(
    eq(column, value),
    eq(loginAttempts.succeeded, false),
    gt(loginAttempts.at, since),
    sql`${loginAttempts.at} > coalesce((select max(s.at) from login_attempts s where s.${sql.raw(column.name)} = ${value} and s.succeeded), '-infinity'::timestamptz)`,
  ));
  return row?.n ?? 0;
}

async function auditSignInFailure(db: Db, email: string, ip: string, reason: string, userId: string | null) {
  const actor: Actor = { ...systemActor('screen'), userId };
  await db.transaction((tx) => appendAudit(tx, actor, [{
    module: 'security', action: 'signin.failed', recordType: userId ? 'user' : null, recordId: userId,
    details: { email, ip, reason },
  }]));
}

/**
 * Password sign-in. Refused with THROTTLED while the email (or the client address) has too many recent failures,
 * even when the password is right, so guessing cannot continue in the window. Every outcome is audited.
 */
export async function signIn(
  db: Db, emailInput: string, password: string, ip: string, options: { sessionHours: number },
): Promise<NewSession> {
  const email = emailInput.trim().toLowerCase();
  const emailFailures = await recentFailures(db, loginAttempts.email, email);
  const ipFailures = ip ? await recentFailures(db, loginAttempts.ip, ip) : 0;
  if (emailFailures >= MAX_FAILURES_PER_EMAIL || ipFailures >= MAX_FAILURES_PER_IP) {
    // Throttled attempts are audited but not counted, so the pause ends when the window passes.
    await auditSignInFailure(db, email, ip, 'throttled', null);
    throw new AppError('THROTTLED', THROTTLED_MESSAGE);
  }

  const [user] = await db.select({ id: users.id, hash: users.passwordHash, status: users.status })
    .from(users).where(sql`lower(${users.email}) = ${email}`);
  const verified = await Bun.password.verify(password, user?.hash ?? (await decoy()));
  const reason = !user ? 'unknown email' : !user.hash ? 'no password set' : !verified ? 'wrong password'
    : user.status !== 'active' ? 'account deactivated' : null;

  if (reason || !user) {
    await db.insert(loginAttempts).values({ email, ip, succeeded: false });
    await auditSignInFailure(db, email, ip, reason ?? 'unknown email', user?.id ?? null);
    throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
  }

  const secret = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + options.sessionHours * 3_600_000);
  await db.transaction(async (tx) => {
    await tx.delete(sessions).where(lt(sessions.expiresAt, new Date()));
    await tx.insert(sessions).values({ id: sha256(secret), userId: user.id, csrfToken, expiresAt });
    await tx.insert(loginAttempts).values({ email, ip, succeeded: true });
    await appendAudit(tx, { ...systemActor('screen'), kind: 'user', userId: user.id, email }, [{
      module: 'security', action: 'signin', recordType: 'user', recordId: user.id, details: { ip, expiresAt: expiresAt.toISOString() },
    }]);
  });
  return { secret, csrfToken, userId: user.id, expiresAt };
}

/** The live session for a cookie secret: unexpired, and its user still active (deactivation ends it at once). */
export async function resolveSession(db: DbOrTx, secret: string | undefined): Promise<ResolvedSession | null> {
  if (!secret || secret.length < 20 || secret.length > 200) return null;
  const [row] = await db.select({ userId: sessions.userId, csrfToken: sessions.csrfToken, expiresAt: sessions.expiresAt })
    .from(sessions).innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sha256(secret)), gt(sessions.expiresAt, new Date()), eq(users.status, 'active')));
  return row ?? null;
}

/** Deletes the session (the cookie alone is then worthless) and records the sign-out. */
export async function signOut(db: Db, secret: string | undefined): Promise<void> {
  if (!secret) return;
  await db.transaction(async (tx) => {
    const [removed] = await tx.delete(sessions).where(eq(sessions.id, sha256(secret))).returning({ userId: sessions.userId });
    if (!removed) return;
    await appendAudit(tx, { ...systemActor('screen'), kind: 'user', userId: removed.userId }, [{
      module: 'security', action: 'signout', recordType: 'user', recordId: removed.userId,
    }]);
  });
}

/** Constant-time comparison of the CSRF token sent with a request against the session's. */
export function csrfMatches(expected: string, sent: unknown): boolean {
  if (typeof sent !== 'string' || sent.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}
