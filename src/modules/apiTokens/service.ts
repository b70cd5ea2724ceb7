import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { preparedOnce, type DbOrTx } from '../../../db/client';
import { apiTokens, settings, users } from '../../../db/schema';
import { appendAudit } from '../../platform/audit/audit';
import { AppError, forbidden, invalid, invalidField, notFound, unauthorized, type FieldProblem } from '../../platform/core/errors';
import { recordChange } from '../../platform/audit/history';
import { queueMail } from '../../platform/mail/mail';
import { paging, type Page } from '../../platform/http/paging';
import { isPermission, requirePermission, levelOf, type Actor, type Level } from '../../platform/permissions/permissions';
import { administratorEmails } from '../people/service';
import { toRights } from '../people/rights';
import type { TokenCreate, TokenListQuery, TokenView } from './schema';

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

/** The last day a token works (its expiry date as entered), or null when it never expires. */
export const lastValidDay = (expiresAt: Date | null): string | null =>
  expiresAt ? new Date(expiresAt.getTime() - DAY_MS).toISOString().slice(0, 10) : null;

/**
 * Creates a token acting as the actor's user. Scopes cannot exceed what that user holds (and, when the actor is
 * itself a token, what its scopes allow). Audited, and every administrator gets a security alert after commit.
 */
export async function createToken(tx: DbOrTx, actor: Actor, input: TokenCreate): Promise<{ id: string; secret: string; expiresAt: Date | null }> {
  requirePermission(actor, 'apiTokens:create');
  if (!actor.userId) throw forbidden('tokens act as a user; the system cannot hold one');
  const name = input.name.trim();
  const problems: FieldProblem[] = [];
  if (!name) problems.push({ field: 'name', message: 'must not be blank' });
  if (name.length > 120) problems.push({ field: 'name', message: 'must be at most 120 characters' });
  const scopes = [...new Set(input.scopes)];
  const unknown = scopes.filter((s) => !isPermission(s));
  const beyond = scopes.filter((s) => isPermission(s) && !levelOf(actor, s));
  if (scopes.length === 0) problems.push({ field: 'scopes', message: 'tick at least one scope' });
  if (unknown.length) problems.push({ field: 'scopes', message: `unknown scope ${unknown.join(', ')}` });
  if (beyond.length) problems.push({ field: 'scopes', message: `exceed your own rights: ${beyond.join(', ')}` });
  let expiresAt: Date | null = null;
  try {
    expiresAt = resolveExpiry(input.expiresAt, await maxLifetimeDays(tx));
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length) {
    const refused = invalid(problems);
    // Asking for more than one holds is a refusal of rights, not only a form mistake: it is audited (permission.denied).
    if (!beyond.length) throw refused;
    throw new AppError('INVALID', refused.message, problems, `token scopes beyond the creator's rights: ${beyond.join(', ')}`);
  }

  const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const [row] = await tx.insert(apiTokens).values({
    name, scopes, tokenHash: hashSecret(secret), createdBy: actor.userId, expiresAt,
  }).returning();
  const lastDay = lastValidDay(expiresAt);
  await recordChange(tx, actor, {
    module: 'apiTokens', recordType: 'apiToken', recordId: row.id, action: 'create', before: null,
    after: { name, scopes: row.scopes, expiresAt: expiresAt?.toISOString() ?? null, createdBy: actor.userId },
    // A security event: the entry itself names the token, its scopes and expiry (History has them too).
    details: { name, scopes: row.scopes, expiresAt: expiresAt?.toISOString() ?? null },
  });
  await queueMail(tx, {
    kind: 'security-alert',
    recipients: await administratorEmails(tx),
    subject: `Security alert: API token "${name}" created`,
    body: [
      `An API token was created by ${actor.email ?? actor.userId} (via ${actor.via}). It acts as that user.`,
      '',
      `Token: ${name}`,
      `Scopes: ${row.scopes.join(', ')}`,
      `Expires: ${lastDay ? `${lastDay} (works through that day, UTC)` : 'never'}`,
      '',
      'If you did not expect this, revoke it under Settings, API Tokens.',
    ].join('\n'),
  });
  return { id: row.id, secret, expiresAt };
}

/** Which tokens the actor may see: every token with apiTokens:read at level all, otherwise their own. */
function visibleTo(actor: Actor, level: Level): SQL | undefined {
  return level === 'all' ? undefined : eq(apiTokens.createdBy, actor.userId ?? '00000000-0000-0000-0000-000000000000');
}

const tokenColumns = { token: apiTokens, user: { id: users.id, email: users.email, name: users.name } };

function toView({ token, user }: { token: typeof apiTokens.$inferSelect; user: TokenView['createdBy'] }, now = new Date()): TokenView {
  return {
    id: token.id,
    name: token.name,
    scopes: token.scopes,
    createdBy: user,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    expiresAt: token.expiresAt?.toISOString() ?? null,
    revokedAt: token.revokedAt?.toISOString() ?? null,
    status: tokenStatus(token, now),
  };
}

/** Every token the actor may see, newest first (the settings page shows them all). */
export async function listTokens(db: DbOrTx, actor: Actor): Promise<TokenView[]> {
  const level = requirePermission(actor, 'apiTokens:read');
  const rows = await db.select(tokenColumns).from(apiTokens).innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(visibleTo(actor, level)).orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
  return rows.map((row) => toView(row));
}

/** One page of the tokens the actor may see, newest first (REST list). */
export async function listTokensPage(db: DbOrTx, actor: Actor, query: TokenListQuery): Promise<Page<TokenView>> {
  const level = requirePermission(actor, 'apiTokens:read');
  const { page, pageSize, offset } = paging(query);
  const where = visibleTo(actor, level);
  const [rows, [{ total }]] = await Promise.all([
    db.select(tokenColumns).from(apiTokens).innerJoin(users, eq(users.id, apiTokens.createdBy))
      .where(where).orderBy(desc(apiTokens.createdAt), desc(apiTokens.id)).limit(pageSize).offset(offset),
    db.select({ total: sql<number>`count(*)::int` }).from(apiTokens).where(where),
  ]);
  return { rows: rows.map((row) => toView(row)), total, page, pageSize };
}

/** A token the actor may see; any other is reported as not found. */
export async function getToken(db: DbOrTx, actor: Actor, tokenId: string): Promise<TokenView> {
  const level = requirePermission(actor, 'apiTokens:read');
  const [row] = await db.select(tokenColumns).from(apiTokens).innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(and(eq(apiTokens.id, tokenId), visibleTo(actor, level)));
  if (!row) throw notFound(`API token ${tokenId}`);
  return toView(row);
}

/**
 * Own token: apiTokens:update; another's: apiTokens:update at level all. Someone else's token is a 404 unless the
 * actor can see it (apiTokens:read at level all), then a 403. Takes effect on the token's next request.
 */
export async function revokeToken(tx: DbOrTx, actor: Actor, tokenId: string): Promise<TokenView> {
  const level = requirePermission(actor, 'apiTokens:update');
  const [row] = await tx.select(tokenColumns).from(apiTokens).innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(eq(apiTokens.id, tokenId)).for('update', { of: apiTokens });
  if (!row) throw notFound(`API token ${tokenId}`);
  const { token } = row;
  if (token.createdBy !== actor.userId && level !== 'all') {
    // Not disclosed (the same 404 as a token that does not exist), but audited as the refusal it is.
    if (levelOf(actor, 'apiTokens:read') !== 'all') {
      throw new AppError('NOT_FOUND', `API token ${tokenId} not found`, [], "revoking another user's token needs apiTokens:update at level all");
    }
    throw forbidden("revoking another user's token needs apiTokens:update at level all");
  }
  if (token.revokedAt) return toView(row);
  const revokedAt = new Date();
  await tx.update(apiTokens).set({ revokedAt, revokedBy: actor.userId }).where(eq(apiTokens.id, tokenId));
  await recordChange(tx, actor, {
    module: 'apiTokens', recordType: 'apiToken', recordId: tokenId, action: 'revoke',
    before: { revokedAt: null }, after: { revokedAt: revokedAt.toISOString() }, details: { name: token.name },
  });
  return toView({ ...row, token: { ...token, revokedAt, revokedBy: actor.userId } });
}

/**
 * The token, its creator, the creator's groups and rights, read fresh on every request (a revoked token, a
 * deactivated creator or a removed right stops working at once). Built with the query builder so it runs as a
 * prepared statement built once (preparedOnce): planning this five-table query cost more than running it.
 */
const tokenAuthStatement = preparedOnce((db) => db.select({
  id: apiTokens.id, tokenHash: apiTokens.tokenHash, scopes: apiTokens.scopes,
  expiresAt: apiTokens.expiresAt, revokedAt: apiTokens.revokedAt, lastUsedAt: apiTokens.lastUsedAt,
  userId: users.id, email: users.email, userStatus: users.status,
  groupIds: sql<string[] | null>`(select array_agg(gm.group_id::text) from group_members gm where gm.user_id = ${users.id})`,
  permissions: sql<{ p: string; l: Level }[] | null>`(select json_agg(json_build_object('p', rp.permission, 'l', rp.level))
       from group_members gm join group_roles gr on gr.group_id = gm.group_id
       join role_permissions rp on rp.role_id = gr.role_id where gm.user_id = ${users.id})`,
})
  .from(apiTokens)
  .innerJoin(users, eq(users.id, apiTokens.createdBy))
  .where(eq(apiTokens.tokenHash, sql.placeholder('hash')))
  .prepare('authenticate_token'));

/**
 * Resolves a bearer secret to an Actor in one query (token, creator, groups, rights). Every failure is a 401
 * whose reason (for the Audit Log) says why; the token id is attached when one was identified.
 */
export async function authenticateToken(db: DbOrTx, secret: string): Promise<Actor> {
  if (secret.startsWith('scim_')) throw unauthorized('a SCIM token cannot be used on the REST API');
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length < 40 || secret.length > 200) throw unauthorized('malformed token');
  const hash = hashSecret(secret);
  const [row] = await tokenAuthStatement(db).execute({ hash });
  // The lookup is by hash already; the constant-time comparison guards against any index/collation surprise.
  if (!row || !timingSafeEqual(Buffer.from(row.tokenHash), Buffer.from(hash))) throw unauthorized('unknown token');
  const denied = (reason: string) => new AppError('UNAUTHORIZED', 'unauthorized', [], reason);
  const withToken = (error: AppError) => Object.assign(error, { tokenId: row.id });
  if (row.revokedAt) throw withToken(denied('token revoked'));
  if (row.expiresAt && row.expiresAt <= new Date()) throw withToken(denied('token expired'));
  if (row.userStatus !== 'active') throw withToken(denied('token creator deactivated'));
  const lastUsed = row.lastUsedAt?.getTime() ?? 0;
  if (Date.now() - lastUsed >= LAST_USED_REFRESH_MS) {
    await db.update(apiTokens).set({ lastUsedAt: new Date() })
      .where(and(eq(apiTokens.id, row.id), sql`(${apiTokens.lastUsedAt} is null or ${apiTokens.lastUsedAt} < now() - interval '1 minute')`));
  }
  return {
    kind: 'token',
    userId: row.userId,
    email: row.email,
    groupIds: row.groupIds ?? [],
    rights: toRights(row.permissions),
    tokenId: row.id,
    scopes: new Set(row.scopes.filter(isPermission)),
    via: 'api',
  };
}
