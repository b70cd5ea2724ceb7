import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['projects:read', 'projects:create', 'projects:update', 'projects:delete']);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;
const create = async (body: Record<string, unknown>, secret = token) => {
  const res = await send('POST', '/api/v1/projects', body, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
};

describe('projects over REST', () => {
  test('a project created with only a title is planned, has no deadline and is owned by its creator', async () => {
    const id = await create({ title: 'ISO 27001 certification' });
    const project = await json<Record<string, unknown>>(await send('GET', `/api/v1/projects/${id}`));
    expect(project).toMatchObject({ title: 'ISO 27001 certification', description: '', status: 'planned', deadline: null });
    expect((project.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('status takes only planned, in_progress or completed', async () => {
    const id = await create({ title: 'Move to SSO', status: 'in_progress', deadline: '2026-12-31' });
    expect(await json<{ status: string; deadline: string }>(await send('GET', `/api/v1/projects/${id}`))).toMatchObject({ status: 'in_progress', deadline: '2026-12-31' });
    const refused = await send('POST', '/api/v1/projects', { title: 'Bad', status: 'done' });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toContain('status');
  });

  test('a deadline must be a real date written YYYY-MM-DD', async () => {
    for (const deadline of ['2026-02-30', '2026-13-01', '31/12/2026', '2026-1-5']) {
      const res = await send('POST', '/api/v1/projects', { title: 'Dated', deadline });
      expect(res.status, `${deadline}: ${await res.clone().text()}`).toBe(400);
      expect(await errorOf(res)).toContain('deadline');
    }
    expect((await send('POST', '/api/v1/projects', { title: 'Leap day', deadline: '2028-02-29' })).status).toBe(201);
  });

  test('a blank title is refused naming the field', async () => {
    const res = await send('POST', '/api/v1/projects', { title: '   ' });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('title');
  });

  test('the list filters by status, searches by title and sorts by deadline', async () => {
    const marker = `Roadmap-${Date.now()}`;
    await create({ title: `${marker} later`, status: 'completed', deadline: '2027-06-01' });
    await create({ title: `${marker} sooner`, status: 'completed', deadline: '2027-01-15' });
    await create({ title: `${marker} other`, status: 'planned' });
    const page = await json<{ rows: { title: string }[]; total: number }>(
      await send('GET', `/api/v1/projects?q=${encodeURIComponent(marker)}&status=completed&sort=deadline`),
    );
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => r.title)).toEqual([`${marker} sooner`, `${marker} later`]);
  });

  test('a user at level own sees and changes only the projects they or their groups own, and so does their token', async () => {
    const user = await makeUser(env, { 'projects:read': 'own', 'projects:create': 'own', 'projects:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['projects:read', 'projects:create', 'projects:update']);
    const mine = await create({ title: 'My project' }, own);
    const ours = await create({ title: 'Group project', ownerId: null, ownerGroupId: user.groupId });
    const theirs = await create({ title: 'Someone else’s project' });
    const page = await json<{ rows: { id: string }[] }>(await send('GET', '/api/v1/projects?pageSize=200', undefined, own));
    expect(page.rows.map((r) => r.id).sort()).toEqual([mine, ours].sort());
    expect(await refusalOf(env, async () => send('GET', `/api/v1/projects/${theirs}`, undefined, own))).toEqual(refusedWith(404, 'Project <id> not found', 'no projects:read on Project <id>'));
    expect(await refusalOf(env, async () => send('PATCH', `/api/v1/projects/${theirs}`, { status: 'completed' }, own))).toEqual(refusedWith(404, 'Project <id> not found', 'no projects:read on Project <id>'));
    expect((await send('PATCH', `/api/v1/projects/${ours}`, { status: 'completed' }, own)).status).toBe(200);
    expect(await refusalOf(env, async () => send('POST', '/api/v1/projects', { title: 'For the admin', ownerId: (await adminActor(env)).userId }, own)))
      .toEqual(refusedWith(403, 'forbidden', 'projects:create is at level own: the record must be owned by you or one of your groups'));
  });

  test('a token without the projects scope is refused with 403', async () => {
    const other = await makeToken(env, await adminActor(env), ['risks:read']);
    expect(await refusalOf(env, async () => send('GET', '/api/v1/projects', undefined, other))).toEqual(refusedWith(403, 'forbidden', 'token scope projects:read missing'));
  });

  test('changes and deletion are in the History', async () => {
    const id = await create({ title: 'Patch cadence' });
    const patched = await send('PATCH', `/api/v1/projects/${id}`, { status: 'in_progress', deadline: '2027-03-31' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/projects/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['update', 'create']);
    expect(history[0].changes).toEqual({
      status: { before: 'planned', after: 'in_progress' },
      deadline: { before: null, after: '2027-03-31' },
    });
    expect((await send('DELETE', `/api/v1/projects/${id}`)).status).toBe(204);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/projects/${id}`))).toEqual(refusedWith(404, 'Project <id> not found'));
  });
});
