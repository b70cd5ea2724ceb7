import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), [
    'businessUnits:read', 'businessUnits:create', 'businessUnits:update', 'businessUnits:delete',
    'assets:read', 'assets:create', 'assets:update', 'assets:delete', 'risks:read', 'risks:create', 'risks:update',
  ]);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, body === undefined ? { method } : { method, body: JSON.stringify(body) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

async function createUnit(body: Record<string, unknown>, secret = token): Promise<string> {
  const res = await send('POST', '/api/v1/business-units', body, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

describe('business units over REST', () => {
  test('a unit is created under a parent, read back, and owned by its creator', async () => {
    const parent = await createUnit({ name: unique('Group') });
    const child = await createUnit({ name: '  Finance  ', description: 'Money matters', parentId: parent });
    const unit = await json<Record<string, unknown>>(await send('GET', `/api/v1/business-units/${child}`));
    expect(unit).toMatchObject({ name: 'Finance', description: 'Money matters', parentId: parent });
    expect((unit.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('blank and invalid values are refused naming the field', async () => {
    const blank = await send('POST', '/api/v1/business-units', { name: '   ' });
    expect(blank.status).toBe(400);
    expect(await errorOf(blank)).toContain('name');
    const badParent = await send('POST', '/api/v1/business-units', { name: unique('Unit'), parentId: 'not-a-uuid' });
    expect(badParent.status).toBe(400);
    expect(await errorOf(badParent)).toContain('parentId');
    const unknownParent = crypto.randomUUID();
    const missingParent = await send('POST', '/api/v1/business-units', { name: unique('Unit'), parentId: unknownParent });
    expect(missingParent.status).toBe(404);
    expect(await errorOf(missingParent)).toBe(`parentId: Business unit ${unknownParent} not found`);
  });

  test('names are unique among siblings, ignoring case, but may repeat under another parent', async () => {
    const north = await createUnit({ name: unique('North') });
    const south = await createUnit({ name: unique('South') });
    await createUnit({ name: 'Sales', parentId: north });
    const twin = await send('POST', '/api/v1/business-units', { name: 'SALES', parentId: north });
    expect(twin.status).toBe(400);
    expect(await errorOf(twin)).toContain('name: a business unit named "SALES" already exists under the same parent');
    await createUnit({ name: 'Sales', parentId: south });
  });

  test('a unit cannot become its own parent or ancestor; the refusal names parentId', async () => {
    const top = await createUnit({ name: unique('Top') });
    const middle = await createUnit({ name: 'Middle', parentId: top });
    const bottom = await createUnit({ name: 'Bottom', parentId: middle });
    const cycle = await send('PATCH', `/api/v1/business-units/${top}`, { parentId: bottom });
    expect(cycle.status).toBe(400);
    expect(await errorOf(cycle)).toBe('parentId: would make the business unit its own ancestor (a cycle)');
    const self = await send('PATCH', `/api/v1/business-units/${middle}`, { parentId: middle });
    expect(self.status).toBe(400);
    expect(await errorOf(self)).toContain('parentId');
    const unchanged = await json<{ parentId: string | null }>(await send('GET', `/api/v1/business-units/${top}`));
    expect(unchanged.parentId).toBeNull();
    const toTop = await send('PATCH', `/api/v1/business-units/${bottom}`, { parentId: null });
    expect(toTop.status, await toTop.clone().text()).toBe(200);
    const underBottom = await send('PATCH', `/api/v1/business-units/${top}`, { parentId: bottom });
    expect(underBottom.status, await underBottom.clone().text()).toBe(200);
  });

  test('deleting a unit with children, assets or risks is refused naming each; once they are gone it is deleted', async () => {
    const unit = await createUnit({ name: unique('Operations') });
    const child = await createUnit({ name: 'Logistics', parentId: unit });
    const assetRes = await send('POST', '/api/v1/assets', { name: unique('Warehouse'), businessUnitId: unit });
    const { id: asset } = await json<{ id: string }>(assetRes);
    const riskRes = await send('POST', '/api/v1/risks', {
      title: unique('Flood'), classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 3, businessUnitId: unit,
    });
    expect(riskRes.status, await riskRes.clone().text()).toBe(201);
    const { id: risk } = await json<{ id: string }>(riskRes);

    const refused = await send('DELETE', `/api/v1/business-units/${unit}`);
    expect(refused.status).toBe(409);
    const message = await errorOf(refused);
    // Each by its singular for one.
    expect(message).toContain('still referenced by 1 child business unit, 1 asset, 1 risk; remove those references first');

    expect((await send('PATCH', `/api/v1/risks/${risk}`, { businessUnitId: null })).status).toBe(200);
    expect((await send('PATCH', `/api/v1/assets/${asset}`, { businessUnitId: null })).status).toBe(200);
    expect((await send('DELETE', `/api/v1/business-units/${child}`)).status).toBe(204);
    expect((await send('DELETE', `/api/v1/business-units/${unit}`)).status).toBe(204);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/business-units/${unit}`))).toEqual(refusedWith(404, 'Business unit <id> not found'));
  });

  test('the tree lists every unit right after its parent, with depth and path', async () => {
    const root = await createUnit({ name: unique('Holding') });
    const b = await createUnit({ name: 'B Europe', parentId: root });
    const a = await createUnit({ name: 'A Americas', parentId: root });
    const a1 = await createUnit({ name: 'Brazil', parentId: a });
    const tree = await json<{ id: string; depth: number; path: string[] }[]>(await send('GET', '/api/v1/business-units/tree'));
    const mine = tree.filter((entry) => [root, a, a1, b].includes(entry.id));
    expect(mine.map((entry) => entry.id)).toEqual([root, a, a1, b]);
    expect(mine.map((entry) => entry.depth)).toEqual([0, 1, 2, 1]);
    expect(mine[2].path.slice(1)).toEqual(['A Americas', 'Brazil']);
  });

  test('the list filters by parent and searches by name', async () => {
    const parent = await createUnit({ name: unique('Region') });
    const findable = await createUnit({ name: unique('Findable procurement'), parentId: parent });
    await createUnit({ name: unique('Other'), parentId: parent });
    const page = await json<{ rows: { id: string }[]; total: number }>(
      await send('GET', `/api/v1/business-units?parentId=${parent}&q=findable%20procurement`),
    );
    expect(page.rows.map((row) => row.id)).toEqual([findable]);
  });

  test('at level own a user, and a token of that user, see only the units they or their groups own', async () => {
    const user = await makeUser(env, {
      'businessUnits:read': 'own', 'businessUnits:create': 'own', 'businessUnits:update': 'own', 'apiTokens:create': 'own',
    });
    const own = await makeToken(env, await user.actor(), ['businessUnits:read', 'businessUnits:create', 'businessUnits:update']);
    const mine = await createUnit({ name: unique('Mine') }, own);
    const theirs = await createUnit({ name: unique('Theirs') });
    const groupOwned = await createUnit({ name: unique('Ours'), ownerId: null, ownerGroupId: user.groupId });

    const { listRecords } = await import('../../src/platform/records/records');
    const { businessUnitKind } = await import('../../src/modules/businessUnits/service');
    const seenByUser = await listRecords(env.ctx.db, businessUnitKind, await user.actor(), { pageSize: 200 });
    expect(seenByUser.rows.map((row) => row.id).sort()).toEqual([mine, groupOwned].sort());

    const page = await json<{ rows: { id: string }[] }>(await send('GET', '/api/v1/business-units?pageSize=200', undefined, own));
    expect(page.rows.map((row) => row.id).sort()).toEqual([mine, groupOwned].sort());
    const tree = await json<{ id: string }[]>(await send('GET', '/api/v1/business-units/tree', undefined, own));
    expect(tree.map((entry) => entry.id).sort()).toEqual([mine, groupOwned].sort());
    expect(await refusalOf(env, async () => send('GET', `/api/v1/business-units/${theirs}`, undefined, own))).toEqual(refusedWith(404, 'Business unit <id> not found', 'no businessUnits:read on Business unit <id>'));
    const underTheirs = await send('POST', '/api/v1/business-units', { name: unique('Sub'), parentId: theirs }, own);
    expect(underTheirs.status).toBe(404);
    expect(await errorOf(underTheirs)).toBe(`parentId: Business unit ${theirs} not found`);
  });

  test('creation, changes and deletion are in the History', async () => {
    const parent = await createUnit({ name: unique('Parent') });
    const id = await createUnit({ name: unique('Compliance office') });
    const patched = await send('PATCH', `/api/v1/business-units/${id}`, { parentId: parent, description: 'Reports to the board' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const history = await json<{ action: string; via: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/business-units/${id}/history`));
    expect(history.map((entry) => entry.action)).toEqual(['update', 'create']);
    expect(history[0]).toMatchObject({
      via: 'api', changes: { parentId: { before: null, after: parent }, description: { before: '', after: 'Reports to the board' } },
    });
    expect((await send('DELETE', `/api/v1/business-units/${id}`)).status).toBe(204);
    const { listHistory } = await import('../../src/platform/audit/history');
    const afterDelete = await listHistory(env.ctx.db, 'businessUnit', id);
    expect(afterDelete[0].action).toBe('delete');
  });
});
