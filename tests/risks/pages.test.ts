import { beforeAll, describe, expect, test } from 'bun:test';
import type { RiskScaleView } from '../../src/modules/risks/schema';
import { setUserStatus } from '../../src/modules/people/service';
import { getRisk } from '../../src/modules/risks/service';
import { getRiskScale } from '../../src/modules/risks/settings-service';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import type { Level, Permission } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, classificationId, makeRisk, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

interface Browser {
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, fields: Record<string, string>): Promise<Response>;
}

/** A signed-in browser: the session cookie on every request, the CSRF token in every form it posts. */
async function signedIn(email: string, password: string): Promise<Browser> {
  const session = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
  const cookie = `${sessionCookieName(env.ctx.config)}=${session.secret}`;
  return {
    get: (path, headers = {}) => env.request(path, { headers: { cookie, ...headers } }),
    post: (path, fields) => env.request(path, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: session.csrfToken, ...fields }).toString(),
      redirect: 'manual',
    }),
  };
}

async function userBrowser(rights: Partial<Record<Permission, Level>>): Promise<Browser> {
  const user = await makeUser(env, rights);
  return signedIn(user.email, user.password);
}

const admin = () => signedIn(ADMIN_EMAIL, ADMIN_PASSWORD);

async function html(res: Response, status = 200): Promise<string> {
  const text = await res.text();
  expect(res.status, text.slice(0, 2000)).toBe(status);
  return text;
}

describe('risk screens', () => {
  test('signed out, the list redirects to sign-in and keeps the address to return to', async () => {
    const res = await env.request('/risks?status=open', { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/sign-in?next=${encodeURIComponent('/risks?status=open')}`);
  });

  test('the list filters by status, classification and title; htmx gets only the results', async () => {
    const actor = await adminActor(env);
    const marker = unique('Filterable');
    const compliance = await classificationId(env, 'Compliance');
    await makeRisk(env, actor, { title: `${marker} open`, classificationId: compliance });
    await makeRisk(env, actor, { title: `${marker} closed`, classificationId: compliance, status: 'closed' });
    await makeRisk(env, actor, { title: `${marker} other`, status: 'closed' });
    const browser = await admin();
    const page = await html(await browser.get(`/risks?q=${encodeURIComponent(marker)}&status=closed&classificationId=${compliance}`));
    expect(page).toContain('<!doctype html>');
    expect(page).toContain(`${marker} closed`);
    expect(page).not.toContain(`${marker} open`);
    expect(page).not.toContain(`${marker} other`);
    expect(page).toContain('hx-push-url="true"');
    const fragment = await html(await browser.get(`/risks?q=${encodeURIComponent(marker)}&sort=title`, { 'hx-request': 'true' }));
    expect(fragment.startsWith('<section id="results-risks"')).toBe(true);
    expect(fragment.indexOf(`${marker} closed`)).toBeLessThan(fragment.indexOf(`${marker} open`));
    expect(fragment.indexOf(`${marker} open`)).toBeLessThan(fragment.indexOf(`${marker} other`));
  });

  test('titles are escaped wherever they appear, in text and in attributes', async () => {
    const actor = await adminActor(env);
    const id = await makeRisk(env, actor, { title: `"><script>alert(1)</script> ${unique('x')}` });
    const browser = await admin();
    for (const path of ['/risks?sort=-createdAt', `/risks/${id}`, `/risks/${id}/edit`]) {
      const page = await html(await browser.get(path));
      expect(page, path).not.toContain('"><script>alert(1)</script>');
      expect(page, path).toContain('&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  test('a refused form comes back with each problem next to its field and the typed values kept', async () => {
    const browser = await admin();
    const res = await browser.post('/risks', {
      title: 'Kept title', description: 'Kept <b>description</b>', classificationId: await classificationId(env),
      inherentLikelihood: '2', inherentImpact: '2', residualLikelihood: '4', residualImpact: '1', reviewFrequencyMonths: '500', status: 'open',
    });
    const page = await html(res, 400);
    expect(page).toContain('value="Kept title"');
    expect(page).toContain('Kept &lt;b&gt;description&lt;/b&gt;');
    expect(page).toMatch(/id="f-reviewFrequencyMonths-error"[^>]*>expected integer to be less or equal to 120/);
    const service = await browser.post('/risks', {
      title: 'Kept title', classificationId: await classificationId(env), inherentLikelihood: '2', inherentImpact: '2',
      residualLikelihood: '4', residualImpact: '1', status: 'open',
    });
    const servicePage = await html(service, 400);
    expect(servicePage).toMatch(/id="f-residualLikelihood-error"[^>]*>must not be above the inherent likelihood/);
    expect(servicePage).toContain('<option value="4" selected');
  });

  test('create, edit and delete go through the services and leave History', async () => {
    const browser = await admin();
    const title = unique('Screen risk');
    const created = await browser.post('/risks', {
      title, classificationId: await classificationId(env), inherentLikelihood: '3', inherentImpact: '4', status: 'open',
      reviewFrequencyMonths: '12',
    });
    expect(created.status, await created.clone().text()).toBe(303);
    const location = created.headers.get('location') ?? '';
    const id = /^\/risks\/([0-9a-f-]{36})\?done=created$/.exec(location)?.[1] ?? '';
    expect(id, location).not.toBe('');
    const updated = await browser.post(`/risks/${id}`, {
      title: `${title} (revised)`, classificationId: await classificationId(env), inherentLikelihood: '3', inherentImpact: '5',
      residualLikelihood: '2', residualImpact: '2', status: 'open', reviewFrequencyMonths: '6',
    });
    expect(updated.status, await updated.clone().text()).toBe(303);
    const risk = await getRisk(env.ctx.db, await adminActor(env), id);
    expect(risk).toMatchObject({ title: `${title} (revised)`, inherentScore: 15, residualScore: 4, reviewFrequencyMonths: 6 });
    const detail = await html(await browser.get(updated.headers.get('location') ?? ''));
    expect(detail).toContain('Risk updated.');
    expect(detail).toMatch(/Inherent impact<\/strong>: <span>4 Major<\/span> → <span>5 Severe<\/span>/);
    // The record's Audit Log entries read the action in words.
    expect(detail.slice(detail.indexOf('id="record-audit"'))).toContain('<span>Changed</span>');
    const confirm = await html(await browser.get(`/risks/${id}/delete`));
    expect(confirm).toContain(`action="/risks/${id}/delete"`);
    const deleted = await browser.post(`/risks/${id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(await refusalOf(env, async () => browser.get(`/risks/${id}`))).toEqual(refusedWith(404, undefined));
  });

  test("a deactivated owner stays selected on the edit form instead of being silently dropped", async () => {
    const actor = await adminActor(env);
    const owner = await makeUser(env, { 'risks:read': 'own' });
    const id = await makeRisk(env, actor, { ownerId: owner.id });
    await env.ctx.db.transaction((tx) => setUserStatus(tx, actor, owner.id, 'deactivated'));
    const page = await html(await (await admin()).get(`/risks/${id}/edit`));
    expect(page).toMatch(new RegExp(`<option value="${owner.id}" selected>[^<]*\\(deactivated\\) &lt;`));
    const newForm = await html(await (await admin()).get('/risks/new'));
    expect(newForm).not.toContain(owner.id);
  });

  test('a reader sees no edit or delete and cannot post forms; a form without the CSRF token is refused', async () => {
    const actor = await adminActor(env);
    const id = await makeRisk(env, actor);
    const reader = await userBrowser({ 'risks:read': 'all' });
    const page = await html(await reader.get(`/risks/${id}`));
    expect(page).not.toContain(`/risks/${id}/edit`);
    expect(page).not.toContain(`/risks/${id}/delete`);
    expect(await refusalOf(env, async () => reader.get(`/risks/${id}/edit`))).toEqual(refusedWith(403, undefined, 'user right risks:update missing'));
    expect(await refusalOf(env, async () => reader.post(`/risks/${id}/delete`, {}))).toEqual(refusedWith(403, undefined, 'user right risks:delete missing'));
    const session = await signIn(env.ctx.db, ADMIN_EMAIL, ADMIN_PASSWORD, '', { sessionHours: 1 });
    const forged = await env.request(`/risks/${id}/delete`, {
      method: 'POST', redirect: 'manual',
      headers: { cookie: `${sessionCookieName(env.ctx.config)}=${session.secret}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(forged.status).toBe(403);
    expect((await getRisk(env.ctx.db, actor, id)).id).toBe(id);
  });
});

describe('risk settings screen', () => {
  test('an administrator adds and renames a classification; a duplicate is shown on the name field', async () => {
    const browser = await admin();
    const name = unique('Screen class');
    expect((await browser.post('/settings/risks/classifications', { name, description: '' })).status).toBe(303);
    const page = await html(await browser.get('/settings/risks'));
    expect(page).toContain(`value="${name}"`);
    const duplicate = await html(await browser.post('/settings/risks/classifications', { name: name.toLowerCase(), description: '' }), 409);
    expect(duplicate).toMatch(/id="f-name-error"[^>]*>A risk classification named/);
  });

  test('a classification in use shows its count instead of a delete button', async () => {
    const browser = await admin();
    const name = unique('Used class');
    await browser.post('/settings/risks/classifications', { name, description: '' });
    const id = await classificationId(env, name);
    expect(await html(await browser.get('/settings/risks'))).toContain(`/settings/risks/classifications/${id}/delete`);
    await makeRisk(env, await adminActor(env), { classificationId: id });
    const after = await html(await browser.get('/settings/risks'));
    expect(after).not.toContain(`/settings/risks/classifications/${id}/delete`);
    expect(after).toContain('In use by 1 risk');
    const refused = await html(await browser.post(`/settings/risks/classifications/${id}/delete`, {}), 409);
    expect(refused).toContain('is used by 1 risk and cannot be deleted');
  });

  test('the scale editor saves a changed score, keeps a refused scale as typed, and previews a new level', async () => {
    const browser = await admin();
    const actor = await adminActor(env);
    const original: RiskScaleView = await getRiskScale(env.ctx.db, actor);
    const fields = (scale: RiskScaleView, overrides: Record<string, string> = {}) => {
      const f: Record<string, string> = { intent: 'save' };
      scale.likelihood.forEach((l, i) => Object.assign(f, { [`likelihood.${i}.value`]: String(l.value), [`likelihood.${i}.name`]: l.name, [`likelihood.${i}.description`]: l.description }));
      scale.impact.forEach((l, i) => Object.assign(f, { [`impact.${i}.value`]: String(l.value), [`impact.${i}.name`]: l.name, [`impact.${i}.description`]: l.description }));
      scale.cells.forEach((c) => { f[`cell.${c.likelihood}.${c.impact}`] = String(c.score); });
      scale.bands.forEach((b, i) => Object.assign(f, { [`bands.${i}.name`]: b.name, [`bands.${i}.minScore`]: String(b.minScore), [`bands.${i}.maxScore`]: String(b.maxScore), [`bands.${i}.color`]: b.color }));
      return { ...f, ...overrides };
    };
    try {
      const saved = await browser.post('/settings/risks/scale', fields(original, { 'cell.1.1': '2' }));
      expect(saved.status, await saved.clone().text()).toBe(303);
      expect((await getRiskScale(env.ctx.db, actor)).cells.find((c) => c.likelihood === 1 && c.impact === 1)?.score).toBe(2);

      const refused = await html(await browser.post('/settings/risks/scale', fields(original, { 'bands.1.minScore': '3', 'likelihood.1.name': 'Rare' })), 400);
      expect(refused).toContain('The scale was not saved.');
      expect(refused).toMatch(/name="bands\.1\.minScore" value="3"[^>]*>\s*<span class="error" role="alert">overlaps band &quot;Low&quot;/);
      expect(refused).toContain('repeats name &quot;Rare&quot;');

      const preview = await html(await browser.post('/settings/risks/scale', fields(original, {
        intent: 'preview', 'likelihood.5.value': '6', 'likelihood.5.name': 'Certain',
      })));
      expect(preview).toContain('Not saved yet');
      expect(preview).toContain('name="cell.6.5" value=""');
      expect((await getRiskScale(env.ctx.db, actor)).likelihood).toHaveLength(original.likelihood.length);
    } finally {
      const restored = await browser.post('/settings/risks/scale', fields(original));
      expect(restored.status, await restored.clone().text()).toBe(303);
    }
  });

  test('people without settings:read cannot open it', async () => {
    const reader = await userBrowser({ 'risks:read': 'all' });
    expect(await refusalOf(env, async () => reader.get('/settings/risks'))).toEqual(refusedWith(403, undefined, 'user right settings:read missing'));
  });
});
