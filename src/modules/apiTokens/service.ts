import { and, desc, eq, sql } from 'drizzle-orm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { selectRows, type DbOrTx } from '../../../db/client';
import { apiTokens, settings, users } from '../../../db/schema';
import { appendAudit } from '../../platform/audit';
import { AppError, forbidden, invalidField, notFound, unauthorized } from '../../platform/errors';
import { queueMail } from '../../platform/mail';
import { isPermission, requirePermission, levelOf, type Actor, type Level, type Permission } from '../../platform/permissions';
import { administratorEmails } from '../people/service';
import { toRights } from '../people/rights';
import type { TokenCreate, TokenView } from './schema';

export const TOKEN_PREFIX = 'aat_';
export const MAX_LIFETIME_SETTING = 'apiTokens.maxLifetimeDays';
const DEFAULT_MAX_LIFETIME_DAYS = 365;
const LAST_USED_REFRESH_MS = 60_000;
const DAY_MS = 86_400_000;

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export async function maxLifetimeDays(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, MAX_LIFETIME_SETTING));
  return typeof row?.value === 'number' ? row.value : DEFAULT_MAX_LIFETIME_DAYS;
}

/** 0 means no maximum. Changing it needs settings:update and is audited. */
export async function setMaxLifetimeDays(tx: DbOrTx, actor: Actor, days: number): Promise<void> {
  requirePermission(actor, 'settings:update');
  if (!Number.isInteger(days) || days < 0 || days > 3650) throw invalidField('maxLifetimeDays', 'must be an integer from 0 to 3650');
  const before = await maxLifetimeDays(tx);
  await tx.insert(settings).values({ key: MAX_LIFETIME_SETTING, value: days })
    .onConflictDoUpdate({ target: settings.key, set: { value: days, updatedAt: new Date() } });
  await appendAudit(tx, actor, [{ module: 'settings', action: 'update', recordType: 'setting', recordId: MAX_LIFETIME_SETTING, details: { changes: { value: { before, after: days } } } }]);
}

const startOfUtcDay = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());

/** A token is valid through its expiry date (UTC) and stops at the next midnight. */
export function resolveExpiry(expiresAt: string | null | undefined, maxDays: number, now = new Date()): Date | null {
  const today = startOfUtcDay(now);
  if (!expiresAt) return maxDays === 0 ? null : new Date(today + (maxDays + 1) * DAY_MS);
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expiresAt);
  const day = match ? Date.UTC(+match[1], +match[2] - 1, +match[3]) : Number.NaN;
  if (!match || new Date(day).getUTCDate() !== +match[3]) throw invalidField('expiresAt', 'must be a real date written YYYY-MM-DD');
  if (day < today) throw invalidField('expiresAt', 'must not be in the past');
  if (maxDays > 0 && day > today + maxDays * DAY_MS) {
    throw invalidField('expiresAt', `must be at most ${maxDays} days from today (the maximum token lifetime)`);
  }
  return new Date(day + DAY_MS);
}

export function tokenStatus(row: { revokedAt: Date | null; expiresAt: Date | null }, now = new Date()): TokenView['status'] {
  if (row.revokedAt) return 'Revoked';
  if (row.expiresAt && row.expiresAt <= now) return 'Expired';
  return 'Active';
}

/** Creates a token acting as the actor's user. Scopes cannot exceed what that user (and, via a token, its scopes) holds. */
export async function createToken(tx: DbOrTx, actor: Actor, input: TokenCreate): Promise<{ id: string; secret: string; expiresAt: Date | null }> {
  requirePermission(actor, 'apiTokens:create');
  if (!actor.userId) throw forbidden('tokens act as a user; the system cannot hold one');
  const name = input.name.trim();
  if (!name) throw invalidField('name', 'must not be blank');
  if (name.length > 120) throw invalidField('name', 'must be at most 120 characters');
  if (input.scopes.length === 0) throw invalidField('scopes', 'tick at least one scope');
  const unknown = input.scopes.filter((s) => !isPermission(s));
  if (unknown.length) throw invalidField('scopes', `unknown scope ${unknown.join(', ')}`);
  const beyond = input.scopes.filter((s) => !levelOf(actor, s as Permission));
  if (beyond.length) throw invalidField('scopes', `exceed your own rights: ${beyond.join(', ')}`);
  const expiresAt = resolveExpiry(input.expiresAt, await maxLifetimeDays(tx));

  const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const [row] = await tx.insert(apiTokens).values({
    name, scopes: [...input.scopes], tokenHash: hashSecret(secret), createdBy: actor.userId, expiresAt,
  }).returning();
  const expiryText = expiresAt ? expiresAt.toISOString() : 'never';
  await appendAudit(tx, actor, [{
    module: 'apiTokens', action: 'create', recordType: 'apiToken', recordId: row.id,
    details: { name, scopes: row.scopes, expiresAt: expiresAt?.toISOString() ?? null, createdBy: actor.userId },
  }]);
  await queueMail(tx, {
    kind: 'security-alert',
    recipients: await administratorEmails(tx),
    subject: `Security alert: API token "${name}" created`,
    body: [
      `An API token was created by ${actor.email ?? actor.userId}.`,
      '',
      `Name: ${name}`,
      `Scopes: ${row.scopes.join(', ')}`,
      `Expires: ${expiryText}`,
      '',
      'If you did not expect this, revoke it under Settings, API Tokens.',
    ].join('\n'),
  });
  return { id: row.id, secret, expiresAt };
}

export async function listTokens(db: DbOrTx, actor: Actor): Promise<TokenView[]> {
  const level = requirePermission(actor, 'apiTokens:read');
  const rows = await db.select({ token: apiTokens, user: { id: users.id, email: users.email, name: users.name } })
    .from(apiTokens).innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(level === 'all' ? undefined : eq(apiTokens.createdBy, actor.userId ?? ''))
    .orderBy(desc(apiTokens.createdAt));
  return rows.map(({ token, user }) => ({
    id: token.id,
    name: token.name,
    scopes: token.scopes,
    createdBy: user,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    expiresAt: token.expiresAt?.toISOString() ?? null,
    revokedAt: token.revokedAt?.toISOString() ?? null,
    status: tokenStatus(token),
  }));
}

/** Own token: apiTokens:update; another's: apiTokens:update at level all. Takes effect on the next request. */
export async function revokeToken(tx: DbOrTx, actor: Actor, tokenId: string): Promise<void> {
  const level = requirePermission(actor, 'apiTokens:update');
  const [token] = await tx.select().from(apiTokens).where(eq(apiTokens.id, tokenId));
  const mine = token?.createdBy === actor.userId;
  if (!token || (!mine && levelOf(actor, 'apiTokens:read') !== 'all' && level !== 'all')) throw notFound(`API token ${tokenId}`);
  if (!mine && level !== 'all') throw forbidden("revoking another user's token needs apiTokens:update at level all");
  if (token.revokedAt) return;
  await tx.update(apiTokens).set({ revokedAt: new Date(), revokedBy: actor.userId }).where(eq(apiTokens.id, tokenId));
  await appendAudit(tx, actor, [{ module: 'apiTokens', action: 'revoke', recordType: 'apiToken', recordId: tokenId, details: { name: token.name } }]);
}

interface TokenAuthRow {
  id: string;
  token_hash: string;
  scopes: string[];
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
  last_used_at: Date | string | null;
  user_id: string;
  email: string;
  user_status: string;
  group_ids: string[] | null;
  permissions: { p: string; l: Level }[] | null;
}

/**
 * Resolves a bearer secret to an Actor in one query (token, creator, groups, rights). Every failure is a 401
 * whose reason (for the Audit Log) says why; the token id is attached when one was identified.
 */
export async function authenticateToken(db: DbOrTx, secret: string): Promise<Actor> {
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length < 40 || secret.length > 200) throw unauthorized('malformed token');
  const hash = hashSecret(secret);
  const [row] = await selectRows<TokenAuthRow>(db, sql`
    select t.id, t.token_hash, t.scopes, t.expires_at, t.revoked_at, t.last_used_at,
      u.id as user_id, u.email, u.status as user_status,
      (select array_agg(gm.group_id::text) from group_members gm where gm.user_id = u.id) as group_ids,
      (select json_agg(json_build_object('p', rp.permission, 'l', rp.level))
         from group_members gm join group_roles gr on gr.group_id = gm.group_id
         join role_permissions rp on rp.role_id = gr.role_id where gm.user_id = u.id) as permissions
    from api_tokens t join users u on u.id = t.created_by
    where t.token_hash = ${hash}`);
  // The lookup is by hash already; the constant-time comparison guards against any index/collation surprise.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))) throw unauthorized('unknown token');
  const denied = (reason: string) => new AppError('UNAUTHORIZED', 'unauthorized', [], reason);
  const withToken = (error: AppError) => Object.assign(error, { tokenId: row.id });
  if (row.revoked_at) throw withToken(denied('token revoked'));
  if (row.expires_at && new Date(row.expires_at) <= new Date()) throw withToken(denied('token expired'));
  if (row.user_status !== 'active') throw withToken(denied('token creator deactivated'));
  const lastUsed = row.last_used_at ? new Date(row.last_used_at).getTime() : 0;
  if (Date.now() - lastUsed >= LAST_USED_REFRESH_MS) {
    await db.update(apiTokens).set({ lastUsedAt: new Date() })
      .where(and(eq(apiTokens.id, row.id), sql`(${apiTokens.lastUsedAt} is null or ${apiTokens.lastUsedAt} < now() - interval '1 minute')`));
  }
  return {
    kind: 'token',
    userId: row.user_id,
    email: row.email,
    groupIds: row.group_ids ?? [],
    rights: toRights(row.permissions),
    tokenId: row.id,
    scopes: new Set(row.scopes.filter(isPermission)),
    via: 'api',
  };
}
