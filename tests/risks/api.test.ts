import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeRisk, makeToken, makeUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

describe('risks over REST', () => {
  test('a risk created with a token reads back with its computed score and band', async () => {
    const admin = await adminActor(env);
    const token = await makeToken(env, admin, ['risks:read', 'risks:create']);
    const body = JSON.stringify({ title: 'Payroll fraud', classificationId: await classificationId(env), inherentLikelihood: 'likely', inherentImpact: 5 });
    const created = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body }));
    expect(created.status, await created.clone().text()).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    const read = await env.request(`/api/v1/risks/${data.id}`, bearer(token));
    const risk = ((await read.json()) as { data: Record<string, unknown> }).data;
    expect(risk.inherentScore).toBe(20);
    expect(risk.inherentBand).toEqual({ name: 'Critical', color: '#c62828' });
    expect(risk.inherentLikelihood).toEqual({ value: 4, name: 'Likely' });
  });

  test('a user at level own lists only the risks they or their groups own', async () => {
    const admin = await adminActor(env);
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:create': 'own', 'apiTokens:create': 'own' });
    const actor = await user.actor();
    const mine = await makeRisk(env, actor);
    const theirs = await makeRisk(env, admin);
    const token = await makeToken(env, actor, ['risks:read']);
    const res = await env.request('/api/v1/risks?pageSize=200', bearer(token));
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { rows: { id: string }[]; total: number } };
    expect(data.rows.map((r) => r.id)).toEqual([mine]);
    expect(data.total).toBe(1);
    expect(await refusalOf(env, async () => env.request(`/api/v1/risks/${theirs}`, bearer(token)))).toEqual(refusedWith(404, 'Risk <id> not found', 'no risks:read on Risk <id>'));
  });

  test('malformed paging is a 400 naming the parameter, never clamped', async () => {
    const token = await makeToken(env, await adminActor(env), ['risks:read']);
    for (const query of ['pageSize=201', 'page=0', 'page=abc', 'pageSize=-1']) {
      const res = await env.request(`/api/v1/risks?${query}`, bearer(token));
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: string };
      expect(body.error).toContain(query.split('=')[0]);
    }
  });
});

describe('deleting a risk', () => {
  test('a risk a third party links to cannot be deleted; the 409 names what still references it', async () => {
    const admin = await adminActor(env);
    const token = await makeToken(env, admin, ['risks:read', 'risks:delete', 'thirdParties:read', 'thirdParties:create', 'thirdParties:update']);
    const riskId = await makeRisk(env, admin);
    const vendor = await env.request('/api/v1/third-parties', bearer(token, { method: 'POST', body: JSON.stringify({ name: 'Linked vendor' }) }));
    const { id: vendorId } = ((await vendor.json()) as { data: { id: string } }).data;
    const linked = await env.request(`/api/v1/third-parties/${vendorId}/risks`, bearer(token, { method: 'POST', body: JSON.stringify({ riskId }) }));
    expect(linked.status, await linked.clone().text()).toBeLessThan(300);

    const refused = await env.request(`/api/v1/risks/${riskId}`, bearer(token, { method: 'DELETE' }));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain('1 third party linking it');

    await env.request(`/api/v1/third-parties/${vendorId}/risks/${riskId}`, bearer(token, { method: 'DELETE' }));
    expect((await env.request(`/api/v1/risks/${riskId}`, bearer(token, { method: 'DELETE' }))).status).toBe(204);
  });
});
