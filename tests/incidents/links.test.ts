import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let adminToken: string;
beforeAll(async () => {
  env = await testEnv();
  adminToken = await makeToken(env, await adminActor(env), ['assets:create', 'assets:read']);
});

const asset = async () => {
  const res = await env.request('/api/v1/assets', bearer(adminToken, { method: 'POST', body: JSON.stringify({ name: unique('Payroll server') }) }));
  return ((await res.json()) as { data: { id: string } }).data.id;
};

describe('linking an incident to another module’s record (Bearer rule 4)', () => {
  test('needs that module’s scope (403), and a record the token cannot read answers 404 and is audited', async () => {
    const assetId = await asset();
    const user = await makeUser(env, { 'incidents:read': 'all', 'incidents:create': 'all', 'assets:read': 'own', 'apiTokens:create': 'own' });
    const actor = await user.actor();
    const withoutAssets = await makeToken(env, actor, ['incidents:create']);
    const withAssets = await makeToken(env, actor, ['incidents:create', 'assets:read']);
    const body = JSON.stringify({ title: 'Linked incident', assetId });

    expect(await refusalOf(env, async () => env.request('/api/v1/incidents', bearer(withoutAssets, { method: 'POST', body })))).toEqual(refusedWith(403, 'forbidden', 'token scope assets:read missing'));
    const hidden = await env.request('/api/v1/incidents', bearer(withAssets, { method: 'POST', body }));
    expect(hidden.status).toBe(404);
    const denied = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.module, 'security'), eq(auditLog.action, 'permission.denied'), eq(auditLog.actorUserId, user.id)));
    expect(denied.length).toBeGreaterThanOrEqual(2);

    const own = await env.request('/api/v1/assets', bearer(await makeToken(env, await adminActor(env), ['assets:create']), {
      method: 'POST', body: JSON.stringify({ name: unique('Their laptop'), ownerId: user.id }),
    }));
    const ownId = ((await own.json()) as { data: { id: string } }).data.id;
    const linked = await env.request('/api/v1/incidents', bearer(withAssets, { method: 'POST', body: JSON.stringify({ title: 'Own asset', assetId: ownId }) }));
    expect(linked.status, await linked.clone().text()).toBe(201);
  });
});
