import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, gt } from 'drizzle-orm';
import { apiTokens, auditLog, history, sessions } from '../../db/schema';
import { createToken, hashSecret } from '../../src/modules/apiTokens/service';
import { removeGroupMember, setUserStatus } from '../../src/modules/people/service';
import { AppError } from '../../src/platform/core/errors';
import { systemActor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';

// Every test has a generous timeout: booting private services, hashing passwords and spawning processes
// take seconds when the machine is busy.

// The spec's "Bearer tokens" rules, one describe per rule. Rule 4 (a request touching a second module) has no
// cross-module route yet; it gets its tests with the first such route.

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

const tokenId = async (secret: string) =>
  (await env.ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.tokenHash, hashSecret(secret))))[0].id;

const auditHead = async () =>
  (await env.ctx.db.select({ seq: auditLog.seq }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1))[0]?.seq ?? 0;

/** The permission.denied entries written after `since`. */
const denialsSince = (since: number) =>
  env.ctx.db.select().from(auditLog)
    .where(and(gt(auditLog.seq, since), eq(auditLog.module, 'security'), eq(auditLog.action, 'permission.denied')))
    .orderBy(auditLog.seq);

/** Sends the request and checks the refusal: status, exact body, and exactly one Audit Log entry with the reason and token. */
async function expectRefused(path: string, init: RequestInit, status: 401 | 403, reason: string, token: string | null) {
  const since = await auditHead();
  const res = await env.request(path, init);
  expect(res.status, await res.clone().text()).toBe(status);
  expect(await res.json()).toEqual({ error: status === 401 ? 'unauthorized' : 'forbidden' });
  const entries = await denialsSince(since);
  expect(entries, JSON.stringify(entries)).toHaveLength(1);
  expect(entries[0].details).toMatchObject({ reason, tokenId: token, path: new URL(path, 'http://x').pathname, method: init.method ?? 'GET' });
  return entries[0];
}

describe('rule 1: requests carry Authorization: Bearer <token>; tokens begin with aat_', () => {
  test('a request without the header is 401 and audited as "no token"', async () => {
    const entry = await expectRefused('/api/v1/risks', {}, 401, 'no token', null);
    expect(entry.actorUserId).toBeNull();
  }, 60_000);

  test('another scheme or a secret without the aat_ prefix is 401', async () => {
    const secret = await makeToken(env, await adminActor(env), ['risks:read']);
    await expectRefused('/api/v1/risks', { headers: { authorization: `Basic ${secret}` } }, 401, 'malformed Authorization header', null);
    await expectRefused('/api/v1/risks', bearer(secret.replace(/^aat_/, 'xyz_')), 401, 'malformed token', null);
  }, 60_000);

  test('authentication comes before input validation: no token with an invalid body or query is 401, not 400', async () => {
    const invalidBody = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 42 }) };
    await expectRefused('/api/v1/risks', invalidBody, 401, 'no token', null);
    await expectRefused('/api/v1/risks?pageSize=not-a-number', {}, 401, 'no token', null);
    const malformed = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title": ' };
    await expectRefused('/api/v1/risks', malformed, 401, 'no token', null);
    // CSV imports (any of create or update) too: a missing mode or an unknown parameter is not looked at first.
    const csv = { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'title\nA risk\n' };
    await expectRefused('/api/v1/risks/import', csv, 401, 'no token', null);
    await expectRefused('/api/v1/risks/import?mode=check&x=1', csv, 401, 'no token', null);
  }, 60_000);

  test('a token without the scope gets 403 for a request whose body is invalid too', async () => {
    const secret = await makeToken(env, await adminActor(env), ['risks:read']);
    const init = bearer(secret, { method: 'POST', body: JSON.stringify({ title: 42 }) });
    await expectRefused('/api/v1/risks', init, 403, 'token scope risks:create missing', await tokenId(secret));
    const csv = bearer(secret, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'title\nA risk\n' });
    await expectRefused('/api/v1/risks/import', csv, 403, "risks:create or risks:update missing (token scope and creator's right)", await tokenId(secret));
  }, 60_000);

  test('an unknown aat_ token is 401', async () => {
    const fake = `aat_${Buffer.alloc(32, 7).toString('base64url')}`;
    await expectRefused('/api/v1/risks', bearer(fake), 401, 'unknown token', null);
  }, 60_000);

  test('issued secrets begin with aat_ and carry 32 random bytes', async () => {
    const secret = await makeToken(env, await adminActor(env), ['risks:read']);
    expect(secret.startsWith('aat_')).toBe(true);
    expect(Buffer.from(secret.slice(4), 'base64url')).toHaveLength(32);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
  }, 60_000);
});

describe('rule 2: a token works on the REST API', () => {
  test('the same token reads and writes through /api/v1', async () => {
    const secret = await makeToken(env, await adminActor(env), ['risks:read', 'risks:create']);
    const created = await env.request('/api/v1/risks', bearer(secret, {
      method: 'POST', body: JSON.stringify({ title: unique('Rule 2'), classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 2 }),
    }));
    expect(created.status, await created.clone().text()).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    const read = await env.request(`/api/v1/risks/${data.id}`, bearer(secret));
    expect(read.status, await read.text()).toBe(200);
  }, 60_000);
});

describe("rule 3: the token's scope and its creator's current right must both hold", () => {
  test('a scope the token lacks is 403, even though the creator holds the right', async () => {
    const secret = await makeToken(env, await adminActor(env), ['risks:read']);
    const entry = await expectRefused('/api/v1/risks', bearer(secret, {
      method: 'POST', body: JSON.stringify({ title: 'x', classificationId: await classificationId(env), inherentLikelihood: 1, inherentImpact: 1 }),
    }), 403, 'token scope risks:create missing', await tokenId(secret));
    expect(entry.actorTokenId).toBe(await tokenId(secret));
  }, 60_000);

  test('a right the creator no longer holds is 403, even though the token has the scope', async () => {
    const user = await makeUser(env, { 'risks:read': 'all', 'apiTokens:create': 'own' });
    const secret = await makeToken(env, await user.actor(), ['risks:read']);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
    await env.ctx.db.transaction((tx) => removeGroupMember(tx, systemActor(), user.groupId, user.id));
    const entry = await expectRefused('/api/v1/risks', bearer(secret), 403, "token creator's right risks:read missing", await tokenId(secret));
    expect(entry.actorUserId).toBe(user.id);
  }, 60_000);

  test("the creator's own level applies: a list returns only what the creator could see", async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:create': 'own', 'apiTokens:create': 'own' });
    const mine = await makeRisk(env, await user.actor());
    const theirs = await makeRisk(env, await adminActor(env));
    const secret = await makeToken(env, await user.actor(), ['risks:read']);
    const res = await env.request('/api/v1/risks?pageSize=200', bearer(secret));
    expect(res.status, await res.clone().text()).toBe(200);
    const ids = ((await res.json()) as { data: { rows: { id: string }[] } }).data.rows.map((r) => r.id);
    expect(ids).toEqual([mine]);
    expect((await env.request(`/api/v1/risks/${theirs}`, bearer(secret))).status).toBe(404);
  }, 60_000);
});

describe("rule 5: a token cannot exceed its creator's rights and dies with the creator's account", () => {
  test('a scope beyond the creator\'s rights is refused at creation', async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'apiTokens:create': 'own' });
    const actor = await user.actor();
    const attempt = env.ctx.db.transaction((tx) => createToken(tx, actor, { name: 'wider', scopes: ['risks:read', 'risks:update'] }));
    const error = await attempt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID');
    expect((error as AppError).message).toContain('risks:update');
  }, 60_000);

  test('deactivating the creator ends their sessions at once and their tokens get 401', async () => {
    const user = await makeUser(env, { 'risks:read': 'all', 'apiTokens:create': 'own' });
    const secret = await makeToken(env, await user.actor(), ['risks:read']);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
    await env.ctx.db.insert(sessions).values([1, 2].map((n) => ({
      id: hashSecret(unique(`session-${n}`)), userId: user.id, csrfToken: unique('csrf'), expiresAt: new Date(Date.now() + 3_600_000),
    })));
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(2);

    const admin = await adminActor(env);
    await env.ctx.db.transaction((tx) => setUserStatus(tx, admin, user.id, 'deactivated'));

    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);
    await expectRefused('/api/v1/risks', bearer(secret), 401, 'token creator deactivated', await tokenId(secret));
  }, 60_000);
});

describe('rule 6: revoked or expired tokens stop working immediately', () => {
  test('a revoked token is 401 on its very next request', async () => {
    const admin = await adminActor(env);
    const secret = await makeToken(env, admin, ['risks:read']);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
    const manager = await makeToken(env, admin, ['apiTokens:update']);
    const revoked = await env.request(`/api/v1/api-tokens/${await tokenId(secret)}/revoke`, bearer(manager, { method: 'POST' }));
    expect(revoked.status, await revoked.text()).toBe(200);
    await expectRefused('/api/v1/risks', bearer(secret), 401, 'token revoked', await tokenId(secret));
  }, 60_000);

  test('a token past its expiry is 401', async () => {
    const secret = await makeToken(env, await adminActor(env), ['risks:read']);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
    await env.ctx.db.update(apiTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiTokens.id, await tokenId(secret)));
    await expectRefused('/api/v1/risks', bearer(secret), 401, 'token expired', await tokenId(secret));
  }, 60_000);
});

describe('rule 7: every refused request is recorded in the Audit Log with the reason and the token', () => {
  test('one permission.denied entry per refusal, naming the token and, once identified, its creator', async () => {
    const user = await makeUser(env, { 'risks:read': 'all', 'risks:delete': 'all', 'apiTokens:create': 'own' });
    const secret = await makeToken(env, await user.actor(), ['risks:read']);
    const id = await tokenId(secret);
    const since = await auditHead();
    expect((await env.request('/api/v1/risks/00000000-0000-4000-8000-000000000000', bearer(secret, { method: 'DELETE' }))).status).toBe(403);
    expect((await env.request('/api/v1/risks', {})).status).toBe(401);
    const entries = await denialsSince(since);
    expect(entries.map((e) => e.details)).toMatchObject([
      { reason: 'token scope risks:delete missing', tokenId: id },
      { reason: 'no token', tokenId: null },
    ]);
    expect(entries[0]).toMatchObject({ actorUserId: user.id, actorTokenId: id, via: 'api', module: 'security' });
  }, 60_000);
});

describe('rule 8: API changes name both the token and its creator', () => {
  test('a risk created over the API is audited and historied with the token id and the creator', async () => {
    const user = await makeUser(env, { 'risks:read': 'all', 'risks:create': 'all', 'apiTokens:create': 'own' });
    const secret = await makeToken(env, await user.actor(), ['risks:create']);
    const res = await env.request('/api/v1/risks', bearer(secret, {
      method: 'POST', body: JSON.stringify({ title: unique('Rule 8'), classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 }),
    }));
    expect(res.status, await res.clone().text()).toBe(201);
    const { data } = (await res.json()) as { data: { id: string } };
    const [entry] = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.recordType, 'risk'), eq(auditLog.recordId, data.id), eq(auditLog.action, 'create')));
    expect(entry).toMatchObject({ actorKind: 'token', actorTokenId: await tokenId(secret), actorUserId: user.id, via: 'api' });
    const [change] = await env.ctx.db.select().from(history).where(and(eq(history.recordType, 'risk'), eq(history.recordId, data.id)));
    expect(change).toMatchObject({ actorTokenId: await tokenId(secret), actorUserId: user.id, via: 'api', auditSeq: entry.seq });
  }, 60_000);
});

describe('Last used', () => {
  test('is set on first use and refreshed at most once a minute', async () => {
    const secret = await makeToken(env, await adminActor(env), ['risks:read']);
    const id = await tokenId(secret);
    const lastUsed = async () => (await env.ctx.db.select({ at: apiTokens.lastUsedAt }).from(apiTokens).where(eq(apiTokens.id, id)))[0].at;
    expect(await lastUsed()).toBeNull();

    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await Bun.sleep(20);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
    expect((await lastUsed())?.getTime()).toBe(first!.getTime());

    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await env.ctx.db.update(apiTokens).set({ lastUsedAt: twoMinutesAgo }).where(eq(apiTokens.id, id));
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(200);
    expect((await lastUsed())!.getTime()).toBeGreaterThan(twoMinutesAgo.getTime() + 60_000);
  }, 60_000);
});
