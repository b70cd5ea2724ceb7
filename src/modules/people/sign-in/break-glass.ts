import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { ADMINISTRATOR_ROLE } from '../../../platform/modules/reference-data';
import { groupMembers, groupRoles, pendingSignIns, roles, sessions, settings, users } from '../../../../db/schema';
import { conflict } from '../../../platform/core/errors';

/*
 * Break-glass administrators: while only single sign-on is allowed, the people who may still use a password. The
 * people service calls these guards on every change that could take the last one away, so they read only tables.
 */

export const SSO_ONLY_KEY = 'signIn.ssoOnly';

export const LAST_BREAK_GLASS =
  'At least one active break-glass administrator must remain while only single sign-on is allowed: mark another administrator as break-glass first, or allow password sign-in again.';

export const RESET_NEEDS_BREAK_GLASS =
  'Only single sign-on is allowed: passwords, and so password reset links, are kept for break-glass administrators.';

export async function ssoOnly(db: DbOrTx): Promise<boolean> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, SSO_ONLY_KEY));
  return row?.value === true;
}

/** Holds the Administrator role through one of their groups. */
export const administratorCondition = (userId: ReturnType<typeof sql>) => sql`exists (
  select 1 from ${groupMembers} gm join ${groupRoles} gr on gr.group_id = gm.group_id join ${roles} r on r.id = gr.role_id
  where gm.user_id = ${userId} and r.name = ${ADMINISTRATOR_ROLE})`;

/** Holds the Administrator role now (whatever their status or mark). */
export async function isAdministratorAccount(db: DbOrTx, userId: string): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(and(eq(users.id, userId), administratorCondition(sql`${users.id}`)));
  return row !== undefined;
}

/** Active administrators marked break-glass: the people who may still sign in with a password when only SSO is allowed. */

export async function countBreakGlassAdministrators(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(users)
    .where(and(eq(users.status, 'active'), eq(users.breakGlass, true), administratorCondition(sql`${users.id}`)));
  return row.count;
}

/** Whether this user may sign in with a password (and get a reset link) while only single sign-on is allowed. */

export async function isBreakGlassAdministrator(db: DbOrTx, userId: string): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users)
    .where(and(eq(users.id, userId), eq(users.status, 'active'), eq(users.breakGlass, true), administratorCondition(sql`${users.id}`)));
  return row !== undefined;
}

/**
 * Called after a change that can take break-glass away (the flag, deactivation, leaving a group): while only single
 * sign-on is allowed, at least one active break-glass administrator must remain, else the change is refused (409) and
 * its transaction rolled back.
 */

export async function requireBreakGlassRemains(tx: DbOrTx): Promise<void> {
  if (!(await ssoOnly(tx))) return;
  if ((await countBreakGlassAdministrators(tx)) === 0) throw conflict(LAST_BREAK_GLASS);
}

export const LAST_ADMINISTRATOR =
  'At least one active administrator must remain: make someone else an administrator first.';

/**
 * Called after a change that can take the Administrator role from people (leaving a group, a role taken from a group,
 * deactivation, a group deleted): nobody left to administer is refused (409) and the transaction rolled back.
 */
export async function requireAdministratorRemains(tx: DbOrTx): Promise<void> {
  const [row] = await tx.select({ id: users.id }).from(users)
    .where(and(eq(users.status, 'active'), administratorCondition(sql`${users.id}`))).limit(1);
  if (!row) throw conflict(LAST_ADMINISTRATOR);
}

/** Password reset links and their use: only break-glass administrators while only single sign-on is allowed (409). */

export async function requirePasswordAllowed(tx: DbOrTx, userId: string): Promise<void> {
  if (!(await ssoOnly(tx))) return;
  if (!(await isBreakGlassAdministrator(tx, userId))) throw conflict(RESET_NEEDS_BREAK_GLASS);
}

/**
 * Turning "Only SSO sign-in" on ends every password session but those of active break-glass administrators (and the
 * one in use, `keepSessionId`), so nobody goes on working on a sign-in the rule no longer allows; they sign in again
 * through the provider. Sessions opened through the provider stay. Returns how many ended.
 */
export async function endSessionsOutsideBreakGlass(tx: DbOrTx, keepSessionId: string | null): Promise<number> {
  const breakGlass = (userId: typeof sessions.userId | typeof pendingSignIns.userId) =>
    sql`exists (select 1 from ${users} u where u.id = ${userId} and u.status = 'active' and u.break_glass and ${administratorCondition(sql`u.id`)})`;
  // A password sign-in waiting for its second factor would otherwise still open a session after the switch.
  await tx.delete(pendingSignIns).where(sql`not ${breakGlass(pendingSignIns.userId)}`);
  const ended = await tx.delete(sessions).where(and(
    eq(sessions.signedInWith, 'password'),
    sql`not ${breakGlass(sessions.userId)}`,
    keepSessionId ? sql`${sessions.id} <> ${keepSessionId}` : undefined,
  )).returning({ id: sessions.id });
  return ended.length;
}

/** A group that holds the Administrator role: never one new people join by themselves (sign-in creation). */
export async function groupHoldsAdministrator(db: DbOrTx, groupId: string): Promise<boolean> {
  const [admin] = await db.select({ id: groupRoles.groupId }).from(groupRoles).innerJoin(roles, eq(roles.id, groupRoles.roleId))
    .where(and(eq(groupRoles.groupId, groupId), eq(roles.name, ADMINISTRATOR_ROLE)));
  return admin !== undefined;
}
