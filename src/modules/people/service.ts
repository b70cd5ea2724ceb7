import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../../db/client';
import { groupMembers, groupRoles, groups, passwordResets, rolePermissions, roles, sessions, users } from '../../../db/schema';
import { ADMINISTRATORS_GROUP, ADMINISTRATOR_ROLE } from '../../platform/modules/reference-data';
import { AppError, conflict, forbidden, invalidField, notFound } from '../../platform/core/errors';
import { queueMail } from '../../platform/mail/mail';
import { recordChange } from '../../platform/audit/history';
import { passwordProblem } from '../../platform/core/password-policy';
import { ALL_PERMISSIONS, holdsEveryRight, isPermission, requirePermission, systemActor, type Actor } from '../../platform/permissions/permissions';
import { passwordChecks, throttledCheck } from '../../platform/http/sessions';
import type { RefusalLimiter } from '../../platform/http/refusals';
import type { GroupCreate, RoleCreate, UserCreate, UserUpdate } from './schema';
import { appendAudit } from '../../platform/audit/audit';
import { createHash, randomBytes } from 'node:crypto';
import { requireAdministratorRemains, requireBreakGlassRemains, requirePasswordAllowed } from './sign-in/break-glass';
import { lookAlikeAccount, lookAlikeMessage, userNameColumns, userNameSkeleton } from './user-names';

/** A new password is checked against the password rules (length, repeated characters, common passwords) first. */
async function hashPassword(password: string, email?: string): Promise<string> {
  const problem = passwordProblem(password, { email });
  if (problem) throw invalidField('password', problem);
  return Bun.password.hash(password, { algorithm: 'argon2id' });
}

const publicUser = (u: typeof users.$inferSelect) => ({
  id: u.id, email: u.email, name: u.name, status: u.status, breakGlass: u.breakGlass, createdAt: u.createdAt.toISOString(),
});

interface Grant {
  permission: string;
  level: 'own' | 'all';
}

/**
 * Nobody hands out more than they hold: a role's grants, a role given to a group, or a membership (which gives the
 * group's rights) must each be within the actor's own rights, at no higher a level. Administrators hold everything.
 */
function requireGrantable(actor: Actor, grants: readonly Grant[], what: string): void {
  const beyond = grantsBeyond(actor, grants);
  if (beyond.length) throw forbidden(`${what} would grant rights beyond your own: ${beyond.join(', ')}`);
}

/**
 * The grants the actor does not hold at that level, as "permission (level)"; none for the system. A token is measured
 * by its creator's rights, not its scopes: scopes say what the token may do (a SCIM token: manage people), the
 * creator's rights what it may hand out while doing it.
 */
function grantsBeyond(actor: Actor, grants: readonly Grant[]): string[] {
  if (actor.kind === 'system') return [];
  const beyond = grants.filter(({ permission, level }) => {
    const held = isPermission(permission) ? actor.rights.get(permission) ?? null : null;
    return held === null || (level === 'all' && held !== 'all');
  });
  return [...new Set(beyond.map((g) => `${g.permission} (${g.level})`))];
}

async function grantsOfRoles(db: DbOrTx, roleIds: string[]): Promise<Grant[]> {
  if (roleIds.length === 0) return [];
  return db.select({ permission: rolePermissions.permission, level: rolePermissions.level }).from(rolePermissions)
    .where(inArray(rolePermissions.roleId, roleIds));
}

/**
 * Deciding how people sign in (the identity provider, the directory) decides who can become anyone here, administrators
 * included: it needs every right at level all, not only settings:update.
 */
export function requireEveryRight(actor: Actor, what: string): void {
  if (holdsEveryRight(actor)) return;
  const missing = grantsBeyond(actor, ALL_PERMISSIONS.map((permission) => ({ permission, level: 'all' as const })));
  throw Object.assign(forbidden(`${what} needs every right at level all (an administrator's); missing: ${missing.join(', ')}`), { actor });
}

/**
 * Acting on an account in a way that can hand it to someone else (its password, reset link, second factor, e-mail)
 * needs every right that account holds: otherwise a holder of settings:update could take over an administrator.
 */
export async function requireRightsOver(db: DbOrTx, actor: Actor, userId: string, what: string): Promise<void> {
  if (actor.kind === 'system') return;
  const grants = await db.select({ permission: rolePermissions.permission, level: rolePermissions.level }).from(groupMembers)
    .innerJoin(groupRoles, eq(groupRoles.groupId, groupMembers.groupId))
    .innerJoin(rolePermissions, eq(rolePermissions.roleId, groupRoles.roleId))
    .where(eq(groupMembers.userId, userId));
  const beyond = grantsBeyond(actor, grants);
  if (beyond.length) throw forbidden(`${what} needs every right the person holds; they hold rights beyond your own: ${beyond.join(', ')}`);
}

/** People are managed under Settings; creating accounts needs settings:create (Administrator by default). */
export async function createUser(tx: DbOrTx, actor: Actor, input: UserCreate): Promise<{ id: string }> {
  requirePermission(actor, 'settings:create');
  const address = userNameColumns(input.email);
  const [existing] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${address.email})`);
  if (existing) throw conflict(`A user with email ${address.email} already exists`);
  const lookAlike = await lookAlikeAccount(tx, address.email);
  if (lookAlike) throw conflict(lookAlikeMessage(address.email, lookAlike));
  const [row] = await tx.insert(users).values({
    ...address,
    name: input.name.trim(),
    passwordHash: input.password ? await hashPassword(input.password, address.email) : null,
  }).returning();
  for (const groupId of input.groupIds ?? []) await addGroupMember(tx, actor, groupId, row.id);
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: row.id, action: 'create', before: null, after: publicUser(row) });
  return { id: row.id };
}

export async function setUserPassword(tx: DbOrTx, actor: Actor, userId: string, password: string): Promise<void> {
  requirePermission(actor, 'settings:update');
  const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound(`User ${userId}`);
  await requireRightsOver(tx, actor, userId, 'Setting this password');
  const updated = await tx.update(users).set({ passwordHash: await hashPassword(password, user.email), updatedAt: new Date() })
    .where(eq(users.id, userId)).returning({ id: users.id });
  if (updated.length === 0) throw notFound(`User ${userId}`);
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'password.set', before: null, after: null });
}

/** Deactivation takes effect at once: the user's sessions are deleted and their tokens stop authenticating. */
export async function setUserStatus(tx: DbOrTx, actor: Actor, userId: string, status: 'active' | 'deactivated'): Promise<void> {
  requirePermission(actor, 'settings:update');
  const [before] = await tx.select().from(users).where(eq(users.id, userId));
  if (!before) throw notFound(`User ${userId}`);
  if (before.status === status) return;
  if (status === 'deactivated' && actor.userId === userId) throw conflict('You cannot deactivate your own account');
  // Locking out, or bringing back, someone who holds more than you is acting beyond your rights too.
  await requireRightsOver(tx, actor, userId, status === 'deactivated' ? 'Deactivating this account' : 'Reactivating this account');
  const [after] = await tx.update(users).set({ status, updatedAt: new Date() }).where(eq(users.id, userId)).returning();
  if (status === 'deactivated') {
    await tx.delete(sessions).where(eq(sessions.userId, userId));
    await requireAdministratorsRemain(tx);
  }
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'update', before: publicUser(before), after: publicUser(after) });
}

export async function listUsers(db: DbOrTx) {
  const rows = await db.select().from(users).orderBy(asc(users.name));
  return rows.map(publicUser);
}

export async function createGroup(tx: DbOrTx, actor: Actor, input: GroupCreate): Promise<{ id: string }> {
  requirePermission(actor, 'settings:create');
  const [row] = await tx.insert(groups).values({ name: input.name.trim(), description: input.description ?? '' })
    .onConflictDoNothing().returning();
  if (!row) throw conflict(`A group named ${input.name} already exists`);
  await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: row.id, action: 'create', before: null, after: { name: row.name, description: row.description } });
  return { id: row.id };
}

export async function listGroups(db: DbOrTx) {
  return db.select({ id: groups.id, name: groups.name, description: groups.description }).from(groups).orderBy(asc(groups.name));
}

export async function addGroupMember(tx: DbOrTx, actor: Actor, groupId: string, userId: string): Promise<void> {
  requirePermission(actor, 'settings:update');
  const [group] = await tx.select({ id: groups.id }).from(groups).where(eq(groups.id, groupId));
  if (!group) throw invalidField('groupId', `group ${groupId} does not exist`);
  requireGrantable(actor, await grantsOfGroup(tx, groupId), 'Adding a member to this group');
  const inserted = await tx.insert(groupMembers).values({ groupId, userId }).onConflictDoNothing().returning();
  if (inserted.length) await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: groupId, action: 'member.add', before: null, after: { userId } });
}

/** Taking rights away is held to the same rule as giving them: only someone holding what the group gives. */
export async function removeGroupMember(tx: DbOrTx, actor: Actor, groupId: string, userId: string): Promise<void> {
  requirePermission(actor, 'settings:update');
  requireGrantable(actor, await grantsOfGroup(tx, groupId), 'Removing a member from this group');
  const removed = await tx.delete(groupMembers).where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.userId, userId))).returning();
  if (!removed.length) return;
  await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: groupId, action: 'member.remove', before: { userId }, after: null });
  await requireAdministratorsRemain(tx);
}

/**
 * Deleting a group takes from its members what it gives them: held to the rule of removing a member, and refused when
 * it would leave no administrator: call this before, and requireAdministratorsRemain after.
 */
export async function requireGroupDeletable(tx: DbOrTx, actor: Actor, groupId: string): Promise<void> {
  requireGrantable(actor, await grantsOfGroup(tx, groupId), 'Deleting this group');
}

/** After taking rights from people: an active administrator remains, and a break-glass one while only SSO is allowed. */
export async function requireAdministratorsRemain(tx: DbOrTx): Promise<void> {
  await requireBreakGlassRemains(tx);
  await requireAdministratorRemains(tx);
}

async function grantsOfGroup(db: DbOrTx, groupId: string): Promise<Grant[]> {
  const roleIds = (await db.select({ roleId: groupRoles.roleId }).from(groupRoles).where(eq(groupRoles.groupId, groupId))).map((r) => r.roleId);
  return grantsOfRoles(db, roleIds);
}

export async function createRole(tx: DbOrTx, actor: Actor, input: RoleCreate): Promise<{ id: string }> {
  requirePermission(actor, 'settings:create');
  requireGrantable(actor, input.permissions, 'This role');
  const [row] = await tx.insert(roles).values({ name: input.name.trim(), description: input.description ?? '' }).onConflictDoNothing().returning();
  if (!row) throw conflict(`A role named ${input.name} already exists`);
  if (input.permissions.length) await tx.insert(rolePermissions).values(input.permissions.map((p) => ({ roleId: row.id, ...p })));
  await recordChange(tx, actor, { module: 'settings', recordType: 'role', recordId: row.id, action: 'create', before: null, after: { name: row.name, permissions: input.permissions } });
  return { id: row.id };
}

export async function assignRoleToGroup(tx: DbOrTx, actor: Actor, groupId: string, roleId: string): Promise<void> {
  requirePermission(actor, 'settings:update');
  requireGrantable(actor, await grantsOfRoles(tx, [roleId]), 'Giving this role to a group');
  const inserted = await tx.insert(groupRoles).values({ groupId, roleId }).onConflictDoNothing().returning();
  if (inserted.length) await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: groupId, action: 'role.add', before: null, after: { roleId } });
}

export async function listRoles(db: DbOrTx) {
  const rows = await db.select().from(roles).orderBy(asc(roles.name));
  const grants = rows.length ? await db.select().from(rolePermissions).where(inArray(rolePermissions.roleId, rows.map((r) => r.id))) : [];
  return rows.map((r) => ({ ...r, permissions: grants.filter((g) => g.roleId === r.id).map(({ permission, level }) => ({ permission, level })) }));
}

/** Emails of active users who hold the Administrator role (recipients of security alerts). */
export async function administratorEmails(db: DbOrTx): Promise<string[]> {
  const rows = await db.selectDistinct({ email: users.email }).from(users)
    .innerJoin(groupMembers, eq(groupMembers.userId, users.id))
    .innerJoin(groupRoles, eq(groupRoles.groupId, groupMembers.groupId))
    .innerJoin(roles, eq(roles.id, groupRoles.roleId))
    .where(and(eq(roles.name, ADMINISTRATOR_ROLE), eq(users.status, 'active')));
  return rows.map((r) => r.email);
}

/** Accounts made before addresses had a skeleton get theirs on start (a few statements, once per database). */
async function fillUserNameSkeletons(tx: DbOrTx): Promise<void> {
  const missing = await tx.select({ id: users.id, email: users.email }).from(users).where(isNull(users.emailSkeleton));
  for (let i = 0; i < missing.length; i += 1000) {
    const rows = missing.slice(i, i + 1000).map((u) => ({ id: u.id, skeleton: userNameSkeleton(u.email) }));
    await tx.execute(sql`update users set email_skeleton = v.skeleton
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(id uuid, skeleton text) where users.id = v.id`);
  }
}

/**
 * On first start (no users at all) creates the first administrator in the built-in Administrators group.
 * Returns the generated password when none was configured, so the caller prints it once.
 */
export async function ensureFirstAdministrator(db: Db, email: string, password?: string): Promise<{ created: boolean; generatedPassword?: string }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7231003)`);
    await fillUserNameSkeletons(tx);
    const [{ count }] = await tx.select({ count: sql<number>`count(*)::int` }).from(users);
    if (count > 0) return { created: false };
    const generatedPassword = password ? undefined : randomBytes(18).toString('base64url');
    const actor = systemActor();
    const { id } = await createUser(tx, actor, { email, name: 'Administrator', password: password ?? generatedPassword });
    const [group] = await tx.select({ id: groups.id }).from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
    if (group) await addGroupMember(tx, actor, group.id, id);
    return { created: true, generatedPassword };
  });
}

/** Groups with their member and role ids, for the Settings screens (two queries, however many groups). */
export async function listGroupDetails(db: DbOrTx) {
  const [rows, members, grants] = await Promise.all([
    listGroups(db),
    db.select().from(groupMembers),
    db.select().from(groupRoles),
  ]);
  return rows.map((g) => ({
    ...g,
    memberIds: members.filter((m) => m.groupId === g.id).map((m) => m.userId),
    roleIds: grants.filter((r) => r.groupId === g.id).map((r) => r.roleId),
  }));
}

/* ---------- Administration: edit users and roles, own password, sessions ---------- */

export async function updateUser(tx: DbOrTx, actor: Actor, userId: string, input: UserUpdate): Promise<void> {
  requirePermission(actor, 'settings:update');
  const [before] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
  if (!before) throw notFound(`User ${userId}`);
  const address = userNameColumns(input.email);
  const email = address.email;
  // Whoever decides an account's e-mail decides where its reset links and single sign-on go.
  if (email.toLowerCase() !== before.email.toLowerCase()) await requireRightsOver(tx, actor, userId, 'Changing this e-mail');
  const [clash] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${email}) and ${users.id} <> ${userId}`);
  if (clash) throw conflict(`A user with email ${email} already exists`);
  const lookAlike = await lookAlikeAccount(tx, email, userId);
  if (lookAlike) throw conflict(lookAlikeMessage(email, lookAlike));
  const [after] = await tx.update(users).set({ name: input.name.trim(), ...address, updatedAt: new Date() }).where(eq(users.id, userId)).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'update', before: publicUser(before), after: publicUser(after) });
}

export interface OwnPasswordChange {
  current: string;
  next: string;
  /** The session in use, which stays; every other session of the person ends. */
  keepSessionId: string | null;
  /** The client address, for the throttle. */
  ip: string;
  /** Where a refusal before the check (throttled, busy) is audited; each its own entry when absent. */
  refusals?: Pick<RefusalLimiter, 'record'>;
}

/**
 * A signed-in user changes their own password: the current one is needed (checked under the sign-in throttle, so a
 * session left open cannot be used to guess it), the new one follows the password rules, and every other session of
 * theirs ends (the one in use stays). Opens its own transactions: a wrong guess stays counted.
 */
export async function changeOwnPassword(db: Db, actor: Actor, change: OwnPasswordChange): Promise<void> {
  if (actor.kind !== 'user' || !actor.userId || actor.tokenId) throw forbidden('only a signed-in user changes their own password');
  const userId = actor.userId;
  const [user] = await db.select({ email: users.email, hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound('User');
  if (!user.hash) throw invalidField('currentPassword', 'you have no password here (you sign in through single sign-on or the directory)');
  if (change.current === change.next) throw invalidField('newPassword', 'must differ from the current password');
  const problem = passwordProblem(change.next, { email: user.email });
  if (problem) throw invalidField('newPassword', problem);
  const hash = user.hash;
  const right = await throttledCheck(db, { userId, email: user.email, ip: change.ip, what: 'current password' },
    () => passwordChecks.run(() => Bun.password.verify(change.current, hash)), change.refusals);
  if (!right) throw invalidField('currentPassword', 'is not your current password');
  const passwordHash = await hashPassword(change.next, user.email);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, userId));
    const others = change.keepSessionId ? and(eq(sessions.userId, userId), sql`${sessions.id} <> ${change.keepSessionId}`) : eq(sessions.userId, userId);
    const ended = await tx.delete(sessions).where(others).returning({ id: sessions.id });
    await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'password.change', before: null, after: null, details: { otherSessionsEnded: ended.length } });
  });
}

export async function removeRoleFromGroup(tx: DbOrTx, actor: Actor, groupId: string, roleId: string): Promise<void> {
  requirePermission(actor, 'settings:update');
  const [pair] = await tx.select({ group: groups.name, role: roles.name }).from(groupRoles)
    .innerJoin(groups, eq(groups.id, groupRoles.groupId)).innerJoin(roles, eq(roles.id, groupRoles.roleId))
    .where(and(eq(groupRoles.groupId, groupId), eq(groupRoles.roleId, roleId)));
  if (!pair) return;
  // Taking Administrator from the built-in group could leave nobody able to manage people.
  if (pair.group === ADMINISTRATORS_GROUP && pair.role === ADMINISTRATOR_ROLE) throw conflict(`The ${ADMINISTRATOR_ROLE} role stays with the built-in ${ADMINISTRATORS_GROUP} group`);
  requireGrantable(actor, await grantsOfRoles(tx, [roleId]), 'Taking this role from a group');
  await tx.delete(groupRoles).where(and(eq(groupRoles.groupId, groupId), eq(groupRoles.roleId, roleId)));
  await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: groupId, action: 'role.remove', before: { roleId }, after: null });
  await requireAdministratorsRemain(tx);
}

async function customRole(tx: DbOrTx, roleId: string) {
  const [role] = await tx.select().from(roles).where(eq(roles.id, roleId)).for('update');
  if (!role) throw notFound(`Role ${roleId}`);
  if (role.builtIn) throw conflict(`${role.name} is a built-in role and cannot be changed; create a custom role instead`);
  return role;
}

/** Replaces a custom role's name, description and grants; members of its groups get the new rights at once. */
export async function updateRole(tx: DbOrTx, actor: Actor, roleId: string, input: RoleCreate): Promise<void> {
  requirePermission(actor, 'settings:update');
  requireGrantable(actor, input.permissions, 'This role');
  const role = await customRole(tx, roleId);
  const [clash] = await tx.select({ id: roles.id }).from(roles).where(sql`${roles.name} = ${input.name.trim()} and ${roles.id} <> ${roleId}`);
  if (clash) throw conflict(`A role named ${input.name} already exists`);
  const beforeGrants = await grantsOfRoles(tx, [roleId]);
  requireGrantable(actor, beforeGrants, 'Changing this role');
  await tx.update(roles).set({ name: input.name.trim(), description: input.description ?? '' }).where(eq(roles.id, roleId));
  await tx.delete(rolePermissions).where(eq(rolePermissions.roleId, roleId));
  if (input.permissions.length) await tx.insert(rolePermissions).values(input.permissions.map((p) => ({ roleId, ...p })));
  const sorted = (grants: readonly Grant[]) => [...grants].map((g) => `${g.permission}:${g.level}`).sort();
  await recordChange(tx, actor, {
    module: 'settings', recordType: 'role', recordId: roleId, action: 'update',
    before: { name: role.name, description: role.description, permissions: sorted(beforeGrants) },
    after: { name: input.name.trim(), description: input.description ?? '', permissions: sorted(input.permissions) },
  });
}

/** A custom role still given to a group is not deleted: 409 naming the groups, so nobody loses rights unnoticed. */
export async function deleteRole(tx: DbOrTx, actor: Actor, roleId: string): Promise<void> {
  requirePermission(actor, 'settings:update');
  const role = await customRole(tx, roleId);
  const holders = await tx.select({ name: groups.name }).from(groupRoles).innerJoin(groups, eq(groups.id, groupRoles.groupId))
    .where(eq(groupRoles.roleId, roleId)).orderBy(asc(groups.name));
  if (holders.length) throw conflict(`${role.name} is still given to ${holders.map((h) => h.name).join(', ')}; take it from those groups first`);
  const grants = await grantsOfRoles(tx, [roleId]);
  await tx.delete(roles).where(eq(roles.id, roleId));
  await recordChange(tx, actor, { module: 'settings', recordType: 'role', recordId: roleId, action: 'delete', before: { name: role.name, permissions: grants.map((g) => `${g.permission}:${g.level}`) }, after: null });
}

export interface ActiveSession {
  /** The stored id (a SHA-256 of the cookie secret, which is never stored). */
  id: string;
  userId: string;
  name: string;
  email: string;
  createdAt: string;
  expiresAt: string;
  lastSeenAt: string;
  signedInWith: 'password' | 'oidc';
}

export async function listActiveSessions(db: DbOrTx, limit = 500): Promise<ActiveSession[]> {
  const rows = await db.select({
    id: sessions.id, userId: sessions.userId, name: users.name, email: users.email, createdAt: sessions.createdAt, expiresAt: sessions.expiresAt,
    lastSeenAt: sessions.lastSeenAt, signedInWith: sessions.signedInWith,
  })
    .from(sessions).innerJoin(users, eq(users.id, sessions.userId))
    .where(sql`${sessions.expiresAt} > now()`).orderBy(desc(sessions.createdAt)).limit(limit);
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), expiresAt: r.expiresAt.toISOString(), lastSeenAt: r.lastSeenAt.toISOString() }));
}

/** Ends a session at once (its cookie stops working); administrators only, audited. */
export async function endSession(tx: DbOrTx, actor: Actor, sessionId: string): Promise<void> {
  if (requirePermission(actor, 'settings:update') !== 'all') throw forbidden('settings:update at level all needed to end sessions');
  const [session] = await tx.select({ userId: sessions.userId }).from(sessions).where(eq(sessions.id, sessionId));
  if (!session) throw notFound('Active session');
  await requireRightsOver(tx, actor, session.userId, 'Ending this session');
  const [ended] = await tx.delete(sessions).where(eq(sessions.id, sessionId)).returning({ userId: sessions.userId });
  if (!ended) throw notFound('Active session');
  await appendAudit(tx, actor, [{ module: 'security', action: 'session.end', recordType: 'user', recordId: ended.userId }]);
}

/* ---------- Password reset links ---------- */

/** How long an administrator's password reset link works. */
export const RESET_LINK_HOURS = 24;
const resetHash = (secret: string) => createHash('sha256').update(secret).digest('hex');

/**
 * An administrator (settings:update at level all) makes a one-use link for a person to set a new password; it is
 * mailed to them and shown once. A new link replaces any unused earlier one. Audited.
 */
export async function createPasswordResetLink(tx: DbOrTx, actor: Actor, userId: string, origin: string): Promise<{ link: string; expiresAt: Date }> {
  if (requirePermission(actor, 'settings:update') !== 'all') throw forbidden('settings:update at level all needed for password reset links');
  const [user] = await tx.select({ email: users.email, status: users.status }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound(`User ${userId}`);
  if (user.status !== 'active') throw conflict('The account is deactivated; reactivate it first');
  await requireRightsOver(tx, actor, userId, 'A password reset link');
  await requirePasswordAllowed(tx, userId);
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + RESET_LINK_HOURS * 3_600_000);
  await tx.delete(passwordResets).where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
  await tx.insert(passwordResets).values({ userId, tokenHash: resetHash(secret), createdBy: actor.userId, expiresAt });
  const link = `${origin}/reset-password/${secret}`;
  await queueMail(tx, {
    kind: 'password.reset', recipients: [user.email], subject: 'Set your password',
    body: `An administrator made a link for you to set a new password:\n\n${link}\n\nIt works once, until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  });
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'password.resetLink', before: null, after: { expiresAt: expiresAt.toISOString() } });
  return { link, expiresAt };
}

export const RESET_LINK_INVALID = 'This link has expired or was already used. Ask an administrator for a new one.';

/** The person a reset link is for, while it is unused, unexpired and the account active; else null. */
export async function passwordResetFor(db: DbOrTx, secret: string): Promise<{ userId: string; email: string } | null> {
  if (secret.length < 20 || secret.length > 100) return null;
  const [row] = await db.select({ userId: users.id, email: users.email }).from(passwordResets)
    .innerJoin(users, eq(users.id, passwordResets.userId))
    .where(and(eq(passwordResets.tokenHash, resetHash(secret)), isNull(passwordResets.usedAt), sql`${passwordResets.expiresAt} > now()`, eq(users.status, 'active')));
  return row ?? null;
}

/** Sets the new password through the link (once): every session of the person ends. Audited as the person. */
export async function usePasswordReset(tx: DbOrTx, secret: string, password: string): Promise<void> {
  const target = await passwordResetFor(tx, secret);
  if (!target) throw new AppError('NOT_FOUND', RESET_LINK_INVALID);
  await requirePasswordAllowed(tx, target.userId);
  const used = await tx.update(passwordResets).set({ usedAt: new Date() })
    .where(and(eq(passwordResets.tokenHash, resetHash(secret)), isNull(passwordResets.usedAt))).returning({ id: passwordResets.id });
  if (!used.length) throw new AppError('NOT_FOUND', RESET_LINK_INVALID);
  await tx.update(users).set({ passwordHash: await hashPassword(password, target.email), updatedAt: new Date() }).where(eq(users.id, target.userId));
  await tx.delete(sessions).where(eq(sessions.userId, target.userId));
  const actor: Actor = { ...systemActor('screen'), kind: 'user', userId: target.userId, email: target.email };
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: target.userId, action: 'password.reset', before: null, after: null });
}
