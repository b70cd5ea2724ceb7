import { beforeAll, describe, expect, test } from 'bun:test';
import { riskParent } from '../../src/modules/exceptions/parents';
import { createException, getException } from '../../src/modules/exceptions/service';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';

let env: TestEnv;
let admin: Actor;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
});

async function browser(email: string, password: string) {
  const session = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
  const cookie = `${sessionCookieName(env.ctx.config)}=${session.secret}`;
  return {
    get: (path: string) => env.request(path, { headers: { cookie } }),
    post: (path: string, fields: Record<string, string>) => env.request(path, {
      method: 'POST', redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: session.csrfToken, ...fields }).toString(),
    }),
  };
}

const requestException = async (riskId: string, title: string, expiresAt: string) =>
  (await env.ctx.db.transaction((tx) => createException(tx, riskParent, admin, { parentId: riskId, title, description: 'Vendor end of life', expiresAt }))).id;

describe('risk exceptions screens', () => {
  test('the register lists exceptions with their expiry, marking expired ones, and filters by expiry', async () => {
    const riskId = await makeRisk(env, admin);
    const marker = unique('Screen exception');
    await requestException(riskId, `${marker} old`, '2020-03-01');
    await requestException(riskId, `${marker} new`, '2099-03-01');
    const page = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const all = await (await page.get('/risks/exceptions?pageSize=200')).text();
    expect(all).toContain('2020-03-01');
    expect(all).toContain('Expired');
    const expired = await page.get('/risks/exceptions?expired=false');
    expect(expired.status).toBe(200);
    expect(await expired.text()).not.toContain(`${marker} old`);
  });

  test('a reviewer approves from the register; the approver is recorded', async () => {
    const id = await requestException(await makeRisk(env, admin), unique('To approve'), '2099-01-01');
    const page = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await page.post(`/risks/exceptions/${id}/decision`, { decision: 'approved', note: 'ok for a year' });
    expect(res.status, await res.clone().text()).toBe(303);
    expect(await getException(env.ctx.db, riskParent, admin, id)).toMatchObject({ status: 'approved', approverId: admin.userId!, decisionNote: 'ok for a year' });
  });

  test('without risks:review the decision is refused and there are no decision buttons', async () => {
    const id = await requestException(await makeRisk(env, admin), unique('Not yours to decide'), '2099-01-01');
    const user = await makeUser(env, { 'risks:read': 'all' });
    const page = await browser(user.email, user.password);
    const list = await page.get('/risks/exceptions');
    expect(list.status).toBe(200);
    expect(await list.text()).not.toContain('/decision');
    expect((await page.post(`/risks/exceptions/${id}/decision`, { decision: 'approved' })).status).toBe(403);
    expect((await getException(env.ctx.db, riskParent, admin, id)).status).toBe('requested');
  });
});
