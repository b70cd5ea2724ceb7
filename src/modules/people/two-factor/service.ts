import { and, count, eq, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { createHash, randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '../../../platform/http/sealed-secrets';
import { Secret, TOTP } from 'otpauth';
import type { Db, DbOrTx } from '../../../../db/client';
import { groupMembers, groupRoles, pendingSignIns, rolePermissions, sessions, settings, twoFactorRecoveryCodes, userTwoFactor, users } from '../../../../db/schema';
import type { Config } from '../../../config';
import { appendAudit } from '../../../platform/audit/audit';
import { AppError, conflict, forbidden, invalidField, notFound } from '../../../platform/core/errors';
import { recordChange } from '../../../platform/audit/history';
import { levelOf, requirePermission, systemActor, type Actor, type Permission } from '../../../platform/permissions/permissions';
import type { RefusalLimiter } from '../../../platform/http/refusals';
import {
  auditEveryRefusal, openSession, passwordChecks, reserveAttempt, THROTTLED_MESSAGE, throttledCheck, type NewSession, type PasswordChecked,
} from '../../../platform/http/sessions';
import { loadUserRights, userActor } from '../rights';
import { requireRightsOver } from '../service';
import { isBreakGlassAdministrator, ssoOnly } from '../sign-in/break-glass';
import { oidcSettings, ssoOnlyPasswordMessage } from '../sign-in/settings-service';

/** Shown in the authenticator app next to the person's e-mail (the name in the header of every page). */
export const TOTP_ISSUER = 'GRC';
export const RECOVERY_CODE_COUNT = 10;
/** A pending sign-in (password right, second step to come) lasts this long and allows this many wrong codes. */
export const PENDING_MINUTES = 5;
export const PENDING_TRIES = 5;
/** An enrolment begun but not confirmed by a code is forgotten after this long. */
export const ENROLMENT_MINUTES = 30;

export const TWO_FACTOR_RULES = ['nobody', 'administrators', 'everyone'] as const;
export type TwoFactorRule = (typeof TWO_FACTOR_RULES)[number];
export const TWO_FACTOR_RULE_SETTING = 'twoFactor.required';

export const WRONG_CODE = 'That code is not correct. Enter the current 6-digit code from your authenticator app, or an unused recovery code.';
export const REPLAYED_CODE = 'That code was already used. Wait for the next code in your authenticator app.';
export const PENDING_GONE = 'This sign-in has expired or had too many wrong codes. Sign in again.';

type Keyed = Pick<Config, 'ENCRYPTION_KEY'>;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/* ---------- The secret at rest ---------- */

const SEAL_PURPOSE = 'user_two_factor';
const sealTotpSecret = (config: Keyed, base32: string) => sealSecret(config, SEAL_PURPOSE, base32);
const openTotpSecret = (config: Keyed, stored: string) =>
  openSecret(config, SEAL_PURPOSE, stored, 'two-factor secret', 'An administrator can reset the second factor.');

/* ---------- Codes ---------- */

/** The otpauth:// address an authenticator app reads from the QR code. */
export const otpauthUri = (email: string, base32: string) =>
  new TOTP({ issuer: TOTP_ISSUER, label: email, secret: Secret.fromBase32(base32) }).toString();

/** The 30-second step a 6-digit code belongs to (the current one or one either side), or null. */
function stepOf(base32: string, code: string): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = Date.now();
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(base32), window: 1, timestamp: now });
  return delta === null ? null : TOTP.counter({ timestamp: now }) + delta;
}

const normalCode = (input: string) => input.replace(/[\s-]/g, '');
const isTotpCode = (input: string) => /^\d{6}$/.test(normalCode(input));
const recoveryHash = (input: string) => sha256(normalCode(input).toLowerCase());

/** Ten codes of 80 random bits each, shown as XXXX-XXXX-XXXX-XXXX; only their hashes are written. */
async function replaceRecoveryCodes(tx: DbOrTx, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () =>
    new Secret({ buffer: new Uint8Array(randomBytes(10)).buffer }).base32.match(/.{4}/g)!.join('-'));
  await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
  await tx.insert(twoFactorRecoveryCodes).values(codes.map((code) => ({ userId, codeHash: recoveryHash(code) })));
  return codes;
}

/**
 * Accepts a 6-digit code once: the step it belongs to must be later than the last one accepted, moved on in the same
 * statement, so the same code (or an older one) is refused even when two requests race.
 */
async function useTotpCode(tx: DbOrTx, config: Keyed, userId: string, code: string): Promise<'ok' | 'wrong' | 'replayed'> {
  const [row] = await tx.select({ secret: userTwoFactor.secret }).from(userTwoFactor)
    .where(and(eq(userTwoFactor.userId, userId), isNotNull(userTwoFactor.confirmedAt)));
  if (!row) return 'wrong';
  const step = stepOf(openTotpSecret(config, row.secret), normalCode(code));
  if (step === null) return 'wrong';
  const moved = await tx.update(userTwoFactor).set({ lastUsedStep: step })
    .where(and(eq(userTwoFactor.userId, userId), sql`coalesce(${userTwoFactor.lastUsedStep}, -1) < ${step}`))
    .returning({ userId: userTwoFactor.userId });
  return moved.length ? 'ok' : 'replayed';
}

/** Spends a recovery code (each works once); answers how many are left, or null when it is not an unused code. */
async function useRecoveryCode(tx: DbOrTx, userId: string, input: string): Promise<number | null> {
  const used = await tx.update(twoFactorRecoveryCodes).set({ usedAt: new Date() })
    .where(and(eq(twoFactorRecoveryCodes.userId, userId), eq(twoFactorRecoveryCodes.codeHash, recoveryHash(input)), isNull(twoFactorRecoveryCodes.usedAt)))
    .returning({ id: twoFactorRecoveryCodes.id });
  if (!used.length) return null;
  return recoveryCodesLeft(tx, userId);
}

async function recoveryCodesLeft(db: DbOrTx, userId: string): Promise<number> {
  const [{ left }] = await db.select({ left: count() }).from(twoFactorRecoveryCodes)
    .where(and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)));
  return left;
}

/* ---------- Status and the rule ---------- */

export interface TwoFactorStatus {
  enrolled: boolean;
  confirmedAt: Date | null;
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(db: DbOrTx, userId: string): Promise<TwoFactorStatus> {
  const [row] = await db.select({ confirmedAt: userTwoFactor.confirmedAt }).from(userTwoFactor).where(eq(userTwoFactor.userId, userId));
  const confirmedAt = row?.confirmedAt ?? null;
  return { enrolled: confirmedAt !== null, confirmedAt, recoveryCodesLeft: confirmedAt ? await recoveryCodesLeft(db, userId) : 0 };
}

export async function twoFactorRule(db: DbOrTx): Promise<TwoFactorRule> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, TWO_FACTOR_RULE_SETTING));
  return TWO_FACTOR_RULES.find((rule) => rule === row?.value) ?? 'nobody';
}

/**
 * Who must use a second factor (Settings › Sessions): settings:update at level all, audited. The sessions of people the
 * rule now covers who have no second factor end (all but `keepSessionId`, the one in use), so they enrol at their next
 * sign-in instead of working on without.
 */
export async function setTwoFactorRule(tx: DbOrTx, actor: Actor, rule: string, keepSessionId: string | null = null): Promise<void> {
  if (requirePermission(actor, 'settings:update') !== 'all') throw forbidden('settings:update at level all needed to require two-factor sign-in');
  const next = TWO_FACTOR_RULES.find((r) => r === rule);
  if (!next) throw invalidField('twoFactorRule', `must be one of ${TWO_FACTOR_RULES.join(', ')}`);
  const before = await twoFactorRule(tx);
  if (before === next) return;
  await tx.insert(settings).values({ key: TWO_FACTOR_RULE_SETTING, value: next })
    .onConflictDoUpdate({ target: settings.key, set: { value: next, updatedAt: new Date() } });
  const sessionsEnded = next === 'nobody' ? 0 : await endSessionsWithoutSecondFactor(tx, next, keepSessionId);
  await appendAudit(tx, actor, [{
    module: 'settings', action: 'update', recordType: 'setting', recordId: 'twoFactor',
    details: { changes: { required: { before, after: next } }, ...(sessionsEnded ? { sessionsEnded } : {}) },
  }]);
}

/** Rights that make someone an administrator for the rule (isAdministrator, as SQL over a session's user). */
const ADMINISTRATOR_RIGHTS: readonly Permission[] = ['settings:update', 'settings:create'];

async function endSessionsWithoutSecondFactor(tx: DbOrTx, rule: Exclude<TwoFactorRule, 'nobody'>, keepSessionId: string | null): Promise<number> {
  const covered = rule === 'everyone' ? sql`true` : sql`exists (
    select 1 from ${groupMembers} gm join ${groupRoles} gr on gr.group_id = gm.group_id
      join ${rolePermissions} rp on rp.role_id = gr.role_id
    where gm.user_id = ${sessions.userId} and rp.permission in (${sql.join(ADMINISTRATOR_RIGHTS.map((r) => sql`${r}`), sql`, `)}))`;
  // The rule asks password sign-ins for a second factor; the identity provider answers for its own sign-ins.
  const ended = await tx.delete(sessions).where(and(
    eq(sessions.signedInWith, 'password'),
    covered,
    sql`not exists (select 1 from ${userTwoFactor} t where t.user_id = ${sessions.userId} and t.confirmed_at is not null)`,
    keepSessionId ? sql`${sessions.id} <> ${keepSessionId}` : undefined,
  )).returning({ id: sessions.id });
  return ended.length;
}

/** Administrators, for the rule: anyone who may create or change users, groups, roles or settings. */
export const isAdministrator = (actor: Actor) => ADMINISTRATOR_RIGHTS.some((right) => levelOf(actor, right) !== null);

/** Whether the rule asks this person for a second factor. */
async function requiredFor(db: DbOrTx, userId: string): Promise<boolean> {
  const rule = await twoFactorRule(db);
  if (rule === 'nobody') return false;
  if (rule === 'everyone') return true;
  const user = await loadUserRights(db, userId);
  return user !== null && isAdministrator(userActor(user, 'screen'));
}

/* ---------- Enrolment (one's own) ---------- */

const ownUserId = (actor: Actor): string => {
  if (actor.kind !== 'user' || !actor.userId || actor.tokenId) throw forbidden('only a signed-in person manages their own second factor');
  return actor.userId;
};

export interface Enrolment {
  /** Base32, to type into an app that cannot scan the QR code. */
  secret: string;
  uri: string;
}

/**
 * Begins (or begins again) enrolment: a new 20-byte secret, kept unconfirmed until a code from it is entered. Refused
 * while a second factor is in use (disable it first).
 */
export async function beginEnrolment(tx: DbOrTx, actor: Actor, config: Keyed): Promise<Enrolment> {
  const userId = ownUserId(actor);
  const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound('User');
  if ((await twoFactorStatus(tx, userId)).enrolled) throw conflict('Two-factor sign-in is already on. Turn it off first to enrol a new device.');
  const secret = new Secret({ size: 20 }).base32;
  const sealed = sealTotpSecret(config, secret);
  await tx.insert(userTwoFactor).values({ userId, secret: sealed, confirmedAt: null, lastUsedStep: null })
    .onConflictDoUpdate({ target: userTwoFactor.userId, set: { secret: sealed, startedAt: new Date(), confirmedAt: null, lastUsedStep: null } });
  return { secret, uri: otpauthUri(user.email, secret) };
}

/** The enrolment begun and not yet confirmed (for showing its QR code again after a wrong code), or null. */
export async function enrolmentInProgress(db: DbOrTx, userId: string, config: Keyed): Promise<Enrolment | null> {
  const [row] = await db.select({ secret: userTwoFactor.secret, email: users.email }).from(userTwoFactor)
    .innerJoin(users, eq(users.id, userTwoFactor.userId))
    .where(and(eq(userTwoFactor.userId, userId), isNull(userTwoFactor.confirmedAt),
      sql`${userTwoFactor.startedAt} > now() - make_interval(mins => ${ENROLMENT_MINUTES})`));
  if (!row) return null;
  const secret = openTotpSecret(config, row.secret);
  return { secret, uri: otpauthUri(row.email, secret) };
}

/** Confirms enrolment with a code from the new secret; answers the ten recovery codes, shown once. Audited. */
export async function confirmEnrolment(tx: DbOrTx, actor: Actor, code: string, config: Keyed): Promise<{ recoveryCodes: string[] }> {
  const userId = ownUserId(actor);
  const pending = await enrolmentInProgress(tx, userId, config);
  if (!pending) throw conflict('No enrolment is in progress, or it is older than 30 minutes. Start again.');
  const step = stepOf(pending.secret, normalCode(code));
  if (step === null) throw invalidField('code', 'is not the current code of the app you set up; check the device clock and try the next code');
  await tx.update(userTwoFactor).set({ confirmedAt: new Date(), lastUsedStep: step }).where(eq(userTwoFactor.userId, userId));
  const recoveryCodes = await replaceRecoveryCodes(tx, userId);
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'twoFactor.enable', before: null, after: null, details: { recoveryCodes: RECOVERY_CODE_COUNT } });
  return { recoveryCodes };
}

/** The signed-in person, enrolled, for a change to their second factor. */
async function enrolledSelf(db: DbOrTx, actor: Actor): Promise<{ userId: string; email: string; hash: string | null }> {
  const userId = ownUserId(actor);
  const [user] = await db.select({ email: users.email, hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound('User');
  if (!(await twoFactorStatus(db, userId)).enrolled) throw conflict('Two-factor sign-in is not on.');
  return { userId, ...user };
}

/** A code typed on a signed-in page, with what the sign-in throttle needs to count it. */
export interface CheckedProof {
  code: string;
  /** The client address. */
  ip: string;
  /** Where a refusal before the check (throttled, busy) is audited; each its own entry when absent. */
  refusals?: Pick<RefusalLimiter, 'record'>;
}

/**
 * Turns one's second factor off: needs the current password and a code (or a recovery code), checked together as one
 * attempt under the sign-in throttle so a session left open cannot be used to guess them. Audited.
 */
export async function disableTwoFactor(db: Db, actor: Actor, proof: CheckedProof & { password: string }, config: Keyed): Promise<void> {
  const { userId, email, hash } = await enrolledSelf(db, actor);
  // One attempt for both, a success only when both are right: a known password must not restart the count before
  // each guess at the code (sign-in holds the password's attempt as a failure until the code is right, likewise).
  let passwordRight = false;
  const right = await throttledCheck(db, { userId, email, ip: proof.ip, what: 'current password and two-factor code' }, async () => {
    passwordRight = hash !== null && await passwordChecks.run(() => Bun.password.verify(proof.password, hash));
    return passwordRight && db.transaction((tx) => spendCode(tx, userId, proof.code, config));
  }, proof.refusals);
  if (!right && !passwordRight) throw invalidField('currentPassword', 'is not your current password');
  if (!right) throw invalidField('code', 'is not a current code or an unused recovery code');
  await db.transaction(async (tx) => {
    await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
    await tx.delete(userTwoFactor).where(eq(userTwoFactor.userId, userId));
    await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'twoFactor.disable', before: null, after: null });
  });
}

/** New recovery codes (the old ones stop working); needs a current code, checked under the sign-in throttle. Audited. */
export async function regenerateRecoveryCodes(db: Db, actor: Actor, proof: CheckedProof, config: Keyed): Promise<{ recoveryCodes: string[] }> {
  const { userId, email } = await enrolledSelf(db, actor);
  const wrong = invalidField('code', 'is not the current code of your authenticator app');
  if (!isTotpCode(proof.code)) throw wrong;
  const right = await throttledCheck(db, { userId, email, ip: proof.ip, what: 'two-factor code' },
    async () => (await db.transaction((tx) => useTotpCode(tx, config, userId, proof.code))) === 'ok', proof.refusals);
  if (!right) throw wrong;
  return db.transaction(async (tx) => {
    const recoveryCodes = await replaceRecoveryCodes(tx, userId);
    await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'twoFactor.recoveryCodes', before: null, after: null, details: { recoveryCodes: RECOVERY_CODE_COUNT } });
    return { recoveryCodes };
  });
}

async function spendCode(tx: DbOrTx, userId: string, code: string, config: Keyed): Promise<boolean> {
  return isTotpCode(code) ? (await useTotpCode(tx, config, userId, code)) === 'ok' : (await useRecoveryCode(tx, userId, code)) !== null;
}

/** An administrator (settings:update at level all) removes a person's second factor; their sessions end. Audited. */
export async function resetTwoFactor(tx: DbOrTx, actor: Actor, userId: string): Promise<void> {
  if (requirePermission(actor, 'settings:update') !== 'all') throw forbidden('settings:update at level all needed to reset a second factor');
  const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound(`User ${userId}`);
  await requireRightsOver(tx, actor, userId, 'Resetting this second factor');
  const removed = await tx.delete(userTwoFactor).where(eq(userTwoFactor.userId, userId)).returning({ confirmedAt: userTwoFactor.confirmedAt });
  if (!removed.some((r) => r.confirmedAt)) throw conflict('This person has no second factor to reset.');
  await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
  await tx.delete(pendingSignIns).where(eq(pendingSignIns.userId, userId));
  const ended = await tx.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id });
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'twoFactor.reset', before: null, after: null, details: { sessionsEnded: ended.length } });
}

/* ---------- The second step of sign-in ---------- */

export type PendingStep = 'code' | 'enrol';

export interface PendingSignIn {
  userId: string;
  email: string;
  step: PendingStep;
  next: string;
}

/**
 * After a correct password: a person with a second factor is asked for a code, one the rule requires it of and who
 * has none must enrol first; anyone else signs in at once (null). The pending sign-in's secret goes in a cookie.
 */
export async function beginSecondStep(db: Db, checked: PasswordChecked, next: string): Promise<{ secret: string; step: PendingStep } | null> {
  const step: PendingStep | null = (await twoFactorStatus(db, checked.userId)).enrolled ? 'code'
    : (await requiredFor(db, checked.userId)) ? 'enrol' : null;
  if (!step) return null;
  const secret = randomBytes(32).toString('base64url');
  await db.transaction(async (tx) => {
    await tx.delete(pendingSignIns).where(lt(pendingSignIns.expiresAt, new Date()));
    await tx.insert(pendingSignIns).values({
      id: sha256(secret), userId: checked.userId, step, email: checked.email, ip: checked.ip, attemptId: checked.attemptIds[0], next,
      expiresAt: new Date(Date.now() + PENDING_MINUTES * 60_000),
    });
  });
  return { secret, step };
}

export async function pendingSignIn(db: DbOrTx, secret: string | undefined): Promise<PendingSignIn | null> {
  if (!secret || secret.length < 20 || secret.length > 200) return null;
  const [row] = await db.select({ userId: pendingSignIns.userId, email: pendingSignIns.email, step: pendingSignIns.step, next: pendingSignIns.next })
    .from(pendingSignIns).innerJoin(users, eq(users.id, pendingSignIns.userId))
    .where(and(eq(pendingSignIns.id, sha256(secret)), sql`${pendingSignIns.expiresAt} > now()`, eq(users.status, 'active'), sql`${pendingSignIns.tries} < ${PENDING_TRIES}`));
  return row ?? null;
}

/** The pending row, locked, with everything needed to finish it. */
async function lockedPending(tx: DbOrTx, secret: string, step: PendingStep) {
  const [row] = await tx.select().from(pendingSignIns)
    .where(and(eq(pendingSignIns.id, sha256(secret)), eq(pendingSignIns.step, step), sql`${pendingSignIns.expiresAt} > now()`, sql`${pendingSignIns.tries} < ${PENDING_TRIES}`))
    .for('update');
  return row ?? null;
}

interface CompleteOptions {
  ip: string;
  sessionHours: number;
  config: Keyed;
  refusals?: Pick<RefusalLimiter, 'record'>;
}

const signInActor = (userId: string | null, email: string): Actor => ({ ...systemActor('screen'), kind: 'user', userId, email });

async function auditRefusedCode(db: Db, userId: string, email: string, ip: string, reason: string) {
  await db.transaction((tx) => appendAudit(tx, signInActor(userId, email), [{
    module: 'security', action: 'signin.failed', recordType: 'user', recordId: userId, details: { email, ip, reason },
  }]));
}

/**
 * The second step with a code: a 6-digit code from the app (each accepted once) or an unused recovery code. Wrong
 * codes count against the email and the client address exactly like wrong passwords (the same throttle), and after
 * PENDING_TRIES the pending sign-in is gone. Every refusal is audited as a refused sign-in.
 */
export async function completeWithCode(db: Db, secret: string, code: string, options: CompleteOptions): Promise<{ session: NewSession; next: string }> {
  const pending = await pendingSignIn(db, secret);
  if (!pending || pending.step !== 'code') throw new AppError('GONE', PENDING_GONE);
  const attemptId = await reserveAttempt(db, pending.email, options.ip);
  if (attemptId === null) {
    const refusal = { module: 'security', action: 'signin.failed', recordType: 'user', recordId: pending.userId, details: { email: pending.email, ip: options.ip, reason: 'throttled' } };
    await (options.refusals ?? auditEveryRefusal(db)).record(options.ip, signInActor(pending.userId, pending.email), refusal);
    throw new AppError('THROTTLED', THROTTLED_MESSAGE);
  }
  const outcome = await db.transaction(async (tx) => {
    const row = await lockedPending(tx, secret, 'code');
    if (!row) return { kind: 'gone' as const };
    const recovery = !isTotpCode(code);
    const result = recovery
      ? ((await useRecoveryCode(tx, row.userId, code)) ?? 'wrong')
      : await useTotpCode(tx, options.config, row.userId, code);
    if (result === 'wrong' || result === 'replayed') {
      await tx.update(pendingSignIns).set({ tries: sql`${pendingSignIns.tries} + 1` }).where(eq(pendingSignIns.id, row.id));
      return { kind: result };
    }
    await tx.delete(pendingSignIns).where(eq(pendingSignIns.id, row.id));
    if (recovery) {
      await appendAudit(tx, signInActor(row.userId, row.email), [{
        module: 'security', action: 'twoFactor.recoveryCodeUsed', recordType: 'user', recordId: row.userId, details: { ip: options.ip, recoveryCodesLeft: result },
      }]);
    }
    return { kind: 'ok' as const, row, method: recovery ? 'recovery code' : 'authenticator code' };
  });
  if (outcome.kind === 'gone') throw new AppError('GONE', PENDING_GONE);
  if (outcome.kind !== 'ok') {
    await auditRefusedCode(db, pending.userId, pending.email, options.ip, outcome.kind === 'replayed' ? 'second-factor code used again' : 'wrong second-factor code');
    throw new AppError('UNAUTHORIZED', outcome.kind === 'replayed' ? REPLAYED_CODE : WRONG_CODE);
  }
  const { row, method } = outcome;
  await requirePasswordSignInStillAllowed(db, row.userId, row.email, options.ip);
  const session = await openSession(db, { userId: row.userId, email: row.email, ip: options.ip, attemptIds: [row.attemptId, attemptId] },
    options.sessionHours, { secondFactor: method });
  return { session, next: row.next };
}

/**
 * "Only SSO sign-in" turned on while this password sign-in waited for its second step: the switch drops waiting sign-ins,
 * and one already past that point is refused here, just before its session would open.
 */
async function requirePasswordSignInStillAllowed(db: Db, userId: string, email: string, ip: string): Promise<void> {
  if (!(await ssoOnly(db)) || await isBreakGlassAdministrator(db, userId)) return;
  await auditRefusedCode(db, userId, email, ip, 'single sign-on only');
  throw new AppError('UNAUTHORIZED', ssoOnlyPasswordMessage((await oidcSettings(db)).providerName));
}

/** Begins (or shows again) the enrolment a pending 'enrol' sign-in must finish before its session opens. */
export async function enrolmentForPending(db: Db, secret: string, config: Keyed): Promise<Enrolment> {
  const pending = await pendingSignIn(db, secret);
  if (!pending || pending.step !== 'enrol') throw new AppError('GONE', PENDING_GONE);
  const actor = signInActor(pending.userId, pending.email);
  return (await enrolmentInProgress(db, pending.userId, config)) ?? db.transaction((tx) => beginEnrolment(tx, actor, config));
}

/**
 * A person the rule requires to use a second factor confirms their new one during sign-in: enrolment is recorded,
 * the session opens, and the recovery codes are answered to be shown once. A wrong code uses one of the tries.
 */
export async function completeWithEnrolment(db: Db, secret: string, code: string, options: CompleteOptions): Promise<{ session: NewSession; next: string; recoveryCodes: string[] }> {
  const pending = await pendingSignIn(db, secret);
  if (!pending || pending.step !== 'enrol') throw new AppError('GONE', PENDING_GONE);
  const actor = signInActor(pending.userId, pending.email);
  const outcome = await db.transaction(async (tx) => {
    const row = await lockedPending(tx, secret, 'enrol');
    if (!row) return null;
    try {
      const { recoveryCodes } = await confirmEnrolment(tx, actor, code, options.config);
      await tx.delete(pendingSignIns).where(eq(pendingSignIns.id, row.id));
      return { row, recoveryCodes };
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'INVALID') throw error;
      return { row: null, error };
    }
  });
  if (!outcome) throw new AppError('GONE', PENDING_GONE);
  if (!outcome.row) {
    await db.update(pendingSignIns).set({ tries: sql`${pendingSignIns.tries} + 1` }).where(eq(pendingSignIns.id, sha256(secret)));
    throw outcome.error;
  }
  const { row, recoveryCodes } = outcome;
  await requirePasswordSignInStillAllowed(db, row.userId, row.email, options.ip);
  const session = await openSession(db, { userId: row.userId, email: row.email, ip: options.ip, attemptIds: [row.attemptId] },
    options.sessionHours, { secondFactor: 'enrolled' });
  return { session, next: row.next, recoveryCodes };
}

/** Drops a pending sign-in (the person chose to start again). */
export async function cancelPendingSignIn(db: DbOrTx, secret: string | undefined): Promise<void> {
  if (secret) await db.delete(pendingSignIns).where(eq(pendingSignIns.id, sha256(secret)));
}
