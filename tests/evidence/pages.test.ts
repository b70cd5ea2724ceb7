import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeToken, makeUser } from '../helpers/factories';
import { restClient, sha256 } from './helpers';

let env: TestEnv;
let admin: Browser;
let api: ReturnType<typeof restClient>;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  api = restClient(env, await makeToken(env, await adminActor(env), ['evidence:read', 'evidence:create', 'evidence:update', 'controls:read', 'controls:create']));
});

/** A request with the admin's session cookie and nothing else (no form body, no CSRF field). */
const raw = (path: string, init: RequestInit & { headers?: Record<string, string> }) =>
  env.request(path, { ...init, redirect: 'manual', headers: { cookie: admin.cookie ?? '', ...init.headers } });
const idFrom = (location: string | null) => /\/evidence\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';
const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

describe('evidence screens', () => {
  test('evidence created on the form shows its status, and the list filters by status', async () => {
    const title = `Pen test report ${crypto.randomUUID().slice(0, 6)}`;
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const res = await admin.post('/evidence', { title, validUntil: soon });
    expect(res.status, await res.clone().text()).toBe(303);
    const id = idFrom(res.headers.get('location'));
    const page = await (await admin.get(`/evidence/${id}`)).text();
    expect(page).toContain(title);
    expect(page).toContain('Files');
    expect(page).toContain('Proves');
    expect(page).toContain('Lock evidence');
    const list = await (await admin.get('/evidence')).text();
    expect(list).toContain('href="/evidence/verify"');
    expect(list).toContain('href="/evidence/package"');
    const expiring = await (await admin.get(`/evidence?status=expiring&q=${encodeURIComponent(title)}`)).text();
    expect(expiring).toContain(title);
    const expired = await (await admin.get(`/evidence?status=expired&q=${encodeURIComponent(title)}`)).text();
    expect(expired).toContain('No evidence match these filters.');
    const reports = await (await admin.get(`/evidence?kind=vendor_report&q=${encodeURIComponent(title)}`)).text();
    expect(reports).toContain('No evidence match these filters.');
    const unlocked = await (await admin.get(`/evidence?kind=evidence&locked=false&q=${encodeURIComponent(title)}`)).text();
    expect(unlocked).toContain(`>${title}</a>`);
    expect(unlocked).toContain('<option value="false" selected>Unlocked</option>');
  });

  test('a record is linked from the evidence page, and the control page lists the evidence', async () => {
    const name = `Log review ${crypto.randomUUID().slice(0, 6)}`;
    const control = await api.created('/api/v1/controls', { name });
    const id = await api.created('/api/v1/evidence', { title: 'SIEM weekly review' });
    const choices = await (await admin.get(`/evidence/${id}/link-choices?recordType=control&q=${encodeURIComponent(name.slice(-6))}`)).text();
    expect(choices).toContain(control);
    const none = await (await admin.get(`/evidence/${id}/link-choices?recordType=control&q=no-such-title-anywhere`)).text();
    expect(none).toContain('No control you may read has &quot;no-such-title-anywhere&quot; in its title.');
    const linked = await admin.post(`/evidence/${id}/links`, { recordType: 'control', recordId: control });
    expect(linked.status, await linked.clone().text()).toBe(303);
    expect(await (await admin.get(`/evidence/${id}`)).text()).toContain(`/controls/${control}`);
    const controlPage = await (await admin.get(`/controls/${control}`)).text();
    expect(controlPage).toContain('<h2 id="linked-evidence-heading">Evidence</h2>');
    expect(controlPage).toContain('SIEM weekly review');
    const unlinked = await admin.post(`/evidence/${id}/links/remove`, { recordType: 'control', recordId: control });
    expect(unlinked.status).toBe(303);
    expect(await (await admin.get(`/controls/${control}`)).text()).not.toContain('SIEM weekly review');
  });

  test('a risk page and a requirement page list the evidence linked to them, to readers of evidence only', async () => {
    const token = await makeToken(env, await adminActor(env), ['evidence:read', 'evidence:create', 'evidence:update', 'risks:read', 'compliance:read', 'compliance:create']);
    const client = restClient(env, token);
    const risk = await makeRisk(env, await adminActor(env));
    const pkg = await client.created('/api/v1/compliance/packages', { name: `Pkg ${crypto.randomUUID().slice(0, 6)}`, items: [{ code: 'C1', name: 'Keep logs' }] });
    const [analysis] = (await client.json<{ rows: { id: string }[] }>(await client.send('GET', `/api/v1/compliance/analyses?packageId=${pkg}`))).rows;
    const id = await client.created('/api/v1/evidence', { title: 'Log retention screenshot' });
    await client.send('POST', `/api/v1/evidence/${id}/links`, { recordType: 'risk', recordId: risk });
    await client.send('POST', `/api/v1/evidence/${id}/links`, { recordType: 'requirement', recordId: analysis.id });
    for (const path of [`/risks/${risk}`, `/compliance/analyses/${analysis.id}`]) {
      const page = await (await admin.get(path)).text();
      expect(page, path).toContain('Log retention screenshot');
    }
    const riskReader = await makeUser(env, { 'risks:read': 'all' });
    const page = await (await (await signedInBrowser(env, riskReader.email, riskReader.password)).get(`/risks/${risk}`)).text();
    expect(page).not.toContain('Log retention screenshot');
    expect(page).not.toContain('<h2 id="linked-evidence-heading">Evidence</h2>');
  });

  test('the upload route takes the file as the body with the CSRF header, answering JSON; download carries the SHA-256', async () => {
    const id = await api.created('/api/v1/evidence', { title: 'Screen upload' });
    const page = await (await admin.get(`/evidence/${id}`)).text();
    const csrf = csrfOf(page);
    const refused = await raw(`/evidence/${id}/files?name=a.txt`, { method: 'POST', body: 'hello' });
    expect(refused.status).toBe(403);
    const res = await raw(`/evidence/${id}/files?name=${encodeURIComponent('notes é.txt')}`, { method: 'POST', body: 'hello', headers: { 'x-csrf-token': csrf } });
    expect(res.status, await res.clone().text()).toBe(201);
    const file = ((await res.json()) as { data: { id: string } }).data;
    const bad = await raw(`/evidence/${id}/files?name=a%2Fb.txt`, { method: 'POST', body: 'hello', headers: { 'x-csrf-token': csrf } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'name: must not contain path separators (/ or \\)' });
    const download = await admin.get(`/evidence/${id}/files/${file.id}`);
    expect(download.headers.get('x-content-sha256')).toBe(sha256('hello'));
    expect(await (await admin.get(`/evidence/${id}`)).text()).toContain(sha256('hello'));
    // The History names the file by its name, linked to its download, never by its id.
    const history = (await (await admin.get(`/evidence/${id}`)).text()).split('id="record-history"')[1] ?? '';
    expect(history).toContain(`<strong>File</strong>: <span>—</span> → <span><a href="/evidence/${id}/files/${file.id}">notes é.txt</a></span>`);
    expect(history).not.toContain(`>${file.id}<`);
  });

  test('lock and unlock buttons: a locked record shows no upload or link forms', async () => {
    const id = await api.created('/api/v1/evidence', { title: 'To lock' });
    expect((await admin.post(`/evidence/${id}/lock`, {})).status).toBe(303);
    const locked = await (await admin.get(`/evidence/${id}`)).text();
    expect(locked).toContain('Unlock evidence');
    expect(locked).not.toContain('evidence-upload');
    expect(locked).not.toContain('Link record');
    expect(locked).not.toContain(`href="/evidence/${id}/edit"`);
    const edit = await admin.post(`/evidence/${id}`, { title: 'Changed' });
    expect(edit.status).toBe(409);
    expect(await edit.text()).toContain('is locked');
    expect((await admin.post(`/evidence/${id}/unlock`, {})).status).toBe(303);
    expect(await (await admin.get(`/evidence/${id}`)).text()).toContain('Lock evidence');
  });

  test('Verify files runs from its screen and shows the result', async () => {
    const page = await (await admin.get('/evidence/verify')).text();
    expect(page).toContain('Verify files');
    const started = await admin.post('/evidence/verify', {});
    expect([303, 409]).toContain(started.status);
    let shown = '';
    for (let i = 0; i < 100 && !shown.includes('Checked'); i += 1) {
      await Bun.sleep(50);
      shown = await (await admin.get('/evidence/verify')).text();
    }
    expect(shown).toMatch(/Checked \d+ files/);
  });

  test('the package screen offers every way to choose, and downloads a zip', async () => {
    const id = await api.created('/api/v1/evidence', { title: 'Packaged on screen' });
    await api.upload(id, 'x.txt', 'x');
    const page = await (await admin.get('/evidence/package')).text();
    for (const field of ['packageId', 'analysisId', 'controlId', 'evidenceId', 'from', 'to']) expect(page).toContain(`name="${field}"`);
    const zip = await admin.get(`/evidence/package.zip?evidenceId=${id}&packageId=&from=&to=`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const refused = await admin.get('/evidence/package.zip?packageId=');
    expect(refused.status).toBe(400);
  });

  test('the Evidence entry shows in the navigation only to those who may read evidence', async () => {
    const reader = await makeUser(env, { 'evidence:read': 'own' });
    const other = await makeUser(env, { 'risks:read': 'own' });
    const readerPage = await (await (await signedInBrowser(env, reader.email, reader.password)).get('/evidence')).text();
    expect(readerPage).toContain('href="/evidence"');
    const otherPage = await (await (await signedInBrowser(env, other.email, other.password)).get('/risks')).text();
    expect(otherPage).not.toContain('href="/evidence"');
  });
});
