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

const idFrom = (location: string | null) => /\/incidents\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';
async function createOnForm(form: Record<string, string>): Promise<string> {
  const res = await admin.post('/incidents', form);
  expect(res.status, await res.clone().text()).toBe(303);
  return idFrom(res.headers.get('location'));
}

describe('incident screens', () => {
  test('an incident created on the form shows on its page and in the list, opened today', async () => {
    const title = unique('Lost laptop');
    const id = await createOnForm({ title, description: 'Left on a train' });
    const page = await (await admin.get(`/incidents/${id}`)).text();
    expect(page).toContain(title);
    expect(page).toContain(new Date().toISOString().slice(0, 10));
    expect(page).toContain('Not recorded as a personal-data breach.');
    expect(await (await admin.get(`/incidents?q=${encodeURIComponent(title)}`)).text()).toContain(`/incidents/${id}`);
  });

  test('closing without a resolution is refused inline, on the new form and on the edit form', async () => {
    const refused = await admin.post('/incidents', { title: 'Closed at once', status: 'closed' });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('Closed at once');
    expect(html).toMatch(/id="f-resolution-error"[^>]*>closing an incident needs a resolution/);

    const id = await createOnForm({ title: unique('Outage') });
    const edit = await admin.post(`/incidents/${id}`, { title: 'Outage', status: 'closed', resolution: '  ' });
    expect(edit.status).toBe(400);
    expect(await edit.text()).toMatch(/id="f-resolution-error"[^>]*>closing an incident needs a resolution/);

    const closed = await admin.post(`/incidents/${id}`, { title: 'Outage', status: 'closed', resolution: 'Failover fixed' });
    expect(closed.status, await closed.clone().text()).toBe(303);
    expect(await (await admin.get(`/incidents/${id}`)).text()).toMatch(/Status<\/strong>: <span>Open<\/span> → <span>Closed<\/span>/);
  });

  test('breach details and notifications are recorded on the incident page', async () => {
    const id = await createOnForm({ title: unique('Misdirected email') });
    const backwards = await admin.post(`/incidents/${id}/breach`, { categories: 'names', detectedAt: '2026-05-02', reportedAt: '2026-05-01' });
    expect(backwards.status).toBe(400);
    expect(await backwards.text()).toMatch(/id="f-reportedAt-error"[^>]*>must not be before detectedAt/);

    const saved = await admin.post(`/incidents/${id}/breach`, {
      categories: 'names\nemail addresses', approximateSubjects: '40', detectedAt: '2026-05-01', reportedAt: '2026-05-02',
    });
    expect(saved.status, await saved.clone().text()).toBe(303);
    const badDate = await admin.post(`/incidents/${id}/breach/notifications`, { recipient: 'authority', notifiedOn: '' });
    expect(badDate.status).toBe(400);
    expect(await badDate.text()).toMatch(/id="f-notifiedOn-error"/);
    const notified = await admin.post(`/incidents/${id}/breach/notifications`, { recipient: 'authority', notifiedOn: '2026-05-03', reference: 'ICO-77' });
    expect(notified.status, await notified.clone().text()).toBe(303);

    const page = await (await admin.get(`/incidents/${id}`)).text();
    expect(page).toContain('names, email addresses');
    expect(page).toContain('Supervisory authority');
    expect(page).toContain('ICO-77');
  });

  test('administrators manage incident classifications in Settings, and the incident form offers them', async () => {
    const name = unique('Social engineering');
    const added = await admin.post('/settings/incidents/classifications', { name, description: '' });
    expect(added.status, await added.clone().text()).toBe(303);
    expect(await (await admin.get('/settings/incidents')).text()).toContain(name);
    const duplicate = await admin.post('/settings/incidents/classifications', { name });
    expect(duplicate.status).toBe(409);
    expect(await (await admin.get('/incidents/new')).text()).toContain(name);
  });

  test('a reader without Settings rights cannot open the classification screen', async () => {
    const reader = await makeUser(env, { 'incidents:read': 'all' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/incidents' })).status).toBe(303);
    expect((await b.get('/incidents')).status).toBe(200);
    expect(await refusalOf(env, async () => b.get('/settings/incidents'))).toEqual(refusedWith(403, undefined, 'user right settings:read missing'));
  });
});
