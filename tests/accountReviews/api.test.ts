import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['accountReviews:read', 'accountReviews:create', 'accountReviews:update', 'accountReviews:delete']);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, body === undefined ? { method } : { method, body: JSON.stringify(body) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

async function makeProgram(body: Record<string, unknown> = {}, secret = token): Promise<string> {
  const res = await send('POST', '/api/v1/account-reviews', { name: unique('Quarterly access review'), ...body }, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

async function makeItem(programId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await send('POST', `/api/v1/account-reviews/${programId}/items`, { account: unique('jdoe'), system: 'Payroll', ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

interface Item {
  id: string; account: string; system: string; decision: string | null; reviewedAt: string | null;
  owner: { email: string } | null; reviewer: { email: string } | null; notes: string;
}

describe('review programs over REST', () => {
  test('a program created with a name alone is open, owned by its creator, and can be changed and deleted', async () => {
    const id = await makeProgram({ dueOn: '2026-12-31' });
    const program = await json<Record<string, unknown>>(await send('GET', `/api/v1/account-reviews/${id}`));
    expect(program).toMatchObject({ status: 'open', dueOn: '2026-12-31', description: '' });
    expect((program.owner as { email: string }).email).toBe(ADMIN_EMAIL);

    const closed = await send('PATCH', `/api/v1/account-reviews/${id}`, { status: 'closed' });
    expect(closed.status, await closed.clone().text()).toBe(200);
    expect((await json<{ status: string }>(closed)).status).toBe('closed');
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/account-reviews/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'update', changes: { status: { before: 'open', after: 'closed' } } });

    expect((await send('DELETE', `/api/v1/account-reviews/${id}`)).status).toBe(204);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/account-reviews/${id}`))).toEqual(refusedWith(404, 'Review program <id> not found'));
  });

  test('a blank name, an unknown status and an impossible due date are each refused', async () => {
    const blank = await send('POST', '/api/v1/account-reviews', { name: '   ' });
    expect(blank.status).toBe(400);
    expect(await errorOf(blank)).toContain('name: must not be blank');
    const impossible = await send('POST', '/api/v1/account-reviews', { name: 'x', dueOn: '2026-02-30' });
    expect(impossible.status).toBe(400);
    expect(await errorOf(impossible)).toContain('dueOn');
    expect((await send('POST', '/api/v1/account-reviews', { name: 'x', status: 'paused' })).status).toBe(400);
  });

  test('a user at level own sees only programs they own, over REST with their token as well', async () => {
    const user = await makeUser(env, {
      'accountReviews:read': 'own', 'accountReviews:create': 'own', 'accountReviews:update': 'own', 'apiTokens:create': 'own',
    });
    const own = await makeToken(env, await user.actor(), ['accountReviews:read', 'accountReviews:create', 'accountReviews:update']);
    const mine = await makeProgram({}, own);
    const theirs = await makeProgram();
    const page = await json<{ rows: { id: string }[]; total: number }>(await send('GET', '/api/v1/account-reviews?pageSize=200', undefined, own));
    expect(page.rows.map((r) => r.id)).toEqual([mine]);
    expect(page.total).toBe(1);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/account-reviews/${theirs}`, undefined, own))).toEqual(refusedWith(404, 'Review program <id> not found', 'no accountReviews:read on Review program <id>'));
    expect(await refusalOf(env, async () => send('GET', `/api/v1/account-reviews/${theirs}/items`, undefined, own))).toEqual(refusedWith(404, 'Review program <id> not found', 'no accountReviews:read on Review program <id>'));
    expect(await refusalOf(env, async () => send('POST', `/api/v1/account-reviews/${theirs}/items`, { account: 'a', system: 's' }, own))).toEqual(refusedWith(404, 'Review program <id> not found', 'no accountReviews:read on Review program <id>'));
    const added = await send('POST', `/api/v1/account-reviews/${mine}/items`, { account: 'svc-backup', system: 'AD' }, own);
    expect(added.status, await added.clone().text()).toBe(201);
  });

  test('a token without the update scope may read items but not add them', async () => {
    const reader = await makeToken(env, await adminActor(env), ['accountReviews:read']);
    const id = await makeProgram();
    expect((await send('GET', `/api/v1/account-reviews/${id}/items`, undefined, reader)).status).toBe(200);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/account-reviews/${id}/items`, { account: 'a', system: 's' }, reader))).toEqual(refusedWith(403, 'forbidden', 'token scope accountReviews:update missing'));
  });
});

describe('review items over REST', () => {
  test('an item is added pending with its owner resolved from the email, listed with paging', async () => {
    const id = await makeProgram();
    await makeItem(id, { account: 'alice', system: 'CRM', owner: ADMIN_EMAIL.toUpperCase() });
    await makeItem(id, { account: 'bob', system: 'CRM' });
    await makeItem(id, { account: 'carol', system: 'CRM' });
    const first = await json<{ rows: Item[]; total: number }>(await send('GET', `/api/v1/account-reviews/${id}/items?pageSize=2`));
    expect(first.total).toBe(3);
    expect(first.rows.map((r) => r.account)).toEqual(['alice', 'bob']);
    expect(first.rows[0]).toMatchObject({ decision: null, reviewedAt: null, reviewer: null, owner: { email: ADMIN_EMAIL } });
    const second = await json<{ rows: Item[] }>(await send('GET', `/api/v1/account-reviews/${id}/items?pageSize=2&page=2`));
    expect(second.rows.map((r) => r.account)).toEqual(['carol']);
    expect((await send('GET', `/api/v1/account-reviews/${id}/items?pageSize=500`)).status).toBe(400);
  });

  test('an item needs account and system, a known active owner, and is not added twice', async () => {
    const id = await makeProgram();
    await makeItem(id, { account: 'dave', system: 'ERP' });
    const missing = await send('POST', `/api/v1/account-reviews/${id}/items`, { account: 'x' });
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toContain('system');
    const blanks = await send('POST', `/api/v1/account-reviews/${id}/items`, { account: ' ', system: ' ', owner: 'nobody@test.example' });
    expect(blanks.status).toBe(400);
    const message = await errorOf(blanks);
    for (const part of ['account', 'system', 'no user with email nobody@test.example']) expect(message).toContain(part);
    const twice = await send('POST', `/api/v1/account-reviews/${id}/items`, { account: 'dave', system: 'ERP' });
    expect(twice.status).toBe(400);
    expect(await errorOf(twice)).toContain('already in this program');
  });

  test('a decision sets reviewer (the actor by default) and time, and is recorded in the item History', async () => {
    const id = await makeProgram();
    const itemId = await makeItem(id, { account: 'erin', system: 'VPN' });
    const before = Date.now();
    const decided = await send('PATCH', `/api/v1/account-reviews/${id}/items/${itemId}`, { decision: 'revoke', notes: 'left the company' });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const item = await json<Item>(decided);
    expect(item).toMatchObject({ decision: 'revoke', notes: 'left the company', reviewer: { email: ADMIN_EMAIL } });
    expect(Date.parse(item.reviewedAt!)).toBeGreaterThanOrEqual(before - 1000);

    const history = await json<{ action: string; via: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(
      await send('GET', `/api/v1/account-reviews/${id}/items/${itemId}/history`));
    expect(history.map((h) => h.action)).toEqual(['update', 'create']);
    expect(history[0].via).toBe('api');
    expect(history[0].changes.decision).toEqual({ before: null, after: 'revoke' });

    const pending = await json<{ total: number }>(await send('GET', `/api/v1/account-reviews/${id}/items?decision=pending`));
    expect(pending.total).toBe(0);
    const revoked = await json<{ total: number }>(await send('GET', `/api/v1/account-reviews/${id}/items?decision=revoke`));
    expect(revoked.total).toBe(1);
  });

  test('a decision names another reviewer only when that is an active user, and only keep, revoke or modify', async () => {
    const id = await makeProgram();
    const itemId = await makeItem(id);
    const reviewer = await makeUser(env, {});
    const named = await send('PATCH', `/api/v1/account-reviews/${id}/items/${itemId}`, { decision: 'modify', reviewer: reviewer.email });
    expect(named.status, await named.clone().text()).toBe(200);
    expect((await json<Item>(named)).reviewer?.email).toBe(reviewer.email);
    expect((await send('PATCH', `/api/v1/account-reviews/${id}/items/${itemId}`, { decision: 'maybe' })).status).toBe(400);
    const unknown = await send('PATCH', `/api/v1/account-reviews/${id}/items/${itemId}`, { decision: 'keep', reviewer: 'ghost@test.example' });
    expect(unknown.status).toBe(400);
    expect(await errorOf(unknown)).toContain('reviewer');
  });

  test('a closed program refuses decisions and new items with 409 until it is reopened', async () => {
    const id = await makeProgram();
    const itemId = await makeItem(id);
    await send('PATCH', `/api/v1/account-reviews/${id}`, { status: 'closed' });
    const refused = await send('PATCH', `/api/v1/account-reviews/${id}/items/${itemId}`, { decision: 'keep' });
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('closed');
    expect((await send('POST', `/api/v1/account-reviews/${id}/items`, { account: 'late', system: 'CRM' })).status).toBe(409);
    await send('PATCH', `/api/v1/account-reviews/${id}`, { status: 'open' });
    expect((await send('PATCH', `/api/v1/account-reviews/${id}/items/${itemId}`, { decision: 'keep' })).status).toBe(200);
  });

  test('an item of another program is not found, and a program with items is deleted only after they are removed', async () => {
    const id = await makeProgram();
    const other = await makeProgram();
    const itemId = await makeItem(id);
    expect(await refusalOf(env, async () => send('PATCH', `/api/v1/account-reviews/${other}/items/${itemId}`, { decision: 'keep' }))).toEqual(refusedWith(404, 'Review item <id> not found'));
    const blocked = await send('DELETE', `/api/v1/account-reviews/${id}`);
    expect(blocked.status).toBe(409);
    expect(await errorOf(blocked)).toContain('still referenced by 1 review item;');
    expect((await send('DELETE', `/api/v1/account-reviews/${id}/items/${itemId}`)).status).toBe(204);
    expect((await send('DELETE', `/api/v1/account-reviews/${id}`)).status).toBe(204);
  });
});

describe('account reviews in the OpenAPI document', () => {
  test('every account review operation states its scope, and those paths alone pass a real validator', async () => {
    const SwaggerParser = (await import('@apidevtools/swagger-parser')).default;
    const doc = (await (await env.request('/api/v1/openapi')).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const ours = Object.fromEntries(Object.entries(doc.paths).filter(([path]) => path.startsWith('/api/v1/account-reviews')));
    expect(Object.keys(ours)).toContain('/api/v1/account-reviews/{id}/items/import');
    const scopes = Object.entries(ours).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ operation: `${method} ${path}`, scope: String(op['x-required-scope']) })));
    expect(scopes.length).toBeGreaterThanOrEqual(12);
    for (const { operation, scope } of scopes) expect(scope, operation).toMatch(/^accountReviews:(read|create|update|delete)$/);
    await SwaggerParser.validate(structuredClone({ ...doc, paths: ours }) as never);
  });
});
