/**
 * SCIM 2.0 provisioning: SCIM tokens and the on/off setting (Settings › Provisioning), and users and groups read and
 * written as SCIM resources. Writes go through the same rules as the Settings screens (the people service's
 * membership and status functions) and are audited with via "scim" and the SCIM token's id.
 */
import { and, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { selectRows, type DbOrTx } from '../../../../db/client';
import { ADMINISTRATORS_GROUP, ADMINISTRATOR_ROLE } from '../../../platform/modules/reference-data';
import { groupHoldsAdministrator, isAdministratorAccount } from '../sign-in/break-glass';
import { groupMembers, groups, scimTokens, sessions, settings, users } from '../../../../db/schema';
import { appendAudit } from '../../../platform/audit/audit';
import { AppError, invalidField, notFound } from '../../../platform/core/errors';
import { recordChange } from '../../../platform/audit/history';
import { levelOf, requirePermission, type Actor, type Permission } from '../../../platform/permissions/permissions';
import { toRights } from '../rights';
import { addGroupMember, removeGroupMember, requireAdministratorsRemain, requireGroupDeletable, requireRightsOver, setUserStatus } from '../service';
import { member, parseFilter, ScimSyntaxError, type Filter } from './filter';
import { applyPatch, ScimPatchError, type PatchOperation, type PatchSchema } from './patch';
import { filterSql, type SqlResource } from './query';
import {
  DEFAULT_COUNT, GROUP_SCHEMA, groupResource, MAX_RESULTS, USER_SCHEMA, userResource,
  type ScimGroupRow, type ScimResource, type ScimUserRow, type UserFields,
} from './resources';
import { isUuid } from '../../../platform/core/uuid';

export const SCIM_TOKEN_PREFIX = 'scim_';
export const SCIM_ENABLED_SETTING = 'scim.enabled';
const LAST_USED_REFRESH_MS = 60_000;

/** An error answered in SCIM's own error schema (RFC 7644 §3.12). */
export class ScimError extends Error {
  constructor(readonly status: number, message: string, readonly scimType?: string) {
    super(message);
  }
}

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/* ---------- Setting and tokens (Settings › Provisioning) ---------- */

/** Provisioning changes who can sign in: turning it on or off and making tokens needs settings:update at level all. */
function requireProvisioningAdmin(actor: Actor): void {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], 'settings:update at level all needed for provisioning'), { actor });
  }
}

export async function scimEnabled(db: DbOrTx): Promise<boolean> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, SCIM_ENABLED_SETTING));
  return row?.value === true;
}

export async function setScimEnabled(tx: DbOrTx, actor: Actor, enabled: boolean): Promise<void> {
  requireProvisioningAdmin(actor);
  const before = await scimEnabled(tx);
  if (before === enabled) return;
  await tx.insert(settings).values({ key: SCIM_ENABLED_SETTING, value: enabled })
    .onConflictDoUpdate({ target: settings.key, set: { value: enabled, updatedAt: new Date() } });
  await appendAudit(tx, actor, [{ module: 'settings', action: 'update', recordType: 'setting', recordId: SCIM_ENABLED_SETTING, details: { changes: { value: { before, after: enabled } } } }]);
}

export interface ScimTokenView {
  id: string;
  name: string;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  status: 'Active' | 'Revoked';
}

export async function listScimTokens(db: DbOrTx): Promise<ScimTokenView[]> {
  const rows = await db.select({ token: scimTokens, creator: users.name }).from(scimTokens)
    .innerJoin(users, eq(users.id, scimTokens.createdBy)).orderBy(desc(scimTokens.createdAt));
  return rows.map(({ token, creator }) => ({
    id: token.id, name: token.name, createdBy: creator, createdAt: token.createdAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null, status: token.revokedAt ? 'Revoked' : 'Active',
  }));
}

/** The secret is returned once; only its SHA-256 is kept. */
export async function createScimToken(tx: DbOrTx, actor: Actor, name: string): Promise<{ id: string; secret: string }> {
  requireProvisioningAdmin(actor);
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 120) throw invalidField('name', 'must be 1 to 120 characters');
  const secret = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const [row] = await tx.insert(scimTokens).values({ name: trimmed, tokenHash: hashSecret(secret), createdBy: actor.userId! }).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'scimToken', recordId: row.id, action: 'create', before: null, after: { name: trimmed } });
  return { id: row.id, secret };
}

export async function revokeScimToken(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  requireProvisioningAdmin(actor);
  const [row] = await tx.update(scimTokens).set({ revokedAt: new Date(), revokedBy: actor.userId })
    .where(and(eq(scimTokens.id, id), isNull(scimTokens.revokedAt))).returning();
  if (!row) throw notFound('Active SCIM token');
  await recordChange(tx, actor, { module: 'settings', recordType: 'scimToken', recordId: id, action: 'revoke', before: { status: 'Active' }, after: { status: 'Revoked' } });
}

/** What a SCIM token may do: manage people, with its creator's live rights (a creator who loses them stops it). */
const SCIM_SCOPES: ReadonlySet<Permission> = new Set(['settings:read', 'settings:create', 'settings:update']);

const denied = (reason: string, tokenId?: string) =>
  Object.assign(new AppError('UNAUTHORIZED', 'unauthorized', [], reason), tokenId ? { tokenId } : {});

/** Resolves a SCIM bearer token to its actor; API tokens and anything else are refused (401, audited by the caller). */
export async function authenticateScimToken(db: DbOrTx, secret: string): Promise<Actor> {
  if (!secret.startsWith(SCIM_TOKEN_PREFIX)) {
    throw denied(secret.startsWith('aat_') ? 'an API token cannot be used on the SCIM address' : 'malformed SCIM token');
  }
  const hash = hashSecret(secret);
  const [row] = await selectRows<{ id: string; token_hash: string; revoked_at: Date | null; last_used_at: Date | null; user_id: string; email: string; status: string; group_ids: string[] | null; permissions: { p: string; l: 'own' | 'all' }[] | null }>(db, sql`
    select t.id, t.token_hash, t.revoked_at, t.last_used_at, u.id as user_id, u.email, u.status,
      (select array_agg(gm.group_id::text) from group_members gm where gm.user_id = u.id) as group_ids,
      (select json_agg(json_build_object('p', rp.permission, 'l', rp.level)) from group_members gm
         join group_roles gr on gr.group_id = gm.group_id join role_permissions rp on rp.role_id = gr.role_id
        where gm.user_id = u.id) as permissions
    from scim_tokens t join users u on u.id = t.created_by where t.token_hash = ${hash}`);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))) throw denied('unknown SCIM token');
  if (row.revoked_at) throw denied('SCIM token revoked', row.id);
  if (row.status !== 'active') throw denied('SCIM token creator deactivated', row.id);
  if (Date.now() - (row.last_used_at ? new Date(row.last_used_at).getTime() : 0) >= LAST_USED_REFRESH_MS) {
    await db.update(scimTokens).set({ lastUsedAt: new Date() }).where(eq(scimTokens.id, row.id));
  }
  return {
    kind: 'token', userId: row.user_id, email: row.email, groupIds: row.group_ids ?? [], rights: toRights(row.permissions),
    tokenId: row.id, scopes: SCIM_SCOPES, via: 'scim',
  };
}

/* ---------- Reading users and groups ---------- */

const USER_SQL: SqlResource = {
  schema: USER_SCHEMA.toLowerCase(),
  single: {
    id: { column: sql`u.id`, type: 'id' },
    externalid: { column: sql`u.external_id`, type: 'string', caseExact: true },
    username: { column: sql`u.email`, type: 'string' },
    displayname: { column: sql`u.name`, type: 'string' },
    'name.formatted': { column: sql`u.name`, type: 'string' },
    'name.givenname': { column: sql`u.given_name`, type: 'string' },
    'name.familyname': { column: sql`u.family_name`, type: 'string' },
    active: { column: sql`(u.status = 'active')`, type: 'boolean' },
    'meta.created': { column: sql`u.created_at`, type: 'dateTime' },
    'meta.lastmodified': { column: sql`u.updated_at`, type: 'dateTime' },
  },
  multi: {
    emails: { sub: { value: { column: sql`u.email`, type: 'string' }, type: { column: sql`'work'::text`, type: 'string' }, primary: { column: sql`true`, type: 'boolean' } } },
    groups: {
      sub: { value: { column: sql`sg.id`, type: 'id' }, display: { column: sql`sg.name`, type: 'string' } },
      some: (condition) => sql`exists (select 1 from group_members sgm join groups sg on sg.id = sgm.group_id where sgm.user_id = u.id and ${condition})`,
    },
  },
};

const GROUP_SQL: SqlResource = {
  schema: GROUP_SCHEMA.toLowerCase(),
  single: {
    id: { column: sql`g.id`, type: 'id' },
    externalid: { column: sql`g.external_id`, type: 'string', caseExact: true },
    displayname: { column: sql`g.name`, type: 'string' },
    'meta.created': { column: sql`g.created_at`, type: 'dateTime' },
    'meta.lastmodified': { column: sql`g.updated_at`, type: 'dateTime' },
  },
  multi: {
    members: {
      sub: { value: { column: sql`mu.id`, type: 'id' }, display: { column: sql`mu.name`, type: 'string' } },
      some: (condition) => sql`exists (select 1 from group_members mgm join users mu on mu.id = mgm.user_id where mgm.group_id = g.id and ${condition})`,
    },
  },
};

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
}

export interface ListResult<T> {
  total: number;
  startIndex: number;
  rows: T[];
}

function whereOf(resource: SqlResource, text: string | undefined): SQL {
  if (text === undefined || text.trim() === '') return sql`true`;
  let filter: Filter;
  try {
    filter = parseFilter(text);
    return filterSql(resource, filter);
  } catch (error) {
    if (error instanceof ScimSyntaxError) throw new ScimError(400, `filter: ${error.message}`, 'invalidFilter');
    throw error;
  }
}

/** startIndex is 1-based; count is capped at MAX_RESULTS; 0 asks for the total alone (RFC 7644 §3.4.2.4). */
function pageOf(query: ListQuery): { startIndex: number; count: number } {
  const startIndex = Math.max(1, Math.floor(query.startIndex ?? 1));
  const count = Math.min(MAX_RESULTS, Math.max(0, Math.floor(query.count ?? DEFAULT_COUNT)));
  return { startIndex, count };
}

interface UserSqlRow {
  id: string; email: string; name: string; given_name: string | null; family_name: string | null; external_id: string | null;
  active: boolean; created_at: string | Date; updated_at: string | Date; groups: { id: string; name: string }[]; total: number;
}

const USER_COLUMNS = sql`u.id, u.email, u.name, u.given_name, u.family_name, u.external_id, u.status = 'active' as active,
  u.created_at, u.updated_at,
  coalesce((select json_agg(json_build_object('id', g.id, 'name', g.name) order by g.name)
    from group_members gm join groups g on g.id = gm.group_id where gm.user_id = u.id), '[]'::json) as groups`;

const toUserRow = (r: UserSqlRow): ScimUserRow => ({
  id: r.id, email: r.email, name: r.name, givenName: r.given_name, familyName: r.family_name, externalId: r.external_id,
  active: r.active, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at), groups: r.groups,
});

export async function listScimUsers(db: DbOrTx, query: ListQuery): Promise<ListResult<ScimUserRow>> {
  const where = whereOf(USER_SQL, query.filter);
  const { startIndex, count } = pageOf(query);
  if (count === 0) {
    const [{ total }] = await selectRows<{ total: number }>(db, sql`select count(*)::int as total from users u where u.deprovisioned_at is null and ${where}`);
    return { total, startIndex, rows: [] };
  }
  const rows = await selectRows<UserSqlRow>(db, sql`
    select ${USER_COLUMNS}, (count(*) over ())::int as total from users u
    where u.deprovisioned_at is null and ${where}
    order by u.created_at, u.id limit ${count} offset ${startIndex - 1}`);
  const total = rows[0]?.total ?? (startIndex > 1 ? await countUsers(db, where) : 0);
  return { total, startIndex, rows: rows.map(toUserRow) };
}

async function countUsers(db: DbOrTx, where: SQL): Promise<number> {
  const [{ total }] = await selectRows<{ total: number }>(db, sql`select count(*)::int as total from users u where u.deprovisioned_at is null and ${where}`);
  return total;
}


export async function getScimUser(db: DbOrTx, id: string): Promise<ScimUserRow> {
  if (!isUuid(id)) throw new ScimError(404, `User ${id} not found`);
  const [row] = await selectRows<UserSqlRow>(db, sql`select ${USER_COLUMNS}, 1 as total from users u where u.id = ${id}::uuid and u.deprovisioned_at is null`);
  if (!row) throw new ScimError(404, `User ${id} not found`);
  return toUserRow(row);
}

interface GroupSqlRow {
  id: string; name: string; external_id: string | null; created_at: string | Date; updated_at: string | Date;
  members: { id: string; name: string }[] | null; total: number;
}

const groupColumns = (withMembers: boolean) => sql`g.id, g.name, g.external_id, g.created_at, g.updated_at, ${withMembers
  ? sql`coalesce((select json_agg(json_build_object('id', mu.id, 'name', mu.name) order by mu.name)
      from group_members gm join users mu on mu.id = gm.user_id where gm.group_id = g.id), '[]'::json)`
  : sql`'[]'::json`} as members`;

const toGroupRow = (r: GroupSqlRow): ScimGroupRow => ({
  id: r.id, name: r.name, externalId: r.external_id, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at), members: r.members ?? [],
});

/** `withMembers` false skips reading the member lists (a client that excludes `members` from large groups). */
export async function listScimGroups(db: DbOrTx, query: ListQuery, withMembers = true): Promise<ListResult<ScimGroupRow>> {
  const where = whereOf(GROUP_SQL, query.filter);
  const { startIndex, count } = pageOf(query);
  const countAll = async () => (await selectRows<{ total: number }>(db, sql`select count(*)::int as total from groups g where ${where}`))[0].total;
  if (count === 0) return { total: await countAll(), startIndex, rows: [] };
  const rows = await selectRows<GroupSqlRow>(db, sql`
    select ${groupColumns(withMembers)}, (count(*) over ())::int as total from groups g where ${where}
    order by g.created_at, g.id limit ${count} offset ${startIndex - 1}`);
  const total = rows[0]?.total ?? (startIndex > 1 ? await countAll() : 0);
  return { total, startIndex, rows: rows.map(toGroupRow) };
}

export async function getScimGroup(db: DbOrTx, id: string, withMembers = true): Promise<ScimGroupRow> {
  if (!isUuid(id)) throw new ScimError(404, `Group ${id} not found`);
  const [row] = await selectRows<GroupSqlRow>(db, sql`select ${groupColumns(withMembers)}, 1 as total from groups g where g.id = ${id}::uuid`);
  if (!row) throw new ScimError(404, `Group ${id} not found`);
  return toGroupRow(row);
}

/* ---------- Reading a resource sent by the identity provider ---------- */

/** Every attribute of the core User schema (RFC 7643 §4.1); those this service does not keep are accepted and ignored. */
const USER_ATTRIBUTES = new Set([
  'schemas', 'id', 'externalid', 'meta', 'username', 'name', 'displayname', 'nickname', 'profileurl', 'title', 'usertype',
  'preferredlanguage', 'locale', 'timezone', 'active', 'password', 'emails', 'phonenumbers', 'ims', 'photos', 'addresses',
  'groups', 'entitlements', 'roles', 'x509certificates',
]);
const GROUP_ATTRIBUTES = new Set(['schemas', 'id', 'externalid', 'meta', 'displayname', 'members']);

const USER_PATCH: PatchSchema = { core: USER_SCHEMA.toLowerCase(), multiValued: new Set(['emails', 'phonenumbers', 'ims', 'photos', 'addresses', 'groups', 'entitlements', 'roles', 'x509certificates']), readOnly: new Set(['id', 'meta', 'groups']) };
const GROUP_PATCH: PatchSchema = { core: GROUP_SCHEMA.toLowerCase(), multiValued: new Set(['members']), readOnly: new Set(['id', 'meta']) };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Extension schemas (such as the enterprise User) arrive under their URN; this service keeps none of them. */
const isExtensionKey = (key: string) => key.toLowerCase().startsWith('urn:') && !key.toLowerCase().startsWith(USER_SCHEMA.toLowerCase())
  && !key.toLowerCase().startsWith(GROUP_SCHEMA.toLowerCase());

function checkKnownAttributes(resource: ScimResource, known: Set<string>, what: string): void {
  for (const key of Object.keys(resource)) {
    if (isExtensionKey(key)) continue;
    if (!known.has(key.toLowerCase())) throw new ScimError(400, `${what}: unknown attribute "${key}"`, 'invalidSyntax');
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined);

/** Entra ID sends booleans as the strings "True" and "False". */
function booleanOf(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimError(400, `${field} must be true or false`, 'invalidValue');
}

export function userFieldsOf(resource: ScimResource): UserFields {
  checkKnownAttributes(resource, USER_ATTRIBUTES, 'User');
  const email = text(member(resource, 'username'));
  if (!email) throw new ScimError(400, 'userName is required', 'invalidValue');
  if (email.length > 254 || !EMAIL.test(email)) throw new ScimError(400, 'userName must be an e-mail address (it is the sign-in address)', 'invalidValue');
  const name = member(resource, 'name');
  const givenName = text(member(name, 'givenname')) || null;
  const familyName = text(member(name, 'familyname')) || null;
  const shown = text(member(resource, 'displayname')) || text(member(name, 'formatted'))
    || [givenName, familyName].filter(Boolean).join(' ') || email;
  if (shown.length > 200) throw new ScimError(400, 'displayName must be at most 200 characters', 'invalidValue');
  const externalId = text(member(resource, 'externalid')) || null;
  if (externalId && externalId.length > 255) throw new ScimError(400, 'externalId must be at most 255 characters', 'invalidValue');
  return { email, name: shown, givenName, familyName, externalId, active: booleanOf(member(resource, 'active'), 'active') ?? true };
}

export interface GroupFields {
  name: string;
  externalId: string | null;
  /** Member user ids; undefined when the resource does not name its members (a PUT without them keeps them). */
  memberIds?: string[];
}

export function groupFieldsOf(resource: ScimResource): GroupFields {
  checkKnownAttributes(resource, GROUP_ATTRIBUTES, 'Group');
  const name = text(member(resource, 'displayname'));
  if (!name) throw new ScimError(400, 'displayName is required', 'invalidValue');
  if (name.length > 120) throw new ScimError(400, 'displayName must be at most 120 characters', 'invalidValue');
  const externalId = text(member(resource, 'externalid')) || null;
  const members = member(resource, 'members');
  if (members !== undefined && members !== null && !Array.isArray(members)) throw new ScimError(400, 'members must be a list', 'invalidValue');
  const memberIds = Array.isArray(members) ? members.map((m, i) => {
    const value = text(member(m, 'value'));
    if (!value || !isUuid(value)) throw new ScimError(400, `members[${i}].value must be a user id`, 'invalidValue');
    return value.toLowerCase();
  }) : undefined;
  return { name, externalId, memberIds: memberIds && [...new Set(memberIds)] };
}

/* ---------- Writing users ---------- */

/** Fields compared and kept in History for a provisioned user. */
const userSnapshot = (u: typeof users.$inferSelect) => ({
  email: u.email, name: u.name, givenName: u.givenName, familyName: u.familyName, externalId: u.externalId, status: u.status,
});

function requireProvisioning(actor: Actor, right: 'settings:create' | 'settings:update'): void {
  requirePermission(actor, right);
  if (levelOf(actor, right) !== 'all') throw new AppError('FORBIDDEN', 'forbidden', [], `${right} at level all needed`);
}

/** POST /Users. A userName of a user removed through SCIM (DELETE) brings that account back instead of a second one. */
export async function createScimUser(tx: DbOrTx, actor: Actor, fields: UserFields): Promise<string> {
  requireProvisioning(actor, 'settings:create');
  const [existing] = await tx.select().from(users).where(sql`lower(${users.email}) = lower(${fields.email})`).for('update');
  if (existing && !existing.deprovisionedAt) throw new ScimError(409, `A user with userName ${fields.email} already exists`, 'uniqueness');
  if (existing) {
    const [after] = await tx.update(users).set({ ...columnsOf(fields), deprovisionedAt: null, updatedAt: new Date() }).where(eq(users.id, existing.id)).returning();
    await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: existing.id, action: 'reprovision', before: userSnapshot(existing), after: userSnapshot(after) });
    return existing.id;
  }
  const [row] = await tx.insert(users).values(columnsOf(fields)).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: row.id, action: 'create', before: null, after: userSnapshot(row) });
  return row.id;
}

const columnsOf = (fields: UserFields) => ({
  email: fields.email, name: fields.name, givenName: fields.givenName, familyName: fields.familyName, externalId: fields.externalId,
  status: fields.active ? 'active' as const : 'deactivated' as const,
});

/** PUT /Users/{id} (and PATCH, after the patch is applied): deactivation ends sessions and stops the user's tokens. */
export async function replaceScimUser(tx: DbOrTx, actor: Actor, id: string, fields: UserFields): Promise<void> {
  requireProvisioning(actor, 'settings:update');
  const [before] = await tx.select().from(users).where(and(eq(users.id, id), isNull(users.deprovisionedAt))).for('update');
  if (!before) throw new ScimError(404, `User ${id} not found`);
  if (fields.email.toLowerCase() !== before.email.toLowerCase()) {
    // An administrator's address decides where their reset links and single sign-on go: changed here only.
    if (await isAdministratorAccount(tx, id)) throw new ScimError(403, `An ${ADMINISTRATOR_ROLE}'s userName is changed here, not by provisioning`);
    await requireRightsOver(tx, actor, id, 'Changing this userName');
    const [clash] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${fields.email}) and ${users.id} <> ${id}`);
    if (clash) throw new ScimError(409, `A user with userName ${fields.email} already exists`, 'uniqueness');
  }
  const { status, ...rest } = columnsOf(fields);
  const [after] = await tx.update(users).set({ ...rest, updatedAt: new Date() }).where(eq(users.id, id)).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: id, action: 'update', before: userSnapshot(before), after: userSnapshot(after) });
  if (status !== before.status) await setStatus(tx, actor, id, status);
}

async function setStatus(tx: DbOrTx, actor: Actor, id: string, status: 'active' | 'deactivated'): Promise<void> {
  try {
    await setUserStatus(tx, actor, id, status);
  } catch (error) {
    if (error instanceof AppError && error.code === 'CONFLICT') throw new ScimError(409, error.message, 'mutability');
    throw error;
  }
}

export async function patchScimUser(tx: DbOrTx, actor: Actor, id: string, operations: PatchOperation[], base: string): Promise<void> {
  const current = userResource(await getScimUser(tx, id), base);
  await replaceScimUser(tx, actor, id, userFieldsOf(patched(current, operations, USER_PATCH)));
}

/**
 * DELETE /Users/{id}: the account is deactivated (sessions end, tokens stop), leaves its groups and is no longer a
 * SCIM resource; the row stays because the Audit Log, History and records name it.
 */
export async function deleteScimUser(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  requireProvisioning(actor, 'settings:update');
  const [before] = await tx.select().from(users).where(and(eq(users.id, id), isNull(users.deprovisionedAt))).for('update');
  if (!before) throw new ScimError(404, `User ${id} not found`);
  if (before.status === 'active') await setStatus(tx, actor, id, 'deactivated');
  const memberships = await tx.select({ groupId: groupMembers.groupId }).from(groupMembers).where(eq(groupMembers.userId, id));
  for (const { groupId } of memberships) await removeGroupMember(tx, actor, groupId, id);
  await tx.update(users).set({ deprovisionedAt: new Date(), updatedAt: new Date() }).where(eq(users.id, id));
  await tx.delete(sessions).where(eq(sessions.userId, id));
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: id, action: 'deprovision', before: { deprovisioned: false }, after: { deprovisioned: true } });
}

function patched(resource: ScimResource, operations: PatchOperation[], schema: PatchSchema): ScimResource {
  try {
    return applyPatch(resource, operations, schema);
  } catch (error) {
    if (error instanceof ScimPatchError) throw new ScimError(400, error.message, error.scimType);
    throw error;
  }
}

/* ---------- Writing groups ---------- */

const groupSnapshot = (g: typeof groups.$inferSelect) => ({ name: g.name, externalId: g.externalId });

async function requireUsers(tx: DbOrTx, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const found = await tx.select({ id: users.id }).from(users).where(and(inArray(users.id, ids), isNull(users.deprovisionedAt)));
  const missing = ids.filter((id) => !found.some((f) => f.id === id));
  if (missing.length) throw new ScimError(400, `members: no user ${missing.slice(0, 5).join(', ')}`, 'invalidValue');
}

async function nameTaken(tx: DbOrTx, name: string, except?: string): Promise<boolean> {
  const [clash] = await tx.select({ id: groups.id }).from(groups)
    .where(except ? sql`lower(${groups.name}) = lower(${name}) and ${groups.id} <> ${except}` : sql`lower(${groups.name}) = lower(${name})`);
  return Boolean(clash);
}

export async function createScimGroup(tx: DbOrTx, actor: Actor, fields: GroupFields): Promise<string> {
  requireProvisioning(actor, 'settings:create');
  if (await nameTaken(tx, fields.name)) throw new ScimError(409, `A group named ${fields.name} already exists`, 'uniqueness');
  await requireUsers(tx, fields.memberIds ?? []);
  const [row] = await tx.insert(groups).values({ name: fields.name, externalId: fields.externalId }).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: row.id, action: 'create', before: null, after: groupSnapshot(row) });
  for (const userId of fields.memberIds ?? []) await addGroupMember(tx, actor, row.id, userId);
  return row.id;
}

export async function replaceScimGroup(tx: DbOrTx, actor: Actor, id: string, fields: GroupFields): Promise<void> {
  requireProvisioning(actor, 'settings:update');
  const [before] = await tx.select().from(groups).where(eq(groups.id, id)).for('update');
  if (!before) throw new ScimError(404, `Group ${id} not found`);
  if (before.name === ADMINISTRATORS_GROUP && fields.name !== before.name) throw new ScimError(409, `The built-in ${ADMINISTRATORS_GROUP} group cannot be renamed`, 'mutability');
  if (await nameTaken(tx, fields.name, id)) throw new ScimError(409, `A group named ${fields.name} already exists`, 'uniqueness');
  const [after] = await tx.update(groups).set({ name: fields.name, externalId: fields.externalId, updatedAt: new Date() }).where(eq(groups.id, id)).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: id, action: 'update', before: groupSnapshot(before), after: groupSnapshot(after) });
  if (fields.memberIds) await setMembers(tx, actor, id, fields.memberIds);
}

async function setMembers(tx: DbOrTx, actor: Actor, groupId: string, wanted: string[]): Promise<void> {
  await requireUsers(tx, wanted);
  const current = (await tx.select({ userId: groupMembers.userId }).from(groupMembers).where(eq(groupMembers.groupId, groupId))).map((m) => m.userId);
  // As for directory mappings and single sign-on: who becomes an administrator is decided here, never by the provider.
  if (wanted.some((u) => !current.includes(u)) && await groupHoldsAdministrator(tx, groupId)) {
    throw new ScimError(403, `This group holds the ${ADMINISTRATOR_ROLE} role: its members are added here, not by provisioning`);
  }
  for (const userId of wanted.filter((u) => !current.includes(u))) await addGroupMember(tx, actor, groupId, userId);
  for (const userId of current.filter((u) => !wanted.includes(u))) await removeGroupMember(tx, actor, groupId, userId);
  await tx.update(groups).set({ updatedAt: new Date() }).where(eq(groups.id, groupId));
}

export async function patchScimGroup(tx: DbOrTx, actor: Actor, id: string, operations: PatchOperation[], base: string): Promise<void> {
  const current = groupResource(await getScimGroup(tx, id), base);
  const fields = groupFieldsOf(patched(current, operations, GROUP_PATCH));
  await replaceScimGroup(tx, actor, id, { ...fields, memberIds: fields.memberIds ?? [] });
}

/** DELETE /Groups/{id}: memberships go with the group; the built-in Administrators group stays. */
export async function deleteScimGroup(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  requireProvisioning(actor, 'settings:update');
  const [before] = await tx.select().from(groups).where(eq(groups.id, id)).for('update');
  if (!before) throw new ScimError(404, `Group ${id} not found`);
  if (before.name === ADMINISTRATORS_GROUP) throw new ScimError(409, `The built-in ${ADMINISTRATORS_GROUP} group cannot be deleted`, 'mutability');
  await requireGroupDeletable(tx, actor, id);
  const members = await tx.select({ userId: groupMembers.userId }).from(groupMembers).where(eq(groupMembers.groupId, id));
  await tx.delete(groups).where(eq(groups.id, id));
  await requireAdministratorsRemain(tx);
  await recordChange(tx, actor, { module: 'settings', recordType: 'group', recordId: id, action: 'delete', before: { ...groupSnapshot(before), memberIds: members.map((m) => m.userId) }, after: null });
}

