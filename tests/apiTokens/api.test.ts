import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { apiTokens, auditLog, outbox } from '../../db/schema';
import { hashSecret, setMaxLifetimeDays } from '../../src/modules/apiTokens/service';
import { startTestEnv, testEnv, ADMIN_EMAIL, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';

// Every test has a generous timeout: booting private services, hashing passwords and spawning processes
// take seconds when the machine is busy.

let env: TestEnv;
let adminToken: string;
beforeAll(async () => {
  env = await testEnv();
  adminToken = await makeToken(env, await adminActor(env), ['apiTokens:read', 'apiTokens:create', 'apiTokens:update', 'risks:read']);
});

const post = (secret: string, path: string, body?: unknown) =>
  env.request(path, bearer(secret, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));

const DAY_MS = 86_400_000;
/** Midnight UTC after `days` days from today: when a token whose expiry date is today + days stops working. */
const endOfDayIn = (days: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + (days + 1) * DAY_MS);
};
const dateIn = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

/** The permission.denied entries naming the token `secret` for requests to `path`. */
async function denialsOf(secret: string, path: string) {
  const [token] = await env.ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.tokenHash, hashSecret(secret)));
  const rows = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.module, 'security'), eq(auditLog.action, 'permission.denied')));
  return rows.filter((r) => (r.details as { tokenId?: string; path?: string }).tokenId === token.id && (r.details as { path?: string }).path === path);
}

async function storedToken(e: TestEnv, id: string) {
  const [row] = await e.ctx.db.select().from(apiTokens).where(eq(apiTokens.id, id));
  return row;
}

describe('API tokens over REST', () => {
  test('create returns 201 with the id and an aat_ secret shown once; only its SHA-256 is stored; audited', async () => {
    const name = unique('CI pipeline (ops team)');
    const res = await post(adminToken, '/api/v1/api-tokens', { name, scopes: ['risks:read'], expiresAt: dateIn(30) });
    expect(res.status, await res.clone().text()).toBe(201);
    const { data } = (await res.json()) as { data: { id: string; secret: string } };
    expect(data.secret).toMatch(/^aat_[A-Za-z0-9_-]{43,}$/);
    expect(Buffer.from(data.secret.slice(4), 'base64url').length).toBeGreaterThanOrEqual(32);

    const row = await storedToken(env, data.id);
    expect(row.tokenHash).toBe(hashSecret(data.secret));
    expect(JSON.stringify(row)).not.toContain(data.secret.slice(4));
    expect(row.expiresAt?.toISOString()).toBe(endOfDayIn(30).toISOString());

    const [entry] = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.module, 'apiTokens'), eq(auditLog.action, 'create'), eq(auditLog.recordId, data.id)));
    expect(entry.via).toBe('api');
    expect(entry.actorTokenId).not.toBeNull();
    expect(JSON.stringify(entry.details)).toContain(name);

    const listed = await env.request('/api/v1/api-tokens?pageSize=200', bearer(adminToken));
    expect(listed.status, await listed.clone().text()).toBe(200);
    const page = ((await listed.json()) as { data: { rows: { id: string; name: string; status: string; scopes: string[]; createdBy: { email: string } }[]; total: number; pageSize: number } }).data;
    expect(page.pageSize).toBe(200);
    const mine = page.rows.find((r) => r.id === data.id);
    expect(mine).toMatchObject({ name, status: 'Active', scopes: ['risks:read'], createdBy: { email: ADMIN_EMAIL } });
    expect(JSON.stringify(page)).not.toContain(data.secret);
  }, 60_000);

  test('scopes beyond your own rights are refused with 400, and nothing is created', async () => {
    const user = await makeUser(env, { 'apiTokens:create': 'all', 'risks:read': 'own' });
    const token = await makeToken(env, await user.actor(), ['apiTokens:create']);
    const before = await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.createdBy, user.id));
    const res = await post(token, '/api/v1/api-tokens', { name: 'too wide', scopes: ['risks:read', 'risks:delete'] });
    expect(res.status, await res.clone().text()).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('risks:delete');
    // A refusal of rights, so it is in the Audit Log like any other.
    const [denied] = await denialsOf(token, '/api/v1/api-tokens');
    expect((denied?.details as { reason?: string })?.reason).toBe("token scopes beyond the creator's rights: risks:read, risks:delete");
    // The token's own scopes bound it too: it holds apiTokens:create but not risks:read.
    const narrow = await post(token, '/api/v1/api-tokens', { name: 'not in my scopes', scopes: ['risks:read'] });
    expect(narrow.status, await narrow.clone().text()).toBe(400);
    expect(await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.createdBy, user.id))).toHaveLength(before.length);
  }, 60_000);

  test('a name of 121 characters, no scope, an unknown scope or a malformed date is a 400', async () => {
    const cases: unknown[] = [
      { name: 'x'.repeat(121), scopes: ['risks:read'] },
      { name: 'ok', scopes: [] },
      { name: 'ok', scopes: ['risks:approve'] },
      { name: 'ok', scopes: ['risks:read'], expiresAt: '2026-02-30' },
      { name: 'ok', scopes: ['risks:read'], expiresAt: 'next week' },
      { name: 'ok', scopes: ['risks:read'], expiresAt: dateIn(-2) },
    ];
    for (const body of cases) {
      const res = await post(adminToken, '/api/v1/api-tokens', body);
      expect(res.status, `${JSON.stringify(body)}: ${await res.clone().text()}`).toBe(400);
    }
    const longest = await post(adminToken, '/api/v1/api-tokens', { name: 'y'.repeat(120), scopes: ['risks:read'] });
    expect(longest.status, await longest.text()).toBe(201);
  }, 60_000);

  test('an expiry beyond the maximum lifetime is refused; the last allowed day is accepted; blank gets the maximum', async () => {
    const tooLate = await post(adminToken, '/api/v1/api-tokens', { name: 'too long', scopes: ['risks:read'], expiresAt: dateIn(366) });
    expect(tooLate.status, await tooLate.clone().text()).toBe(400);
    expect(await tooLate.text()).toContain('365');

    const lastDay = await post(adminToken, '/api/v1/api-tokens', { name: 'a year', scopes: ['risks:read'], expiresAt: dateIn(365) });
    expect(lastDay.status, await lastDay.clone().text()).toBe(201);

    for (const blank of [{}, { expiresAt: '' }, { expiresAt: null }]) {
      const res = await post(adminToken, '/api/v1/api-tokens', { name: 'blank expiry', scopes: ['risks:read'], ...blank });
      expect(res.status, await res.clone().text()).toBe(201);
      const { data } = (await res.json()) as { data: { id: string } };
      expect((await storedToken(env, data.id)).expiresAt?.toISOString(), JSON.stringify(blank)).toBe(endOfDayIn(365).toISOString());
    }
  }, 60_000);

  test('the maximum lifetime is configurable; with 0 a blank expiry never expires and any date is accepted', async () => {
    // A private service, so changing the setting cannot affect other tests.
    const own = await startTestEnv();
    const admin = await adminActor(own);
    const secret = await makeToken(own, admin, ['apiTokens:create']);
    const create = (body: unknown) =>
      own.request('/api/v1/api-tokens', bearer(secret, { method: 'POST', body: JSON.stringify(body) }));

    await own.ctx.db.transaction((tx) => setMaxLifetimeDays(tx, admin, 30));
    expect((await create({ name: 'month+1', scopes: ['apiTokens:create'], expiresAt: dateIn(31) })).status).toBe(400);
    const blank30 = await create({ name: 'blank', scopes: ['apiTokens:create'] });
    expect(blank30.status, await blank30.clone().text()).toBe(201);
    const id30 = ((await blank30.json()) as { data: { id: string } }).data.id;
    expect((await storedToken(own, id30)).expiresAt?.toISOString()).toBe(endOfDayIn(30).toISOString());

    await own.ctx.db.transaction((tx) => setMaxLifetimeDays(tx, admin, 0));
    const never = await create({ name: 'never', scopes: ['apiTokens:create'] });
    expect(never.status, await never.clone().text()).toBe(201);
    const neverId = ((await never.json()) as { data: { id: string } }).data.id;
    expect((await storedToken(own, neverId)).expiresAt).toBeNull();
    const far = await create({ name: 'far', scopes: ['apiTokens:create'], expiresAt: dateIn(3000) });
    expect(far.status, await far.text()).toBe(201);

    const listed = await own.request('/api/v1/api-tokens', bearer(await makeToken(own, admin, ['apiTokens:read'])));
    const rows = ((await listed.json()) as { data: { rows: { id: string; expiresAt: string | null; status: string }[] } }).data.rows;
    expect(rows.find((r) => r.id === neverId)).toMatchObject({ expiresAt: null, status: 'Active' });
  }, 60_000);

  test('without SMTP the security alert stays in the outbox, addressed to every administrator and naming token, scopes, expiry', async () => {
    const name = unique('Outbox alert');
    const res = await post(adminToken, '/api/v1/api-tokens', { name, scopes: ['risks:read', 'apiTokens:read'], expiresAt: dateIn(10) });
    expect(res.status, await res.text()).toBe(201);
    const mails = (await env.ctx.db.select().from(outbox).where(eq(outbox.kind, 'security-alert'))).filter((m) => m.subject.includes(name));
    expect(mails).toHaveLength(1);
    expect(mails[0].recipients).toContain(ADMIN_EMAIL);
    expect(mails[0].body).toContain('risks:read, apiTokens:read');
    expect(mails[0].body).toContain(dateIn(10));
    expect(mails[0].sentAt).toBeNull();
    expect(env.ctx.mailer.configured).toBe(false);
  }, 60_000);

  test('a user at level own lists only their own tokens; level all lists everyone\'s', async () => {
    const user = await makeUser(env, { 'apiTokens:read': 'own', 'apiTokens:create': 'own' });
    const token = await makeToken(env, await user.actor(), ['apiTokens:read']);
    const res = await env.request('/api/v1/api-tokens?pageSize=200', bearer(token));
    expect(res.status, await res.clone().text()).toBe(200);
    const { data } = (await res.json()) as { data: { rows: { createdBy: { id: string } }[]; total: number } };
    expect(data.total).toBe(1);
    expect(data.rows.map((r) => r.createdBy.id)).toEqual([user.id]);

    const all = await env.request('/api/v1/api-tokens?pageSize=200', bearer(adminToken));
    const allRows = ((await all.json()) as { data: { rows: { createdBy: { id: string } }[] } }).data.rows;
    expect(allRows.some((r) => r.createdBy.id === user.id)).toBe(true);
    expect(allRows.some((r) => r.createdBy.id !== user.id)).toBe(true);
  }, 60_000);
});

describe('revoking tokens', () => {
  test('own token with apiTokens:update at level own; it stops working at once and the revocation is audited', async () => {
    const user = await makeUser(env, { 'apiTokens:update': 'own', 'apiTokens:create': 'own', 'risks:read': 'all' });
    const actor = await user.actor();
    const manager = await makeToken(env, actor, ['apiTokens:update']);
    const victim = await makeToken(env, actor, ['risks:read']);
    const [row] = await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.tokenHash, hashSecret(victim)));
    expect((await env.request('/api/v1/risks', bearer(victim))).status).toBe(200);

    const res = await post(manager, `/api/v1/api-tokens/${row.id}/revoke`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { data: { status: string } }).data.status).toBe('Revoked');
    expect((await env.request('/api/v1/risks', bearer(victim))).status).toBe(401);
    const entries = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.module, 'apiTokens'), eq(auditLog.action, 'revoke'), eq(auditLog.recordId, row.id)));
    expect(entries).toHaveLength(1);
    expect(entries[0].actorUserId).toBe(user.id);
  }, 60_000);

  test("another user's token: 404 when you cannot see it, 403 when you can but only update at level own, 200 at level all", async () => {
    const owner = await makeUser(env, { 'apiTokens:create': 'own', 'risks:read': 'all' });
    const secret = await makeToken(env, await owner.actor(), ['risks:read']);
    const [row] = await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.tokenHash, hashSecret(secret)));

    const blind = await makeUser(env, { 'apiTokens:update': 'own', 'apiTokens:read': 'own', 'apiTokens:create': 'own' });
    const blindToken = await makeToken(env, await blind.actor(), ['apiTokens:update']);
    const blindRes = await post(blindToken, `/api/v1/api-tokens/${row.id}/revoke`);
    expect(blindRes.status).toBe(404);
    // The same answer as a token that does not exist, but audited as the refusal it is.
    expect(await blindRes.json()).toEqual({ error: `API token ${row.id} not found` });
    const [denied] = await denialsOf(blindToken, `/api/v1/api-tokens/${row.id}/revoke`);
    expect((denied?.details as { reason?: string })?.reason).toBe("revoking another user's token needs apiTokens:update at level all");

    const seer = await makeUser(env, { 'apiTokens:update': 'own', 'apiTokens:read': 'all', 'apiTokens:create': 'own' });
    const seerRes = await post(await makeToken(env, await seer.actor(), ['apiTokens:update', 'apiTokens:read']), `/api/v1/api-tokens/${row.id}/revoke`);
    expect(seerRes.status, await seerRes.text()).toBe(403);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);

    const unknown = await post(adminToken, `/api/v1/api-tokens/${crypto.randomUUID()}/revoke`);
    expect(unknown.status, await unknown.text()).toBe(404);

    const adminRes = await post(adminToken, `/api/v1/api-tokens/${row.id}/revoke`);
    expect(adminRes.status, await adminRes.text()).toBe(200);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(401);
  }, 60_000);
});
