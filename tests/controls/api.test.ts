import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['controls:read', 'controls:create', 'controls:update', 'controls:delete']);
});

const post = (path: string, body: unknown, secret = token) =>
  env.request(path, bearer(secret, { method: 'POST', body: JSON.stringify(body) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;

describe('controls over REST', () => {
  test('a control created with blanks gets type process and status active', async () => {
    const res = await post('/api/v1/controls', { name: 'Quarterly access review' });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await json<{ id: string }>(res);
    const control = await json<Record<string, unknown>>(await env.request(`/api/v1/controls/${id}`, bearer(token)));
    expect(control).toMatchObject({ name: 'Quarterly access review', type: 'process', status: 'active' });
    expect((control.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('a type outside the allowed values is refused naming the field', async () => {
    const res = await post('/api/v1/controls', { name: 'Bad', type: 'magic' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('type');
  });

  test('the list filters by status and type and searches by name', async () => {
    await post('/api/v1/controls', { name: 'Findable firewall rule review', type: 'technical', status: 'planned' });
    const res = await env.request('/api/v1/controls?q=findable%20firewall&status=planned&type=technical', bearer(token));
    const page = await json<{ rows: { name: string }[]; total: number }>(res);
    expect(page.total).toBe(1);
    expect(page.rows[0].name).toBe('Findable firewall rule review');
  });

  test('a test record sets the next test due from the schedule', async () => {
    const { id } = await json<{ id: string }>(await post('/api/v1/controls', { name: 'Backup restore test', testFrequencyMonths: 3 }));
    const recorded = await post(`/api/v1/controls/${id}/tests`, { testedOn: '2026-01-31', result: 'partial', notes: 'one restore slow' });
    expect(recorded.status, await recorded.clone().text()).toBe(201);
    const testing = await json<{ nextTestDue: string; tests: unknown[] }>(await env.request(`/api/v1/controls/${id}/tests`, bearer(token)));
    expect(testing.nextTestDue).toBe('2026-04-30');
    expect(testing.tests).toHaveLength(1);
  });

  test('a user at level own sees only the controls they or their groups own', async () => {
    const user = await makeUser(env, { 'controls:read': 'own', 'controls:create': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['controls:read', 'controls:create']);
    const { id: mine } = await json<{ id: string }>(await post('/api/v1/controls', { name: 'Mine' }, own));
    const { id: theirs } = await json<{ id: string }>(await post('/api/v1/controls', { name: 'Theirs' }));
    const page = await json<{ rows: { id: string }[] }>(await env.request('/api/v1/controls?pageSize=200', bearer(own)));
    expect(page.rows.map((r) => r.id)).toEqual([mine]);
    expect(await refusalOf(env, async () => env.request(`/api/v1/controls/${theirs}`, bearer(own)))).toEqual(refusedWith(404, 'Control <id> not found', 'no controls:read on Control <id>'));
    expect(await refusalOf(env, async () => post('/api/v1/controls', { name: 'For someone else', ownerId: (await adminActor(env)).userId }, own)))
      .toEqual(refusedWith(403, 'forbidden', 'controls:create is at level own: the record must be owned by you or one of your groups'));
  });

  test('changes and deletion are in the History', async () => {
    const { id } = await json<{ id: string }>(await post('/api/v1/controls', { name: 'Patch management' }));
    const patched = await env.request(`/api/v1/controls/${id}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ status: 'retired' }) }));
    expect(patched.status, await patched.clone().text()).toBe(200);
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await env.request(`/api/v1/controls/${id}/history`, bearer(token)));
    expect(history[0]).toMatchObject({ action: 'update', changes: { status: { before: 'active', after: 'retired' } } });
    expect((await env.request(`/api/v1/controls/${id}`, bearer(token, { method: 'DELETE' }))).status).toBe(204);
    expect(await refusalOf(env, async () => env.request(`/api/v1/controls/${id}`, bearer(token)))).toEqual(refusedWith(404, 'Control <id> not found'));
  });
});

describe('record bookkeeping', () => {
  test('a created control records who created it', async () => {
    const res = await post('/api/v1/controls', { name: 'Creator recorded' });
    const { id } = await json<{ id: string }>(res);
    const control = await json<{ createdBy: string }>(await env.request(`/api/v1/controls/${id}`, bearer(token)));
    expect(control.createdBy).toBe((await adminActor(env)).userId!);
  });
});
