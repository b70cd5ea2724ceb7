import { beforeAll, describe, expect, test } from 'bun:test';
import { controlKind } from '../../src/modules/controls/service';
import { riskParent } from '../../src/modules/exceptions/parents';
import { createException, decideException, getException } from '../../src/modules/exceptions/service';
import { createTreatment, getTreatment } from '../../src/modules/risks/treatments-service';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';

/** A treatment and an exception are edited on pages of their own, each with its History; refusals keep the form. */

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
    post: (path: string, fields: Record<string, string | string[]>) => {
      const form = new URLSearchParams({ _csrf: session.csrfToken });
      for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
      return env.request(path, {
        method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(),
      });
    },
  };
}

const inTx = <T>(fn: (tx: Parameters<Parameters<TestEnv['ctx']['db']['transaction']>[0]>[0]) => Promise<T>) => env.ctx.db.transaction(fn);
const makeControl = async (name: string) => (await inTx((tx) => createRecord(tx, controlKind, admin, { name }))).id as string;
const treatmentForm = (over: Record<string, string | string[]> = {}) => ({
  type: 'mitigate', status: 'planned', title: 'Encrypt laptops', description: '', dueOn: '', residualLikelihood: '', residualImpact: '', ...over,
});

describe('a treatment on its own page', () => {
  test('is linked from its risk\'s treatments, edited with controls, and its History names the fields and controls', async () => {
    const riskId = await makeRisk(env, admin);
    const control = unique('Full-disk encryption');
    const controlId = await makeControl(control);
    const { id } = await inTx((tx) => createTreatment(tx, admin, riskId, { type: 'mitigate', title: 'Encrypt laptops', description: '', controlIds: [] }));
    const page = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(await (await page.get(`/risks/${riskId}/treatments`)).text()).toContain(`href="/risks/${riskId}/treatments/${id}"`);

    const res = await page.post(`/risks/${riskId}/treatments/${id}`, treatmentForm({ title: 'Encrypt every laptop', dueOn: '2027-03-01', controlsShown: '1', controlIds: [controlId] }));
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe(`/risks/${riskId}/treatments/${id}?done=updated`);
    expect(await getTreatment(env.ctx.db, admin, riskId, id)).toMatchObject({ title: 'Encrypt every laptop', dueOn: '2027-03-01', controls: [{ id: controlId, name: control }] });

    const html = await (await page.get(`/risks/${riskId}/treatments/${id}?done=updated`)).text();
    expect(html).toContain('Treatment updated.');
    const history = html.slice(html.indexOf('id="treatment-history"'));
    expect(history).toContain('Title');
    expect(history).toContain('Encrypt laptops');
    expect(history).toContain('Encrypt every laptop');
    // The control by its name, linked to its page; its id only in the link's address.
    expect(history).toContain(`<a href="/controls/${controlId}">${control}</a>`);
    expect(history.replaceAll(`href="/controls/${controlId}"`, '')).not.toContain(controlId);
  });

  test('an edit without the controls picker leaves the links; a refused edit answers 400 inside the app with what was typed', async () => {
    const riskId = await makeRisk(env, admin);
    const controlId = await makeControl(unique('Backups'));
    const { id } = await inTx((tx) => createTreatment(tx, admin, riskId, { type: 'mitigate', title: 'Back up', description: '', controlIds: [controlId] }));
    const page = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const kept = await page.post(`/risks/${riskId}/treatments/${id}`, treatmentForm({ title: 'Back up nightly' }));
    expect(kept.status).toBe(303);
    expect((await getTreatment(env.ctx.db, admin, riskId, id)).controls.map((c) => c.id)).toEqual([controlId]);

    const refused = await page.post(`/risks/${riskId}/treatments/${id}`, treatmentForm({ type: 'accept', title: 'Typed but refused', controlsShown: '1', controlIds: [controlId] }));
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('<nav'); // the app's shell
    expect(html).toContain('only a mitigate treatment links controls');
    expect(html).toContain('value="Typed but refused"');
    expect((await getTreatment(env.ctx.db, admin, riskId, id)).title).toBe('Back up nightly');
  });

  test('a reader without risks:update sees the page without the form; its edit is refused for want of the right', async () => {
    const riskId = await makeRisk(env, admin);
    const { id } = await inTx((tx) => createTreatment(tx, admin, riskId, { type: 'accept', title: 'Live with it', description: '', controlIds: [] }));
    const reader = await makeUser(env, { 'risks:read': 'all' });
    const page = await browser(reader.email, reader.password);
    const html = await (await page.get(`/risks/${riskId}/treatments/${id}`)).text();
    expect(html).toContain('Live with it');
    expect(html).not.toContain('id="edit-treatment"');
    const res = await page.post(`/risks/${riskId}/treatments/${id}`, treatmentForm({ type: 'accept' }));
    expect(res.status).toBe(403);
    expect((await getTreatment(env.ctx.db, admin, riskId, id)).title).toBe('Live with it');
  });

  test('an unknown treatment is a 404 inside the app', async () => {
    const riskId = await makeRisk(env, admin);
    const res = await (await browser(ADMIN_EMAIL, ADMIN_PASSWORD)).get(`/risks/${riskId}/treatments/${crypto.randomUUID()}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('<nav');
  });
});

describe('an exception on its own page', () => {
  const request = async (riskId: string, title: string) =>
    (await inTx((tx) => createException(tx, riskParent, admin, { parentId: riskId, title, description: 'Vendor end of life', expiresAt: '2099-01-01' }))).id;

  test('is linked from the register and the risk, edited while requested, with its History', async () => {
    const riskId = await makeRisk(env, admin);
    const title = unique('Old firewall');
    const id = await request(riskId, title);
    const page = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(await (await page.get('/risks/exceptions?pageSize=200')).text()).toContain(`href="/risks/exceptions/${id}"`);
    expect(await (await page.get(`/risks/${riskId}/treatments`)).text()).toContain(`href="/risks/exceptions/${id}"`);

    const res = await page.post(`/risks/exceptions/${id}`, { exceptionTitle: `${title} (extended)`, exceptionDescription: 'Vendor end of life', expiresAt: '2099-06-30' });
    expect(res.status, await res.clone().text()).toBe(303);
    expect(await getException(env.ctx.db, riskParent, admin, id)).toMatchObject({ title: `${title} (extended)`, expiresAt: '2099-06-30' });
    const html = await (await page.get(`/risks/exceptions/${id}?done=updated`)).text();
    expect(html).toContain('Exception updated.');
    const history = html.slice(html.indexOf('id="exception-history"'));
    expect(history).toContain('Expires');
    expect(history).toContain('2099-06-30');
  });

  test('a refused edit keeps the form; a decided exception is not edited and says why, inside the app', async () => {
    const riskId = await makeRisk(env, admin);
    const id = await request(riskId, unique('Legacy VPN'));
    const page = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const refused = await page.post(`/risks/exceptions/${id}`, { exceptionTitle: 'Kept title', exceptionDescription: 'Kept text', expiresAt: '2099-02-31' });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('<nav');
    expect(html).toContain('value="Kept title"');
    expect(html).toContain('Kept text');

    const reviewer = await makeUser(env, { 'risks:read': 'all', 'risks:update': 'all', 'risks:review': 'all' });
    const reviewerActor = await reviewer.actor();
    await inTx(async (tx) => decideException(tx, riskParent, reviewerActor, id, { decision: 'approved', note: 'one year' }));
    const decided = await (await page.get(`/risks/exceptions/${id}`)).text();
    expect(decided).not.toContain('id="edit-exception"');
    expect(decided).toContain('A decided exception is not changed');
    const conflict = await page.post(`/risks/exceptions/${id}`, { exceptionTitle: 'Too late', exceptionDescription: 'x', expiresAt: '2099-01-01' });
    expect(conflict.status).toBe(409);
    expect(await conflict.text()).toContain('a decided exception is not changed');
  });

  test('a reviewer decides on the page and comes back to it', async () => {
    const riskId = await makeRisk(env, admin);
    const reviewer = await makeUser(env, { 'risks:read': 'all', 'risks:update': 'all', 'risks:review': 'all' });
    const id = await request(riskId, unique('Unpatched printer'));
    const page = await browser(reviewer.email, reviewer.password);
    const res = await page.post(`/risks/exceptions/${id}/decision`, { decision: 'rejected', note: 'patch it', back: 'record' });
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe(`/risks/exceptions/${id}?done=rejected`);
    expect((await getException(env.ctx.db, riskParent, admin, id)).status).toBe('rejected');
  });
});
