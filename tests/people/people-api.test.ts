import { beforeAll, describe, expect, test } from 'bun:test';
import { desc, eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { setUserStatus } from '../../src/modules/people/service';
import type { Actor } from '../../src/platform/permissions/permissions';
import { systemActor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeToken, makeUser, unique } from '../helpers/factories';

/**
 * Finding people from the API: the ids records take as ownerId, and one answer for an owner that is not a valid
 * active one, whether that id is an account or not.
 */

let env: TestEnv;
let admin: Actor;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
});

const send = (method: string, path: string, secret: string, body?: unknown) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
type Person = { id: string; name: string; email: string };
const rowsOf = async <T>(res: Response) => {
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: { rows: T[]; total: number; page: number; pageSize: number } }).data;
};

describe('GET /api/v1/people', () => {
  test('an integration that may set owners finds a person by e-mail (any case) and gets the id records take', async () => {
    const owner = await makeUser(env, { 'risks:read': 'own' }, unique('Owner.Person'));
    const token = await makeToken(env, admin, ['risks:create']);
    const found = await rowsOf<Person>(await send('GET', `/api/v1/people?email=${encodeURIComponent(owner.email.toUpperCase())}`, token));
    expect(found).toEqual({ rows: [{ id: owner.id, name: owner.email.split('@')[0], email: owner.email }], total: 1, page: 1, pageSize: 25 });
    const risk = await send('POST', '/api/v1/risks', token, {
      title: unique('Owned risk'), classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 2, ownerId: found.rows[0].id,
    });
    expect(risk.status, await risk.clone().text()).toBe(201);
    const byName = await rowsOf<Person>(await send('GET', `/api/v1/people?q=${encodeURIComponent(owner.email.split('@')[0])}`, token));
    expect(byName.rows.map((p) => p.id)).toEqual([owner.id]);
    const groups = await rowsOf<{ id: string; name: string }>(await send('GET', '/api/v1/people/groups?q=Administrators', token));
    expect(groups.rows.map((g) => g.name)).toContain('Administrators');
  });

  test('deactivated accounts are not listed; a token that can set no owner is refused 403 with the reason', async () => {
    const gone = await makeUser(env, { 'risks:read': 'own' });
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), gone.id, 'deactivated'));
    const token = await makeToken(env, admin, ['controls:update']);
    expect((await rowsOf<Person>(await send('GET', `/api/v1/people?email=${encodeURIComponent(gone.email)}`, token))).rows).toEqual([]);
    const readOnly = await makeToken(env, admin, ['risks:read']);
    expect((await send('GET', '/api/v1/people', readOnly)).status).toBe(403);
    const [denial] = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'permission.denied')).orderBy(desc(auditLog.seq)).limit(1);
    expect((denial.details as { reason: string }).reason).toContain('settings:read');
  });
});

describe('an ownerId that is not a valid active owner', () => {
  test('answers the same whether the id is an account or not: at level all a 400, at level own a 403', async () => {
    const deactivated = await makeUser(env, { 'risks:read': 'own' });
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), deactivated.id, 'deactivated'));
    const other = await makeUser(env, { 'risks:read': 'own' });
    const nobody = crypto.randomUUID();
    const all = await makeToken(env, admin, ['controls:create']);
    const answers = [];
    for (const ownerId of [nobody, deactivated.id]) {
      const res = await send('POST', '/api/v1/controls', all, { name: unique('Control'), ownerId });
      answers.push({ status: res.status, body: await res.json() });
    }
    expect(answers[0]).toEqual({ status: 400, body: { error: 'ownerId: must be an active user', problems: [{ field: 'ownerId', message: 'must be an active user' }] } });
    expect(answers[1]).toEqual(answers[0]);

    const user = await makeUser(env, { 'controls:create': 'own', 'controls:read': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['controls:create']);
    const ownAnswers = [];
    for (const ownerId of [nobody, other.id, deactivated.id]) {
      const res = await send('POST', '/api/v1/controls', own, { name: unique('Control'), ownerId });
      ownAnswers.push({ status: res.status, body: await res.json() });
    }
    expect(ownAnswers[0]).toEqual({ status: 403, body: { error: 'forbidden' } });
    expect(ownAnswers[1]).toEqual(ownAnswers[0]);
    expect(ownAnswers[2]).toEqual(ownAnswers[0]);
    const reasons = (await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'permission.denied')).orderBy(desc(auditLog.seq)).limit(3))
      .map((e) => (e.details as { reason: string }).reason);
    expect(new Set(reasons)).toEqual(new Set(['controls:create is at level own: the record must be owned by you or one of your groups']));
  });

  test('the same holds for batch items', async () => {
    const deactivated = await makeUser(env, { 'risks:read': 'own' });
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), deactivated.id, 'deactivated'));
    const all = await makeToken(env, admin, ['controls:create']);
    const res = await send('POST', '/api/v1/controls/batch', all, { items: [{ name: unique('A'), ownerId: crypto.randomUUID() }, { name: unique('B'), ownerId: deactivated.id }] });
    const { data } = (await res.json()) as { data: { results: unknown[] } };
    expect(data.results[0]).toEqual({ error: 'ownerId: must be an active user', problems: [{ field: 'ownerId', message: 'must be an active user' }] });
    expect(data.results[1]).toEqual(data.results[0]);
  });
});
