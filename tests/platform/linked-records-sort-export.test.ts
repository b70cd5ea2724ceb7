import { beforeAll, describe, expect, test } from 'bun:test';
import { assetKind } from '../../src/modules/assets/service';
import { businessUnitKind } from '../../src/modules/businessUnits/service';
import { controlKind } from '../../src/modules/controls/service';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { createTreatment } from '../../src/modules/risks/treatments-service';
import { createRecord, type OwnedTable, type RecordKind } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

/**
 * Every "what links here" section of a record page: the count of linked records the reader may read, headers that sort
 * it in place (htmx swaps the section alone; the section's own address holds page and sort), paging with the total,
 * and an Export CSV of every linked record the reader may read, by name, in the section's order.
 */

let env: TestEnv;
let admin: Actor;
let adminBrowser: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  adminBrowser = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const make = <T extends OwnedTable, I extends Record<string, unknown>>(kind: RecordKind<T, I>, input: I, actor: Actor = admin) =>
  env.ctx.db.transaction(async (tx) => (await createRecord(tx, kind, actor, input)).id as string);

const text = async (b: Browser, path: string, headers: Record<string, string> = {}) => {
  const res = await b.get(path, headers);
  expect(res.status, path).toBe(200);
  return res.text();
};

const sectionOf = (html: string, id: string) => {
  const start = html.indexOf(`<section id="${id}"`);
  expect(start, `section ${id}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
};

const rowsOf = (csv: string) => csv.replace(/^\uFEFF/, '').trim().split('\r\n');

describe('a long what-links-here section', () => {
  let asset: string;
  let prefix: string;
  beforeAll(async () => {
    prefix = unique('Rack risk');
    asset = await make(assetKind, { name: unique('Server room') });
    for (let i = 1; i <= 27; i++) await makeRisk(env, admin, { title: `${prefix} ${String(i).padStart(2, '0')}`, assetId: asset });
  });

  test('shows its total and headers that sort it in place, without changing the record page’s address', async () => {
    const section = sectionOf(await text(adminBrowser, `/assets/${asset}`), 'linked-risks');
    expect(section).toContain('27 risks');
    expect(section).toContain('aria-sort="ascending"');
    const descending = `/linked/asset/${asset}/risks?sort=-title`;
    expect(section).toContain(`hx-get="${descending}" hx-target="#linked-risks" hx-select="#linked-risks" hx-swap="outerHTML"`);
    expect(section).not.toContain('hx-push-url');
  });

  test('sorted the other way, the last name comes first and the pager keeps the sort', async () => {
    const html = await text(adminBrowser, `/linked/asset/${asset}/risks?sort=-title`, { 'HX-Request': 'true' });
    const section = sectionOf(html, 'linked-risks');
    expect(section.indexOf(`${prefix} 27`)).toBeLessThan(section.indexOf(`${prefix} 26`));
    expect(section).not.toContain(`${prefix} 02<`);
    expect(section).toContain('aria-sort="descending"');
    expect(section).toContain('1–25 of 27');
    expect(section).toContain(`hx-get="/linked/asset/${asset}/risks?page=2&sort=-title"`);
    const second = sectionOf(await text(adminBrowser, `/linked/asset/${asset}/risks?page=2&sort=-title`, { 'HX-Request': 'true' }), 'linked-risks');
    expect(second).toContain(`${prefix} 01`);
    expect(second).toContain('26–27 of 27');
  });

  test('a sort the section does not offer reads as by name', async () => {
    const section = sectionOf(await text(adminBrowser, `/linked/asset/${asset}/risks?sort=-detail`, { 'HX-Request': 'true' }), 'linked-risks');
    expect(section.indexOf(`${prefix} 01`)).toBeLessThan(section.indexOf(`${prefix} 02`));
  });

  test('its Export CSV holds every linked record by name, in the order chosen', async () => {
    const section = sectionOf(await text(adminBrowser, `/linked/asset/${asset}/risks?sort=-title`, { 'HX-Request': 'true' }), 'linked-risks');
    expect(section).toContain(`href="/linked/asset/${asset}/risks/export.csv?sort=-title" download=""`);
    const res = await adminBrowser.get(`/linked/asset/${asset}/risks/export.csv?sort=-title`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const [header, ...lines] = rowsOf(await res.text());
    expect(header).toBe('Risk');
    expect(lines).toHaveLength(27);
    expect(lines[0]).toBe(`${prefix} 27`);
    expect(lines[26]).toBe(`${prefix} 01`);
  });

  test('the CSV never names a linked record the reader may not read, and needs a readable host record', async () => {
    const reader = await makeUser(env, { 'assets:read': 'all', 'risks:read': 'own' });
    const own = `${prefix} own`;
    await makeRisk(env, admin, { title: own, assetId: asset, ownerId: reader.id });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/' })).status).toBe(303);
    const lines = rowsOf(await text(b, `/linked/asset/${asset}/risks/export.csv`));
    expect(lines).toEqual(['Risk', own]);

    const stranger = await makeUser(env, { 'assets:read': 'own', 'risks:read': 'all' });
    const s = browser(env);
    expect((await s.post('/sign-in', { email: stranger.email, password: stranger.password, next: '/' })).status).toBe(303);
    expect(await refusalOf(env, async () => s.get(`/linked/asset/${asset}/risks/export.csv`)))
      .toEqual(refusedWith(404, undefined, 'link to Asset <id>: not readable (assets:read)'));
  });
});

describe('a section with a detail column', () => {
  test('sorts by the detail too and exports it under its header', async () => {
    const control = await make(controlKind, { name: unique('Backup checks') });
    const early = await makeRisk(env, admin, { title: unique('Zeta data loss') });
    const late = await makeRisk(env, admin, { title: unique('Alpha outage') });
    await env.ctx.db.transaction((tx) => createTreatment(tx, admin, early, { type: 'mitigate', title: 'A daily backups', controlIds: [control] }));
    await env.ctx.db.transaction((tx) => createTreatment(tx, admin, late, { type: 'mitigate', title: 'B restore tests', controlIds: [control] }));
    const byName = sectionOf(await text(adminBrowser, `/controls/${control}`), 'linked-risk-treatments');
    expect(byName).toContain(`hx-get="/linked/control/${control}/risk-treatments?sort=detail"`);
    const byDetail = sectionOf(await text(adminBrowser, `/linked/control/${control}/risk-treatments?sort=-detail`, { 'HX-Request': 'true' }), 'linked-risk-treatments');
    expect(byDetail.indexOf('B restore tests')).toBeLessThan(byDetail.indexOf('A daily backups'));
    const lines = rowsOf(await text(adminBrowser, `/linked/control/${control}/risk-treatments/export.csv?sort=detail`));
    expect(lines[0]).toBe('Risk,Treatments');
    expect(lines.slice(1)).toEqual([expect.stringContaining('A daily backups'), expect.stringContaining('B restore tests')]);
  });
});

describe('sections that were lists of their own are what-links-here sections now', () => {
  test('a business unit lists its assets with the total, sorting and Export', async () => {
    const unit = await make(businessUnitKind, { name: unique('Logistics') });
    const names = [unique('Forklift tracker'), unique('Dock scanner')];
    for (const name of names) await make(assetKind, { name, businessUnitId: unit });
    const section = sectionOf(await text(adminBrowser, `/business-units/${unit}`), 'linked-assets');
    expect(section).toContain('2 assets');
    expect(section).toContain(`href="/linked/businessUnit/${unit}/assets/export.csv"`);
    const lines = rowsOf(await text(adminBrowser, `/linked/businessUnit/${unit}/assets/export.csv?sort=-title`));
    expect(lines).toEqual(['Asset', ...[...names].sort().reverse()]);
  });

  test('a control lists the processing activities naming it, role and status in words', async () => {
    const control = await make(controlKind, { name: unique('Encryption at rest') });
    const name = unique('Payroll');
    await make(processingActivityKind, { name, legalBasis: 'contract', role: 'processor', status: 'active', controlIds: [control] });
    const section = sectionOf(await text(adminBrowser, `/controls/${control}`), 'linked-processing-activities');
    expect(section).toContain(name);
    expect(section).toContain('Processor, active');
    expect(section).not.toContain('>processor<');
    const lines = rowsOf(await text(adminBrowser, `/linked/control/${control}/processing-activities/export.csv`));
    expect(lines).toEqual(['Processing activity,Role and status', `${name},"Processor, active"`]);
  });
});
