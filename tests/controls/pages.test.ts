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

const idFrom = (location: string | null) => /\/controls\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

describe('control screens', () => {
  test('a control created on the form shows on its page and in the list', async () => {
    const name = unique('Firewall review');
    const created = await admin.post('/controls', { name, type: 'technical', testFrequencyMonths: '6' });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = idFrom(created.headers.get('location'));
    const page = await (await admin.get(`/controls/${id}`)).text();
    expect(page).toContain(name);
    expect(page).toContain('Tested every 6 months');
    const list = await (await admin.get(`/controls?q=${encodeURIComponent(name)}`)).text();
    expect(list).toContain(`/controls/${id}`);
  });

  test('a refused form shows the problem inline and keeps what was typed', async () => {
    const res = await admin.post('/controls', { name: 'Kept name', testFrequencyMonths: '500' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Kept name');
    expect(html).toMatch(/id="f-testFrequencyMonths-error"[^>]*>[^<]*120/);
  });

  test('the list answers htmx with the results fragment alone', async () => {
    const res = await admin.get('/controls?status=active', { 'hx-request': 'true', 'hx-target': 'results-controls' });
    const html = await res.text();
    expect(html.startsWith('<section id="results-controls"')).toBe(true);
    expect(html).not.toContain('<html');
  });

  test('editing records the change in the History shown on the page', async () => {
    const created = await admin.post('/controls', { name: unique('Badge access') });
    const id = idFrom(created.headers.get('location'));
    const edited = await admin.post(`/controls/${id}`, { name: 'Badge access (renamed)', status: 'retired', type: 'physical' });
    expect(edited.status, await edited.clone().text()).toBe(303);
    const page = await (await admin.get(`/controls/${id}`)).text();
    expect(page).toContain('Badge access (renamed)');
    expect(page).toMatch(/Status<\/strong>: <span>Active<\/span> → <span>Retired<\/span>/);
  });

  test('a test recorded on the page appears in the testing section', async () => {
    const created = await admin.post('/controls', { name: unique('Restore test'), testFrequencyMonths: '12' });
    const id = idFrom(created.headers.get('location'));
    const recorded = await admin.post(`/controls/${id}/tests`, { testedOn: '2026-03-01', result: 'pass', notes: 'all good' });
    expect(recorded.status, await recorded.clone().text()).toBe(303);
    const page = await (await admin.get(`/controls/${id}`)).text();
    expect(page).toContain('Next test due: 2027-03-01');
    // The result in words, as the form offers it.
    expect(page).toContain('<td data-label="Result"><span>Passed</span></td>');
    expect(page).toContain('<option value="partial">Partly passed</option>');
  });

  test('a reader without controls:create sees no New button and cannot open the form', async () => {
    const reader = await makeUser(env, { 'controls:read': 'all' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/controls' })).status).toBe(303);
    const list = await (await b.get('/controls')).text();
    expect(list).toContain('Controls');
    expect(list).not.toContain('New control');
    expect(await refusalOf(env, async () => b.get('/controls/new'))).toEqual(refusedWith(403, undefined, 'user right controls:create missing'));
  });
});
