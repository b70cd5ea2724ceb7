import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeToken, makeUser, unique } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), [
    'assets:read', 'assets:create', 'assets:update', 'assets:delete',
    'businessUnits:read', 'businessUnits:create', 'risks:read', 'risks:create', 'risks:update',
  ]);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, body === undefined ? { method } : { method, body: JSON.stringify(body) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

async function createAsset(body: Record<string, unknown>, secret = token): Promise<string> {
  const res = await send('POST', '/api/v1/assets', body, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

async function createUnit(name = unique('Unit')): Promise<string> {
  const res = await send('POST', '/api/v1/business-units', { name });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

const riskBody = async (extra: Record<string, unknown>) => ({
  title: unique('Risk'), classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 2, ...extra,
});

describe('assets over REST', () => {
  test('an asset created with only a name gets an empty description, no unit, and its creator as owner', async () => {
    const id = await createAsset({ name: '  Payroll database  ' });
    const asset = await json<Record<string, unknown>>(await send('GET', `/api/v1/assets/${id}`));
    expect(asset).toMatchObject({ name: 'Payroll database', description: '', businessUnitId: null, ownerGroupId: null });
    expect((asset.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('an asset belongs to a business unit and the list filters by it and searches by name', async () => {
    const unit = await createUnit();
    const id = await createAsset({ name: unique('Findable laptop fleet'), description: '300 laptops', businessUnitId: unit });
    await createAsset({ name: unique('Findable server room') });
    const page = await json<{ rows: { id: string; businessUnitId: string }[]; total: number }>(
      await send('GET', `/api/v1/assets?businessUnitId=${unit}&q=findable`),
    );
    expect(page.total).toBe(1);
    expect(page.rows[0]).toMatchObject({ id, businessUnitId: unit });
  });

  test('blank and invalid values are refused naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '   ' }, 'name'],
      [{}, 'name'],
      [{ name: 'Ok', businessUnitId: 'unit-7' }, 'businessUnitId'],
      [{ name: 'Ok', ownerId: crypto.randomUUID() }, 'ownerId'],
      [{ name: 'Ok', description: 42 }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await send('POST', '/api/v1/assets', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await errorOf(res), JSON.stringify(body)).toContain(field);
    }
    const unknownUnit = crypto.randomUUID();
    const missingUnit = await send('POST', '/api/v1/assets', { name: 'Ok', businessUnitId: unknownUnit });
    expect(missingUnit.status).toBe(404);
    expect(await errorOf(missingUnit)).toBe(`businessUnitId: Business unit ${unknownUnit} not found`);
    const id = await createAsset({ name: unique('Router') });
    const emptyPatch = await send('PATCH', `/api/v1/assets/${id}`, {});
    expect(emptyPatch.status).toBe(400);
    const blankRename = await send('PATCH', `/api/v1/assets/${id}`, { name: ' ' });
    expect(blankRename.status).toBe(400);
    expect((await send('GET', '/api/v1/assets/not-a-uuid')).status).toBe(400);
    expect((await send('GET', `/api/v1/assets/${crypto.randomUUID()}`)).status).toBe(404);
  });

  test('a risk may name only an asset and a business unit that exist (404, as a link to one you cannot read)', async () => {
    const asset = await send('POST', '/api/v1/risks', await riskBody({ assetId: crypto.randomUUID() }));
    expect(asset.status).toBe(404);
    expect(await errorOf(asset)).toStartWith('assetId: Asset ');
    const unit = await send('POST', '/api/v1/risks', await riskBody({ businessUnitId: crypto.randomUUID() }));
    expect(unit.status).toBe(404);
    expect(await errorOf(unit)).toStartWith('businessUnitId: Business unit ');
  });

  test('deleting an asset that risks still name is refused naming them; after unlinking it is deleted', async () => {
    const id = await createAsset({ name: unique('Customer portal') });
    const risks: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await send('POST', '/api/v1/risks', await riskBody({ assetId: id }));
      expect(res.status, await res.clone().text()).toBe(201);
      risks.push((await json<{ id: string }>(res)).id);
    }
    const refused = await send('DELETE', `/api/v1/assets/${id}`);
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('2 risks');
    for (const risk of risks) expect((await send('PATCH', `/api/v1/risks/${risk}`, { assetId: null })).status).toBe(200);
    expect((await send('DELETE', `/api/v1/assets/${id}`)).status).toBe(204);
    expect((await send('GET', `/api/v1/assets/${id}`)).status).toBe(404);
  });

  test('at level own a user, and a token of that user, see and change only the assets they or their groups own', async () => {
    const user = await makeUser(env, { 'assets:read': 'own', 'assets:create': 'own', 'assets:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['assets:read', 'assets:create', 'assets:update']);
    const mine = await createAsset({ name: unique('Mine') }, own);
    const ours = await createAsset({ name: unique('Ours'), ownerGroupId: user.groupId, ownerId: null });
    const theirs = await createAsset({ name: unique('Theirs') });

    const { listRecords } = await import('../../src/platform/records/records');
    const { assetKind } = await import('../../src/modules/assets/service');
    const seenByUser = await listRecords(env.ctx.db, assetKind, await user.actor(), { pageSize: 200 });
    expect(seenByUser.rows.map((row) => row.id).sort()).toEqual([mine, ours].sort());

    const page = await json<{ rows: { id: string }[] }>(await send('GET', '/api/v1/assets?pageSize=200', undefined, own));
    expect(page.rows.map((row) => row.id).sort()).toEqual([mine, ours].sort());
    expect((await send('GET', `/api/v1/assets/${theirs}`, undefined, own)).status).toBe(404);
    expect((await send('PATCH', `/api/v1/assets/${theirs}`, { name: 'Taken over' }, own)).status).toBe(404);
    const handedAway = await send('PATCH', `/api/v1/assets/${mine}`, { ownerId: (await adminActor(env)).userId }, own);
    expect(handedAway.status).toBe(403);
  });

  test('a token without businessUnits:read cannot link an asset to a unit (403: scopes bound everything a request does)', async () => {
    const unit = await createUnit();
    const assetsOnly = await makeToken(env, await adminActor(env), ['assets:create']);
    const res = await send('POST', '/api/v1/assets', { name: unique('Linked'), businessUnitId: unit }, assetsOnly);
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toBe('forbidden');
  });

  test('creation, changes and deletion are in the History', async () => {
    const unit = await createUnit();
    const id = await createAsset({ name: unique('Badge readers') });
    const patched = await send('PATCH', `/api/v1/assets/${id}`, { businessUnitId: unit, description: 'All sites' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect(await json<{ businessUnitId: string }>(patched)).toMatchObject({ businessUnitId: unit, description: 'All sites' });
    const history = await json<{ action: string; via: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/assets/${id}/history`));
    expect(history.map((entry) => entry.action)).toEqual(['update', 'create']);
    expect(history[0]).toMatchObject({ via: 'api', changes: { businessUnitId: { before: null, after: unit }, description: { before: '', after: 'All sites' } } });
    expect((await send('DELETE', `/api/v1/assets/${id}`)).status).toBe(204);
    const { listHistory } = await import('../../src/platform/audit/history');
    expect((await listHistory(env.ctx.db, 'asset', id))[0].action).toBe('delete');
  });
});
