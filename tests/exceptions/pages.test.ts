import { beforeAll, describe, expect, test } from 'bun:test';
import { riskParent } from '../../src/modules/exceptions/parents';
import { createException, getException } from '../../src/modules/exceptions/service';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let reviewer: TestUser;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  reviewer = await makeUser(env, { 'risks:read': 'all', 'risks:update': 'all', 'risks:review': 'all' });
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

const requestException = async (riskId: string, title: string, expiresAt: string, by: Actor = admin) =>
  (await env.ctx.db.transaction((tx) => createException(tx, riskParent, by, { parentId: riskId, title, description: 'Vendor end of life', expiresAt }))).id;

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

  test("the register's filter bar searches, filters by owner, sorts by a header with the sort in the address, and its Export follows them", async () => {
    const riskId = await makeRisk(env, admin);
    const marker = unique('Bar exception');
    const owner = await makeUser(env, { 'risks:read': 'all', 'risks:update': 'all' });
    await requestException(riskId, `${marker} b`, '2099-05-01');
    await requestException(riskId, `${marker} a`, '2099-06-01', await owner.actor());
    await requestException(riskId, `${marker} c`, '2099-04-01', await owner.actor());
    const page = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const bar = await (await page.get('/risks/exceptions')).text();
    expect(bar).toContain('class="filter-bar card"');
    expect(bar).toContain('<label for="filter-ownerId">Owner</label>');
    expect(bar).toContain('<label for="filter-q">Search titles</label>');

    const address = `/risks/exceptions?q=${encodeURIComponent(marker)}&ownerId=${owner.id}&sort=title`;
    const html = await (await page.get(address)).text();
    expect(html).toContain('2 exceptions match these filters');
    expect(html.indexOf(`${marker} a`)).toBeLessThan(html.indexOf(`${marker} c`));
    expect(html).not.toContain(`${marker} b`);
    // The Title header sorts the other way next, keeping the filters; Expires sorts by expiry.
    const qs = (o: Record<string, string>) => new URLSearchParams(o).toString();
    expect(html).toContain(`href="/risks/exceptions?${qs({ q: marker, ownerId: owner.id, sort: '-title' })}"`);
    const byExpiry = await (await page.get(`/risks/exceptions?q=${encodeURIComponent(marker)}&sort=-expiresAt`)).text();
    expect(byExpiry.indexOf(`${marker} a`)).toBeLessThan(byExpiry.indexOf(`${marker} b`));
    expect(byExpiry.indexOf(`${marker} b`)).toBeLessThan(byExpiry.indexOf(`${marker} c`));

    const exportHref = `/risks/exceptions/export.csv?${qs({ q: marker, ownerId: owner.id, sort: 'title' })}`;
    expect(html).toContain(`href="${exportHref}"`);
    const csv = await page.get(exportHref);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Risk,Exception,Status,Expires,Expired,Approver,Decided,Decision note,Owner');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual([`${marker} a`, `${marker} c`]);
    expect(lines[1]).toContain(',Requested,2099-06-01,No,');
  });

  test('a reviewer approves from the register; the approver is recorded', async () => {
    const id = await requestException(await makeRisk(env, admin), unique('To approve'), '2099-01-01', await reviewer.actor());
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
    expect(await refusalOf(env, async () => page.post(`/risks/exceptions/${id}/decision`, { decision: 'approved' }))).toEqual(refusedWith(403, undefined, 'user right risks:review missing'));
    expect((await getException(env.ctx.db, riskParent, admin, id)).status).toBe('requested');
  });

  test('segregation of duties: the requester sees no decision buttons on their own request; an administrator overrides explicitly with a note', async () => {
    const title = unique('Own request');
    const own = await requestException(await makeRisk(env, admin), title, '2099-01-01', await reviewer.actor());
    const page = await browser(reviewer.email, reviewer.password);
    const list = await (await page.get('/risks/exceptions?status=requested')).text();
    const row = list.slice(list.indexOf(title));
    expect(row.slice(0, row.indexOf('</tr>'))).toContain('You requested it: another reviewer decides.');
    expect(row.slice(0, row.indexOf('</tr>'))).not.toContain(`/risks/exceptions/${own}/decision`);
    expect((await page.post(`/risks/exceptions/${own}/decision`, { decision: 'approved', note: 'fine' })).status).toBe(403);
    expect((await getException(env.ctx.db, riskParent, admin, own)).status).toBe('requested');

    const adminTitle = unique('Admin request');
    const mine = await requestException(await makeRisk(env, admin), adminTitle, '2099-01-01');
    const adminPage = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const adminList = await (await adminPage.get('/risks/exceptions?status=requested')).text();
    const adminRow = adminList.slice(adminList.indexOf(adminTitle));
    expect(adminRow.slice(0, adminRow.indexOf('</tr>'))).toContain('Override: I requested it');
    expect((await adminPage.post(`/risks/exceptions/${mine}/decision`, { decision: 'approved', note: 'fine' })).status).toBe(403);
    const overridden = await adminPage.post(`/risks/exceptions/${mine}/decision`, { decision: 'approved', note: 'only approver on leave', override: 'on' });
    expect(overridden.status, await overridden.clone().text()).toBe(303);
    expect(await getException(env.ctx.db, riskParent, admin, mine)).toMatchObject({ status: 'approved', decisionNote: 'only approver on leave' });
  });
});
