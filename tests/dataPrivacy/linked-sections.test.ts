import { beforeAll, describe, expect, test } from 'bun:test';
import { dpiaKind } from '../../src/modules/dataPrivacy/dpia-service';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { tiaKind, transferKind } from '../../src/modules/dataPrivacy/transfer-service';
import { thirdPartyKind } from '../../src/modules/thirdParties/service';
import { createRecord, type OwnedTable, type RecordKind } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';

/**
 * A processing activity's DPIAs and transfers outside the EEA, and a third party's transfer impact assessments: each a
 * section of the record page with its total, headers sorting it in place, paging (no cap on how many are shown) and an
 * Export CSV in the order chosen; values in words, linked records by name, "(restricted)" where the reader may not read them.
 */

let env: TestEnv;
let admin: Actor;
let adminBrowser: Browser;
let activity: string;
let vendor: string;
let vendorName: string;
const n2 = (n: number) => String(n).padStart(2, '0');
const dpiaPrefix = unique('Scoring DPIA');
const transferPrefix = unique('Payroll export');
const tiaPrefix = unique('India TIA');

const make = <T extends OwnedTable, I extends Record<string, unknown>, V>(kind: RecordKind<T, I, V>, input: I) =>
  env.ctx.db.transaction(async (tx) => (await createRecord(tx, kind, admin, input)).id as string);

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  adminBrowser = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  activity = await make(processingActivityKind, { name: unique('Payroll'), legalBasis: 'legal_obligation' });
  vendorName = unique('Payroll bureau');
  vendor = await make(thirdPartyKind, { name: vendorName });
  const tias: string[] = [];
  for (let n = 1; n <= 26; n++) {
    tias.push(await make(tiaKind, {
      name: `${tiaPrefix} ${n2(n)}`, thirdPartyId: vendor, lawsAssessed: 'IT Act 2000 s. 69', riskFound: n === 1 ? 'high' : 'low',
      conclusion: n === 1 ? 'do_not_proceed' : 'proceed', assessedOn: `2026-02-${n2(n)}`, ...(n === 1 ? {} : { nextReviewOn: '2027-03-01' }),
    }));
  }
  for (let n = 1; n <= 27; n++) await make(dpiaKind, { name: `${dpiaPrefix} ${n2(n)}`, processingActivityId: activity });
  for (let n = 1; n <= 26; n++) {
    await make(transferKind, {
      name: `${transferPrefix} ${n2(n)}`, processingActivityId: activity, destinationCountry: n === 1 ? 'BR' : 'IN', recipientThirdPartyId: vendor,
      safeguard: 'sccs', sccModule: 2, ...(n === 1 ? { transferImpactAssessmentId: tias[0] } : {}),
    });
  }
});

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
const fragment = async (path: string, id: string) => sectionOf(await text(adminBrowser, path, { 'HX-Request': 'true' }), id);
const rowsOf = (csv: string) => csv.replace(/^\uFEFF/, '').trim().split('\r\n');

describe("a processing activity's DPIAs", () => {
  test('show every DPIA a page at a time with the total, status and decision in words, and a New DPIA link', async () => {
    const section = sectionOf(await text(adminBrowser, `/data-privacy/processing-activities/${activity}`), 'linked-dpias');
    expect(section).toContain('27 DPIAs');
    expect(section).toContain('1–25 of 27');
    expect(section).toContain('<td data-label="Status"><span>Draft</span></td>');
    expect(section).toContain('<td data-label="Required"><span>Not required</span></td>');
    expect(section).not.toContain('>draft<');
    expect(section).toContain(`href="/data-privacy/dpias/new?processingActivityId=${activity}"`);
    expect(section).toContain(`hx-get="/linked/processingActivity/${activity}/dpias?sort=-title" hx-target="#linked-dpias"`);
    const second = await fragment(`/linked/processingActivity/${activity}/dpias?page=2`, 'linked-dpias');
    expect(second).toContain('26–27 of 27');
    expect(second).toContain(`${dpiaPrefix} 27`);
  });

  test('sort by name either way, and export in that order', async () => {
    const down = await fragment(`/linked/processingActivity/${activity}/dpias?sort=-title`, 'linked-dpias');
    expect(down.indexOf(`${dpiaPrefix} 27`)).toBeLessThan(down.indexOf(`${dpiaPrefix} 26`));
    expect(down).not.toContain(`${dpiaPrefix} 01<`);
    const up = await fragment(`/linked/processingActivity/${activity}/dpias?sort=title`, 'linked-dpias');
    expect(up.indexOf(`${dpiaPrefix} 01`)).toBeLessThan(up.indexOf(`${dpiaPrefix} 02`));
    const [header, ...lines] = rowsOf(await text(adminBrowser, `/linked/processingActivity/${activity}/dpias/export.csv?sort=-title`));
    expect(header).toBe('DPIA,Status,Required');
    expect(lines).toHaveLength(27);
    expect(lines[0]).toBe(`${dpiaPrefix} 27,Draft,Not required`);
    expect(lines[26]).toBe(`${dpiaPrefix} 01,Draft,Not required`);
  });
});

describe("a processing activity's transfers outside the EEA", () => {
  test('are paged with the total, the destination by country name, the recipient and TIA linked by name', async () => {
    const section = sectionOf(await text(adminBrowser, `/data-privacy/processing-activities/${activity}`), 'linked-transfers');
    expect(section).toContain('26 transfers');
    expect(section).toContain('1–25 of 26');
    expect(section).toContain('<td data-label="Destination"><span>India</span></td>');
    expect(section).toContain(`<td data-label="Recipient"><a href="/third-parties/${vendor}">${vendorName}</a></td>`);
    expect(section).toContain('<td data-label="Safeguard"><span>Standard contractual clauses (module 2)</span></td>');
    expect(section).toMatch(new RegExp(`<td data-label="Transfer impact assessment"><a href="/data-privacy/transfer-impact-assessments/[0-9a-f-]{36}">${tiaPrefix} 01</a></td>`));
    expect(section).toContain('<td data-label="Transfer impact assessment"><span>None</span></td>');
    expect(section).toContain(`href="/data-privacy/transfers/new?processingActivityId=${activity}"`);
    const second = await fragment(`/linked/processingActivity/${activity}/transfers?page=2`, 'linked-transfers');
    expect(second).toContain('26–26 of 26');
  });

  test('sort by destination either way, and export names and words', async () => {
    const brazilFirst = await fragment(`/linked/processingActivity/${activity}/transfers?sort=detail`, 'linked-transfers');
    expect(brazilFirst.indexOf('Brazil')).toBeLessThan(brazilFirst.indexOf('India'));
    const indiaFirst = await fragment(`/linked/processingActivity/${activity}/transfers?sort=-detail`, 'linked-transfers');
    expect(indiaFirst).not.toContain('Brazil');
    expect(indiaFirst).toContain('aria-sort="descending"');
    const [header, ...lines] = rowsOf(await text(adminBrowser, `/linked/processingActivity/${activity}/transfers/export.csv?sort=detail`));
    expect(header).toBe('Transfer,Destination,Recipient,Safeguard,Transfer impact assessment');
    expect(lines).toHaveLength(26);
    expect(lines[0]).toBe(`${transferPrefix} 01,Brazil,${vendorName},Standard contractual clauses (module 2),${tiaPrefix} 01`);
    expect(lines[1]).toBe(`${transferPrefix} 02,India,${vendorName},Standard contractual clauses (module 2),None`);
  });

  test('name a recipient the reader may not read "(restricted)", unlinked, on the page and in the CSV', async () => {
    const reader = await makeUser(env, { 'dataPrivacy:read': 'all', 'thirdParties:read': 'own' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/' })).status).toBe(303);
    const section = sectionOf(await text(b, `/data-privacy/processing-activities/${activity}`), 'linked-transfers');
    expect(section).toContain('<td data-label="Recipient"><span>(restricted)</span></td>');
    expect(section).not.toContain(vendorName);
    expect(section).not.toContain(`/third-parties/${vendor}`);
    expect(section).not.toContain('New transfer');
    const csv = await text(b, `/linked/processingActivity/${activity}/transfers/export.csv`);
    expect(csv).not.toContain(vendorName);
    expect(rowsOf(csv)[1]).toBe(`${transferPrefix} 01,Brazil,(restricted),Standard contractual clauses (module 2),${tiaPrefix} 01`);
  });
});

describe("a third party's transfer impact assessments", () => {
  test('are paged with the total, sorted by assessment date either way and exported in words', async () => {
    const section = sectionOf(await text(adminBrowser, `/third-parties/${vendor}`), 'linked-transfer-impact-assessments');
    expect(section).toContain('26 transfer impact assessments');
    expect(section).toContain('1–25 of 26');
    expect(section).toContain(`href="/data-privacy/transfer-impact-assessments/new?thirdPartyId=${vendor}"`);
    const latest = await fragment(`/linked/thirdParty/${vendor}/transfer-impact-assessments?sort=-detail`, 'linked-transfer-impact-assessments');
    expect(latest.indexOf('2026-02-26')).toBeLessThan(latest.indexOf('2026-02-25'));
    expect(latest).not.toContain(`${tiaPrefix} 01<`);
    const earliest = await fragment(`/linked/thirdParty/${vendor}/transfer-impact-assessments?sort=detail`, 'linked-transfer-impact-assessments');
    expect(earliest.indexOf(`${tiaPrefix} 01`)).toBeLessThan(earliest.indexOf(`${tiaPrefix} 02`));
    const second = await fragment(`/linked/thirdParty/${vendor}/transfer-impact-assessments?page=2&sort=-detail`, 'linked-transfer-impact-assessments');
    expect(second).toContain('26–26 of 26');
    expect(second).toContain(`${tiaPrefix} 01`);
    const [header, ...lines] = rowsOf(await text(adminBrowser, `/linked/thirdParty/${vendor}/transfer-impact-assessments/export.csv?sort=detail`));
    expect(header).toBe('Transfer impact assessment,Assessed on,Risk found,Conclusion,Next review');
    expect(lines).toHaveLength(26);
    expect(lines[0]).toBe(`${tiaPrefix} 01,2026-02-01,High,Do not proceed,`);
    expect(lines[1]).toBe(`${tiaPrefix} 02,2026-02-02,Low,Proceed,2027-03-01`);
  });
});
