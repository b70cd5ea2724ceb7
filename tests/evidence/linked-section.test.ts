import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { restClient } from './helpers';

/**
 * The Evidence section of a record page is a what-links-here section: the evidence linked to the record and to its parts
 * (a control's tests), with its count, sorted by title or validity in place, exported with kind, status and lock in
 * words; evidence the reader may not read is counted, never named.
 */

let env: TestEnv;
let api: ReturnType<typeof restClient>;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  api = restClient(env, await makeToken(env, await adminActor(env), ['evidence:read', 'evidence:create', 'evidence:update', 'controls:read', 'controls:create', 'controls:update', 'thirdParties:read', 'thirdParties:create']));
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const sectionOf = (html: string) => {
  const start = html.indexOf('<section id="linked-evidence"');
  expect(start, 'the Evidence section').toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
};

describe('evidence on a record page', () => {
  test('evidence of the control and of its tests, counted, sorted by validity and exported in words', async () => {
    const control = await api.created('/api/v1/controls', { name: unique('Backup control') });
    const tested = await api.send('POST', `/api/v1/controls/${control}/tests`, { testedOn: '2026-01-15', result: 'pass' });
    expect(tested.status, await tested.clone().text()).toBe(201);
    const testId = (await api.json<{ id: string }>(tested)).id;
    const late = await api.created('/api/v1/evidence', { title: unique('A restore log'), validUntil: '2031-01-01' });
    const vendor = await api.created('/api/v1/third-parties', { name: unique('Backup vendor') });
    const early = await api.created('/api/v1/evidence', { title: unique('B vendor report'), kind: 'vendor_report', thirdPartyId: vendor, validUntil: '2030-01-01' });
    await api.send('POST', `/api/v1/evidence/${late}/links`, { recordType: 'control', recordId: control });
    await api.send('POST', `/api/v1/evidence/${early}/links`, { recordType: 'controlTest', recordId: testId });

    const section = sectionOf(await (await admin.get(`/controls/${control}`)).text());
    expect(section).toContain('2 evidence');
    expect(section).toContain('Vendor report');
    expect(section).toContain(`hx-get="/linked/control/${control}/evidence?sort=detail"`);

    const byValidity = sectionOf(await (await admin.get(`/linked/control/${control}/evidence?sort=detail`, { 'HX-Request': 'true' })).text());
    expect(byValidity.indexOf('B vendor report')).toBeLessThan(byValidity.indexOf('A restore log'));

    const csv = await (await admin.get(`/linked/control/${control}/evidence/export.csv?sort=-detail`)).text();
    const lines = csv.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Evidence,Valid until,Kind,Status,Locked');
    expect(lines[1]).toMatch(/A restore log.*,2031-01-01,Evidence,Current,No$/);
    expect(lines[2]).toMatch(/B vendor report.*,2030-01-01,Vendor report,Current,No$/);
  });

  test('evidence the reader may not read is counted, not named', async () => {
    const reader = await makeUser(env, { 'controls:read': 'all', 'evidence:read': 'own' });
    const control = await api.created('/api/v1/controls', { name: unique('Access control') });
    const hidden = unique('Hidden evidence');
    const id = await api.created('/api/v1/evidence', { title: hidden });
    await api.send('POST', `/api/v1/evidence/${id}/links`, { recordType: 'control', recordId: control });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/' })).status).toBe(303);
    const section = sectionOf(await (await b.get(`/controls/${control}`)).text());
    expect(section).not.toContain(hidden);
    expect(section).toContain('1 more linked evidence you may not read.');
  });
});
