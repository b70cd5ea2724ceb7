import { eq, inArray, lt, sql } from 'drizzle-orm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { selectRows, type Db, type DbOrTx } from '../../../db/client';
import { loginAttempts, sessions, settings, users } from '../../../db/schema';
import { appendAudit, type AuditEvent } from '../audit/audit';
import { AppError, invalid, type FieldProblem } from '../core/errors';
import { requirePermission, systemActor, type Actor } from '../permissions/permissions';
import type { RefusalLimiter } from './refusals';
import { Semaphore, SemaphoreFull } from '../core/semaphore';

/** Failures per email (and, more generously, per address) inside the window before sign-in is refused. */
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_IP = 30;
export const THROTTLE_WINDOW_MINUTES = 15;

export const WRONG_CREDENTIALS = 'The email or password is not correct.';
export const THROTTLED_MESSAGE =
  `Too many failed sign-in attempts. Sign-in for this account is paused for ${THROTTLE_WINDOW_MINUTES} minutes; try again later.`;
export const BUSY_MESSAGE = 'Sign-in is busy at the moment. Try again in a few seconds.';

/** Password checks (argon2id) at once in this process, and how many may wait for one before sign-in answers busy. */
export const PASSWORD_CHECKS_AT_ONCE = Math.max(1, Math.floor(availableParallelism() / 2));
const PASSWORD_CHECKS_WAITING = 64;
/** Argon2id is deliberately expensive: a burst of sign-ins must not take every core, so checks queue for a slot. */
export const passwordChecks = new Semaphore(PASSWORD_CHECKS_AT_ONCE, PASSWORD_CHECKS_WAITING);

/** Namespace of the advisory locks that serialise the throttle decision per email and per client address. */
const SIGN_IN_LOCK_SPACE = 7231005;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The stored id of the session a cookie secret opens (only this hash is kept). */
export const sessionIdOf = (secret: string) => sha256(secret);

/** A hash verified when the email is unknown, so the answer takes as long as for a real account. */
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= Bun.password.hash(randomBytes(16).toString('hex'), { algorithm: 'argon2id' }));

/**
 * A password check against nobody's hash, for refusals decided without one (single sign-on only, a directory that is
 * down), so they take as long as a wrong password and the time does not tell which rule refused.
 */
export async function decoyPasswordCheck(password: string): Promise<void> {
  try {
    await passwordChecks.run(async () => Bun.password.verify(password || 'x', await decoy()));
  } catch (error) {
    // As busy as a real check would find it: the same 503.
    if (error instanceof SemaphoreFull) throw new AppError('UNAVAILABLE', BUSY_MESSAGE);
    throw error;
  }
}

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

/**
 * Decides, atomically across every instance, whether this attempt may check a password, and if so records it as a
 * failure up front (a success turns it into one afterwards). Advisory locks on the email and on the client address
 * (always in that order) serialise the count and the insert, so of any number of attempts arriving together the
 * 6th for one email is refused. The email's count restarts after its last success; the address's count does not, so
 * signing in to one's own account cannot buy more guesses at others'.
 */
export async function reserveAttempt(db: Db, email: string, ip: string): Promise<number | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SIGN_IN_LOCK_SPACE}, hashtext(${`email:${email}`}))`);
    if (ip) await tx.execute(sql`select pg_advisory_xact_lock(${SIGN_IN_LOCK_SPACE}, hashtext(${`ip:${ip}`}))`);
    const since = new Date(Date.now() - THROTTLE_WINDOW_MINUTES * 60_000).toISOString();
    const [counts] = await selectRows<{ email: number; ip: number }>(tx, sql`select
      (select count(*)::int from ${loginAttempts} f where f.email = ${email} and not f.succeeded and f.at > ${since}::timestamptz
        and f.at > coalesce((select max(s.at) from ${loginAttempts} s where s.email = ${email} and s.succeeded), '-infinity'::timestamptz)) as email,
      (select count(*)::int from ${loginAttempts} f where ${ip} <> '' and f.ip = ${ip} and not f.succeeded and f.at > ${since}::timestamptz) as ip`);
    if (counts.email >= MAX_FAILURES_PER_EMAIL || counts.ip >= MAX_FAILURES_PER_IP) return null;
    const [attempt] = await tx.insert(loginAttempts).values({ email, ip, succeeded: false }).returning({ id: loginAttempts.id });
    return attempt.id;
  });
}

export const CHECKS_THROTTLED_MESSAGE =
  `Too many wrong passwords or codes for this account. It is paused for ${THROTTLE_WINDOW_MINUTES} minutes, sign-in included; try again later.`;

/** Who proves what on a signed-in page, for the throttle and the Audit Log. */
export interface SecretCheck {
  userId: string;
  email: string;
  ip: string;
  /** What was asked for, as the Audit Log names it: "current password", "two-factor code". */
  what: string;
}

/**
 * A check of a secret on a signed-in page (the current password, a two-factor code) under the sign-in throttle: it
 * counts against the person's e-mail and the client address exactly as a sign-in attempt does, so a stolen session
 * cannot guess on, and is refused (THROTTLED) while they have too many recent failures. A right answer is not counted
 * and does not restart the e-mail's count (only a completed sign-in does). Each wrong answer is audited as `security` / `check.failed`; a refusal before
 * anything was checked (throttled, or too busy) likewise, but through `refusals` as a refused sign-in is, so a stolen
 * session hammering a paused page adds a bounded number of entries. `check` runs outside any transaction of the
 * caller's, so what it records survives the caller's rollback.
 */
export async function throttledCheck(
  db: Db, who: SecretCheck, check: () => Promise<boolean>, refusals: Pick<RefusalLimiter, 'record'> = auditEveryRefusal(db),
): Promise<boolean> {
  const actor: Actor = { ...systemActor('screen'), kind: 'user', userId: who.userId, email: who.email };
  const failed = (reason: 'wrong' | 'throttled' | 'busy'): AuditEvent => ({
    module: 'security', action: 'check.failed', recordType: 'user', recordId: who.userId, details: { what: who.what, ip: who.ip, reason },
  });
  const attemptId = await reserveAttempt(db, who.email.trim().toLowerCase(), who.ip);
  if (attemptId === null) {
    await refusals.record(who.ip, actor, failed('throttled'));
    throw new AppError('THROTTLED', CHECKS_THROTTLED_MESSAGE);
  }
  let right: boolean;
  try {
    right = await check();
  } catch (error) {
    // Nothing was checked (busy, or the check could not run): the attempt is not held against the person.
    await db.delete(loginAttempts).where(eq(loginAttempts.id, attemptId));
    if (!(error instanceof SemaphoreFull)) throw error;
    await refusals.record(who.ip, actor, failed('busy'));
    throw new AppError('UNAVAILABLE', BUSY_MESSAGE);
  }
  // A right answer is not held against the person, but does not restart the count either: only a whole sign-in does.
  // Otherwise a known password (changing it, or turning two-factor off) would clear the count before each code guess.
  if (right) await db.delete(loginAttempts).where(eq(loginAttempts.id, attemptId));
  else await db.transaction((tx) => appendAudit(tx, actor, [failed('wrong')]));
  return right;
}

/** Seconds worth waiting before trying a refused sign-in or signed-in check again (Retry-After), or null. */
export function retryAfterSeconds(error: AppError): number | null {
  if (error.code === 'THROTTLED') return THROTTLE_WINDOW_MINUTES * 60;
  if (error.code === 'UNAVAILABLE') return 5;
  return null;
}

async function auditSignInFailure(db: Db, email: string, ip: string, reason: string, userId: string | null) {
  const actor: Actor = { ...systemActor('screen'), userId };
  await db.transaction((tx) => appendAudit(tx, actor, [{
    module: 'security', action: 'signin.failed', recordType: userId ? 'user' : null, recordId: userId,
    details: { email, ip, reason },
  }]));
}

/** Without a limiter (scripts, tests calling the service): each refusal is its own entry. */
export const auditEveryRefusal = (db: Db): Pick<RefusalLimiter, 'record'> => ({
  record: async (_client, actor, event) => {
    await db.transaction((tx) => appendAudit(tx, actor, [event]));
    return { limited: false };
  },
});

/** A sign-in refused before any password was checked: audited through the refusal limiter (folded per window). */
async function refuseSignIn(refusals: Pick<RefusalLimiter, 'record'>, email: string, ip: string, reason: 'throttled' | 'busy'): Promise<void> {
  await refusals.record(ip, systemActor('screen'), { module: 'security', action: 'signin.failed', details: { email, ip, reason } });
}

/**
 * Password sign-in. Refused with THROTTLED while the email (or the client address) has too many recent failures,
 * even when the password is right, so guessing cannot continue in the window; with UNAVAILABLE when too many password
 * checks are already waiting. Every outcome is audited (refusals before a password check folded per window).
 */
export async function signIn(
  db: Db, emailInput: string, password: string, ip: string,
  options: { sessionHours: number; refusals?: Pick<RefusalLimiter, 'record'> },
): Promise<NewSession>;
export async function signIn(
  db: Db, emailInput: string, password: string, ip: string,
  options: { sessionHours: number; refusals?: Pick<RefusalLimiter, 'record'>; afterPassword: AfterPassword },
): Promise<NewSession | SecondStep>;
export async function signIn(
  db: Db, emailInput: string, password: string, ip: string,
  options: { sessionHours: number; refusals?: Pick<RefusalLimiter, 'record'>; afterPassword?: AfterPassword },
): Promise<NewSession | SecondStep> {
  const email = emailInput.trim().toLowerCase();
  const refusals = options.refusals ?? auditEveryRefusal(db);
  const attemptId = await reserveAttempt(db, email, ip);
  if (attemptId === null) {
    // Throttled attempts are audited but not counted, so the pause ends when the window passes.
    await refuseSignIn(refusals, email, ip, 'throttled');
    throw new AppError('THROTTLED', THROTTLED_MESSAGE);
  }

  const [user] = await db.select({ id: users.id, hash: users.passwordHash, status: users.status })
    .from(users).where(sql`lower(${users.email}) = ${email}`);
  let verified: boolean;
  try {
    verified = await passwordChecks.run(async () => Bun.password.verify(password, user?.hash ?? (await decoy())));
  } catch (error) {
    if (!(error instanceof SemaphoreFull)) throw error;
    // No password was checked: the attempt is not held against the account.
    await db.delete(loginAttempts).where(eq(loginAttempts.id, attemptId));
    await refuseSignIn(refusals, email, ip, 'busy');
    throw new AppError('UNAVAILABLE', BUSY_MESSAGE);
  }
  const reason = !user ? 'unknown email' : !user.hash ? 'no password set' : !verified ? 'wrong password'
    : user.status !== 'active' ? 'account deactivated' : null;

  if (reason || !user) {
    await auditSignInFailure(db, email, ip, reason ?? 'unknown email', user?.id ?? null);
    throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
  }

  const checked: PasswordChecked = { userId: user.id, email, ip, attemptIds: [attemptId] };
  const later = await options.afterPassword?.(checked);
  if (later) return later;
  return openSession(db, checked, options.sessionHours);
}

/** A password found right for an active account; `attemptIds` are its login_attempts rows, still counted as failures. */
export interface PasswordChecked {
  userId: string;
  email: string;
  ip: string;
  attemptIds: number[];
}

/** Where the browser goes next when sign-in needs another step (a second factor) before a session opens. */
export interface SecondStep {
  continueAt: string;
}

/**
 * A step after a correct password (the people module's two-factor sign-in): answers a SecondStep to hold the session
 * back, or null to open it now. The step later opens the session itself with openSession.
 */
export type AfterPassword = (checked: PasswordChecked) => Promise<SecondStep | null>;

/**
 * Opens a session for a sign-in whose every step succeeded: its attempts become successes (the email's failure count
 * restarts), the sign-in is audited, and expired sessions are cleared. `details` adds to the audit entry.
 */
export async function openSession(db: Db, checked: PasswordChecked, sessionHours: number, details: Record<string, unknown> = {}): Promise<NewSession> {
  return db.transaction(async (tx) => {
    if (checked.attemptIds.length) await tx.update(loginAttempts).set({ succeeded: true }).where(inArray(loginAttempts.id, checked.attemptIds));
    return startSession(tx, checked.userId, checked.email, sessionHours, { ip: checked.ip, ...details });
  });
}

/**
 * Inserts a session for a person whose sign-in succeeded and audits it, inside the caller's transaction (a sign-in that
 * also creates the account commits both or neither); expired sessions are cleared on the way.
 */
export async function startSession(
  tx: DbOrTx, userId: string, email: string, sessionHours: number, details: Record<string, unknown>,
  signedInWith: 'password' | 'oidc' = 'password',
): Promise<NewSession> {
  const secret = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + sessionHours * 3_600_000);
  await tx.delete(sessions).where(lt(sessions.expiresAt, new Date()));
  await tx.insert(sessions).values({ id: sha256(secret), userId, csrfToken, expiresAt, signedInWith });
  await appendAudit(tx, { ...systemActor('screen'), kind: 'user', userId, email }, [{
    module: 'security', action: 'signin', recordType: 'user', recordId: userId, details: { ...details, expiresAt: expiresAt.toISOString() },
  }]);
  return { secret, csrfToken, userId, expiresAt };
}

/* ---------- Session lifetime and idle timeout (Settings › Sessions) ---------- */

export const SESSION_LIFETIME_SETTING = 'sessions.lifetimeHours';
export const SESSION_IDLE_SETTING = 'sessions.idleMinutes';
const LAST_SEEN_STEP_MS = 60_000;

export interface SessionSettings {
  /** Hours a sign-in lasts; the server's SESSION_HOURS until changed on the Sessions page. */
  lifetimeHours: number;
  /** Minutes without a request after which a session ends; 0 means no idle timeout. */
  idleMinutes: number;
}

export async function sessionSettings(db: DbOrTx, defaultHours: number): Promise<SessionSettings> {
  const rows = await db.select({ key: settings.key, value: settings.value }).from(settings)
    .where(inArray(settings.key, [SESSION_LIFETIME_SETTING, SESSION_IDLE_SETTING]));
  const value = (key: string, fallback: number) => {
    const found = rows.find((r) => r.key === key)?.value;
    return typeof found === 'number' ? found : fallback;
  };
  return { lifetimeHours: value(SESSION_LIFETIME_SETTING, defaultHours), idleMinutes: value(SESSION_IDLE_SETTING, 0) };
}

/** Applies to sessions signed in from now on (lifetime) and at once (idle timeout). settings:update, audited. */
export async function setSessionSettings(tx: DbOrTx, actor: Actor, next: SessionSettings, defaultHours: number): Promise<void> {
  requirePermission(actor, 'settings:update');
  const problems: FieldProblem[] = [];
  if (!Number.isInteger(next.lifetimeHours) || next.lifetimeHours < 1 || next.lifetimeHours > 720) problems.push({ field: 'lifetimeHours', message: 'must be a whole number of hours from 1 to 720' });
  if (!Number.isInteger(next.idleMinutes) || next.idleMinutes < 0 || next.idleMinutes > 43_200) problems.push({ field: 'idleMinutes', message: 'must be a whole number of minutes from 0 (no idle timeout) to 43200' });
  if (problems.length) throw invalid(problems);
  const before = await sessionSettings(tx, defaultHours);
  const changes: Record<string, { before: number; after: number }> = {};
  for (const [key, field] of [[SESSION_LIFETIME_SETTING, 'lifetimeHours'], [SESSION_IDLE_SETTING, 'idleMinutes']] as const) {
    if (before[field] === next[field]) continue;
    changes[field] = { before: before[field], after: next[field] };
    await tx.insert(settings).values({ key, value: next[field] })
      .onConflictDoUpdate({ target: settings.key, set: { value: next[field], updatedAt: new Date() } });
  }
  if (Object.keys(changes).length) {
    await appendAudit(tx, actor, [{ module: 'settings', action: 'update', recordType: 'setting', recordId: 'sessions', details: { changes } }]);
  }
}

/**
 * The live session for a cookie secret: unexpired, not idle beyond the idle timeout, and its user still active
 * (deactivation ends it at once). One query reads the session, its user and the idle setting; the session's last-seen
 * time moves on at most once a minute.
 */
export async function resolveSession(db: DbOrTx, secret: string | undefined): Promise<ResolvedSession | null> {
  if (!secret || secret.length < 20 || secret.length > 200) return null;
  const id = sha256(secret);
  const [row] = await selectRows<{ user_id: string; csrf_token: string; expires_at: string | Date; last_seen_at: string | Date }>(db, sql`
    select s.user_id, s.csrf_token, s.expires_at, s.last_seen_at
    from ${sessions} s join ${users} u on u.id = s.user_id
    left join ${settings} idle on idle.key = ${SESSION_IDLE_SETTING}
    where s.id = ${id} and s.expires_at > now() and u.status = 'active'
      and (coalesce((idle.value #>> '{}')::int, 0) = 0 or s.last_seen_at > now() - make_interval(mins => (idle.value #>> '{}')::int))`);
  if (!row) return null;
  if (Date.now() - new Date(row.last_seen_at).getTime() >= LAST_SEEN_STEP_MS) {
    await db.update(sessions).set({ lastSeenAt: new Date() }).where(eq(sessions.id, id));
  }
  return { userId: row.user_id, csrfToken: row.csrf_token, expiresAt: new Date(row.expires_at) };
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
