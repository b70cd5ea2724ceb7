import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const idFrom = (location: string | null) => /\/projects\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

describe('project screens', () => {
  test('a project created on the form shows on its page and in the list, planned by default', async () => {
    const title = unique('SOC 2 readiness');
    const created = await admin.post('/projects', { title, deadline: '2027-05-31' });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = idFrom(created.headers.get('location'));
    const page = await (await admin.get(`/projects/${id}`)).text();
    expect(page).toContain(title);
    expect(page).toContain('2027-05-31');
    expect(page).toContain('Planned');
    expect(await (await admin.get(`/projects?q=${encodeURIComponent(title)}`)).text()).toContain(`/projects/${id}`);
  });

  test('an impossible deadline is refused inline and what was typed is kept', async () => {
    const res = await admin.post('/projects', { title: 'Kept title', deadline: '2026-02-30' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Kept title');
    expect(html).toMatch(/id="f-deadline-error"[^>]*>[^<]*date/);
  });

  test('editing records the change in the History shown on the page', async () => {
    const created = await admin.post('/projects', { title: unique('Vendor consolidation') });
    const id = idFrom(created.headers.get('location'));
    const edited = await admin.post(`/projects/${id}`, { title: 'Vendor consolidation', status: 'completed' });
    expect(edited.status, await edited.clone().text()).toBe(303);
    expect(await (await admin.get(`/projects/${id}`)).text()).toMatch(/Status<\/strong>: <span>Planned<\/span> → <span>Completed<\/span>/);
  });

  test('a reader at level own sees only their own projects in the list', async () => {
    const reader = await makeUser(env, { 'projects:read': 'own', 'projects:create': 'own' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/projects' })).status).toBe(303);
    const theirs = idFrom((await admin.post('/projects', { title: unique('Admin only') })).headers.get('location'));
    const list = await (await b.get('/projects?pageSize=200')).text();
    expect(list).not.toContain(theirs);
    expect(await refusalOf(env, async () => b.get(`/projects/${theirs}`))).toEqual(refusedWith(404, undefined, 'no projects:read on Project <id>'));
  });
});
