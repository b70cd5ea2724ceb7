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

const idFrom = (location: string | null) => /\/(?:assets|business-units)\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

describe('asset screens', () => {
  test('an asset created on the form shows its business unit by path, and appears in the list', async () => {
    const unitName = unique('Plant');
    const unit = idFrom((await admin.post('/business-units', { name: unitName })).headers.get('location'));
    const name = unique('Badge system');
    const created = await admin.post('/assets', { name, description: 'Doors and turnstiles', businessUnitId: unit });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = idFrom(created.headers.get('location'));
    const page = await (await admin.get(`/assets/${id}`)).text();
    expect(page).toContain(name);
    expect(page).toContain(unitName);
    const list = await (await admin.get(`/assets?q=${encodeURIComponent(name)}`)).text();
    expect(list).toContain(`/assets/${id}`);
  });

  test('a blank name is refused inline and the typed description is kept', async () => {
    const res = await admin.post('/assets', { name: '   ', description: 'Kept description' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Kept description');
    expect(html).toMatch(/id="f-name-error"/);
  });

  test('an edit appears in the History on the page', async () => {
    const created = await admin.post('/assets', { name: unique('Mail server') });
    const id = idFrom(created.headers.get('location'));
    const edited = await admin.post(`/assets/${id}`, { name: 'Mail gateway' });
    expect(edited.status, await edited.clone().text()).toBe(303);
    const page = await (await admin.get(`/assets/${id}`)).text();
    expect(page).toMatch(/Name<\/strong>: <span>[^<]*Mail server[^<]*<\/span> → <span>Mail gateway<\/span>/);
  });

  test('a reader without assets:create sees no New button and cannot open the form', async () => {
    const reader = await makeUser(env, { 'assets:read': 'all' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/assets' })).status).toBe(303);
    const list = await (await b.get('/assets')).text();
    expect(list).toContain('Assets');
    expect(list).not.toContain('New asset');
    expect(await refusalOf(env, async () => b.get('/assets/new'))).toEqual(refusedWith(403, undefined, 'user right assets:create missing'));
  });
});
