import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { linkRecord } from '../../src/modules/compliance/analyses-service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import type { MappingKind } from '../../src/modules/compliance/schema';
import { assetKind } from '../../src/modules/assets/service';
import { controlKind } from '../../src/modules/controls/service';
import { incidentKind } from '../../src/modules/incidents/service';
import { policyKind } from '../../src/modules/policies/service';
import { projectKind } from '../../src/modules/projects/service';
import { createTreatment } from '../../src/modules/risks/treatments-service';
import { linkRisk } from '../../src/modules/thirdParties/service';
import { thirdPartyKind } from '../../src/modules/thirdParties/service';
import { createRecord, type OwnedTable, type RecordKind } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

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

/** A package of one requirement, named `name`; returns the requirement's (analysis's) id. */
async function makeRequirement(name: string, ownerId?: string): Promise<string> {
  const { id } = await env.ctx.db.transaction((tx) => importPackage(tx, admin, { name: unique('Framework'), items: [{ code: 'R1', name }] }));
  const [row] = await env.ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, id));
  if (ownerId) await env.ctx.db.update(complianceAnalyses).set({ ownerId }).where(eq(complianceAnalyses.id, row.id));
  return row.id;
}

const map = (analysisId: string, kind: MappingKind, recordId: string) =>
  env.ctx.db.transaction((tx) => linkRecord(tx, admin, analysisId, kind, recordId));

async function signIn(user: TestUser): Promise<Browser> {
  const b = browser(env);
  expect((await b.post('/sign-in', { email: user.email, password: user.password, next: '/' })).status).toBe(303);
  return b;
}

const pageOf = async (b: Browser, path: string) => {
  const res = await b.get(path);
  expect(res.status, `${path} ${res.status === 200 ? "" : await res.clone().text()}`).toBe(200);
  return res.text();
};

/** The HTML of the section with this id on a page (what links here). */
const sectionOf = (html: string, id: string) => {
  const start = html.indexOf(`<section id="${id}"`);
  expect(start, `section ${id}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
};

describe('what links here: requirements on the records mapped to them', () => {
  test('a control, policy, risk and project each show the requirement they are mapped to, linked by its code and name', async () => {
    const name = unique('Access reviews');
    const requirement = await makeRequirement(name);
    const records = {
      controls: { id: await make(controlKind, { name: unique('Quarterly review') }), path: '/controls' },
      policies: { id: await make(policyKind, { title: unique('Access policy') }), path: '/policies' },
      risks: { id: await makeRisk(env, admin), path: '/risks' },
      projects: { id: await make(projectKind, { title: unique('IAM rollout') }), path: '/projects' },
    } as const;
    for (const [kind, record] of Object.entries(records)) {
      await map(requirement, kind as MappingKind, record.id);
      const section = sectionOf(await pageOf(adminBrowser, `${record.path}/${record.id}`), 'linked-requirements');
      expect(section, kind).toContain(`<a href="/compliance/analyses/${requirement}">R1 ${name}</a>`);
    }
  });

  test('a reader at level own sees the requirements they own and only a count of the others', async () => {
    const reader = await makeUser(env, { 'controls:read': 'own', 'compliance:read': 'own' });
    const control = await make(controlKind, { name: unique('Badge audit'), ownerId: reader.id });
    const hidden = unique('Hidden requirement');
    const shown = unique('Own requirement');
    await map(await makeRequirement(hidden), 'controls', control);
    const own = await makeRequirement(shown, reader.id);
    await map(own, 'controls', control);
    const section = sectionOf(await pageOf(await signIn(reader), `/controls/${control}`), 'linked-requirements');
    expect(section).toContain(`<a href="/compliance/analyses/${own}">R1 ${shown}</a>`);
    expect(section).not.toContain(hidden);
    expect(section).toContain('1 more linked requirement you may not read.');
  });

  test('a reader without compliance:read sees no requirements section', async () => {
    const reader = await makeUser(env, { 'controls:read': 'all' });
    const control = await make(controlKind, { name: unique('Key rotation') });
    const name = unique('Cryptography');
    await map(await makeRequirement(name), 'controls', control);
    const html = await pageOf(await signIn(reader), `/controls/${control}`);
    expect(html).not.toContain('id="linked-requirements"');
    expect(html).not.toContain(name);
  });
});

describe('what links here: risks and incidents on their asset', () => {
  test('an asset shows the risks and incidents naming it, and an own-level reader sees neither name of what they may not read', async () => {
    const reader = await makeUser(env, { 'assets:read': 'own', 'businessUnits:read': 'all', 'risks:read': 'own', 'incidents:read': 'own' });
    const asset = await make(assetKind, { name: unique('Payroll server'), ownerId: reader.id });
    const riskTitle = unique('Payroll data leak');
    const risk = await makeRisk(env, admin, { title: riskTitle, assetId: asset });
    const incidentTitle = unique('Payroll outage');
    const incident = await make(incidentKind, { title: incidentTitle, assetId: asset });

    const page = await pageOf(adminBrowser, `/assets/${asset}`);
    expect(sectionOf(page, 'linked-risks')).toContain(`<a href="/risks/${risk}">${riskTitle}</a>`);
    expect(sectionOf(page, 'linked-incidents')).toContain(`<a href="/incidents/${incident}">${incidentTitle}</a>`);

    const seen = await pageOf(await signIn(reader), `/assets/${asset}`);
    expect(seen).not.toContain(riskTitle);
    expect(seen).not.toContain(incidentTitle);
    expect(sectionOf(seen, 'linked-risks')).toContain('1 more linked risk you may not read.');
    expect(sectionOf(seen, 'linked-incidents')).toContain('1 more linked incident you may not read.');
  });

  test('a long list is paged in place, and its other pages need a readable asset', async () => {
    const asset = await make(assetKind, { name: unique('Data centre') });
    for (let i = 1; i <= 26; i++) await makeRisk(env, admin, { title: `Site risk ${String(i).padStart(2, '0')}`, assetId: asset });
    const first = sectionOf(await pageOf(adminBrowser, `/assets/${asset}`), 'linked-risks');
    expect(first).toContain('Site risk 25');
    expect(first).not.toContain('Site risk 26');
    expect(first).toContain('1–25 of 26');
    const next = `/linked/asset/${asset}/risks?page=2`;
    expect(first).toContain(`hx-get="${next}"`);
    const second = await (await adminBrowser.get(next, { 'HX-Request': 'true' })).text();
    expect(second).toContain('Site risk 26');
    expect(second).not.toContain('Site risk 01');

    const stranger = await makeUser(env, { 'assets:read': 'own', 'risks:read': 'all' });
    const b = await signIn(stranger);
    expect(await refusalOf(env, async () => b.get(next))).toEqual(refusedWith(404, undefined, 'link to Asset <id>: not readable (assets:read)'));
  });
});

describe('what links here: third parties, controls and treatments between risks and controls', () => {
  test('a risk shows its third parties and the controls its treatments rely on; the control shows the risk with the treatment', async () => {
    const riskTitle = unique('Supplier breach');
    const risk = await makeRisk(env, admin, { title: riskTitle });
    const vendorName = unique('Acme Hosting');
    const vendor = await make(thirdPartyKind, { name: vendorName });
    await env.ctx.db.transaction((tx) => linkRisk(tx, admin, vendor, { riskId: risk }));
    const controlName = unique('Vendor due diligence');
    const control = await make(controlKind, { name: controlName });
    await env.ctx.db.transaction((tx) => createTreatment(tx, admin, risk, { type: 'mitigate', title: 'Assess suppliers yearly', controlIds: [control] }));

    const riskPage = await pageOf(adminBrowser, `/risks/${risk}`);
    expect(sectionOf(riskPage, 'linked-third-parties')).toContain(`<a href="/third-parties/${vendor}">${vendorName}</a>`);
    const controls = sectionOf(riskPage, 'linked-controls');
    expect(controls).toContain(`<a href="/controls/${control}">${controlName}</a>`);
    expect(controls).toContain('Assess suppliers yearly');

    const treatments = sectionOf(await pageOf(adminBrowser, `/controls/${control}`), 'linked-risk-treatments');
    expect(treatments).toContain(`<a href="/risks/${risk}">${riskTitle}</a>`);
    expect(treatments).toContain('Assess suppliers yearly');
  });

  test('an own-level reader of a risk does not see the names of third parties and controls they may not read, nor a control reader the risk', async () => {
    const reader = await makeUser(env, { 'risks:read': 'own', 'thirdParties:read': 'own', 'controls:read': 'own' });
    const risk = await makeRisk(env, admin, { ownerId: reader.id });
    const vendorName = unique('Hidden vendor');
    await env.ctx.db.transaction(async (tx) => linkRisk(tx, admin, (await createRecord(tx, thirdPartyKind, admin, { name: vendorName })).id as string, { riskId: risk }));
    const controlName = unique('Hidden control');
    const control = await make(controlKind, { name: controlName });
    const treatment = unique('Hidden treatment');
    await env.ctx.db.transaction((tx) => createTreatment(tx, admin, risk, { type: 'mitigate', title: treatment, controlIds: [control] }));
    const b = await signIn(reader);

    const riskPage = await pageOf(b, `/risks/${risk}`);
    expect(riskPage).not.toContain(vendorName);
    expect(riskPage).not.toContain(controlName);
    expect(sectionOf(riskPage, 'linked-third-parties')).toContain('1 more linked third party you may not read.');
    expect(sectionOf(riskPage, 'linked-controls')).toContain('1 more linked control you may not read.');

    const other = await makeUser(env, { 'controls:read': 'own', 'risks:read': 'own' });
    const own = await make(controlKind, { name: unique('Own control'), ownerId: other.id });
    const otherRiskTitle = unique('Unreadable risk');
    const otherRisk = await makeRisk(env, admin, { title: otherRiskTitle });
    await env.ctx.db.transaction((tx) => createTreatment(tx, admin, otherRisk, { type: 'mitigate', title: 'Unseen treatment', controlIds: [own] }));
    const controlPage = await pageOf(await signIn(other), `/controls/${own}`);
    expect(controlPage).not.toContain(otherRiskTitle);
    expect(controlPage).not.toContain('Unseen treatment');
    expect(sectionOf(controlPage, 'linked-risk-treatments')).toContain('1 more linked risk you may not read.');
  });
});

test('refusals name their reason', async () => {
  const stranger = await makeUser(env, { 'assets:read': 'all', 'businessUnits:read': 'all' });
  const asset = await make(assetKind, { name: unique('Firewall') });
  const b = await signIn(stranger);
  // Without risks:read the section is not there, and its other pages are refused for the missing right.
  expect(await pageOf(b, `/assets/${asset}`)).not.toContain('id="linked-risks"');
  expect(await refusalOf(env, async () => b.get(`/linked/asset/${asset}/risks?page=2`))).toEqual(refusedWith(403, undefined, 'user right risks:read missing'));
});

describe('the risk treatment form attaches controls', () => {
  test('controls chosen on the form are linked, shown in the treatment row and on both records, and kept when the form is refused', async () => {
    const riskTitle = unique('Ransomware');
    const risk = await makeRisk(env, admin, { title: riskTitle });
    const controlName = unique('Offline backups');
    const control = await make(controlKind, { name: controlName });
    // Searched for, as a person would where other tests have made more controls than the picker lists.
    const form = await pageOf(adminBrowser, `/risks/${risk}/treatments?controls=${encodeURIComponent(controlName)}`);
    expect(form).toContain(`<option value="${control}">${controlName}</option>`);
    // Types and statuses read as labels, not stored keys.
    expect(form).toMatch(/<option value="mitigate"[^>]*>Mitigate<\/option>/);
    expect(form).not.toContain('>mitigate<');

    const refused = await adminBrowser.post(`/risks/${risk}/treatments`, { type: 'mitigate', status: 'planned', title: '', controlIds: [control] });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(`<option value="${control}" selected>${controlName}</option>`);

    const added = await adminBrowser.post(`/risks/${risk}/treatments`, { type: 'mitigate', status: 'planned', title: 'Restore drills', controlIds: [control] });
    expect(added.status, await added.clone().text()).toBe(303);
    const treatments = await pageOf(adminBrowser, `/risks/${risk}/treatments`);
    expect(treatments).toContain(`<a class="tag" href="/controls/${control}">${controlName}</a>`);
    expect(sectionOf(await pageOf(adminBrowser, `/risks/${risk}`), 'linked-controls')).toContain(`<a href="/controls/${control}">${controlName}</a>`);
    const onControl = sectionOf(await pageOf(adminBrowser, `/controls/${control}`), 'linked-risk-treatments');
    expect(onControl).toContain(`<a href="/risks/${risk}">${riskTitle}</a>`);
    expect(onControl).toContain('Restore drills');
  });
  test('with more than 200 controls the picker lists the first 200 by name and a search finds the others', async () => {
    const prefix = unique('Zeta vault');
    for (let i = 0; i <= 200; i++) await make(controlKind, { name: `${prefix} ${String(i).padStart(3, '0')}` });
    const risk = await makeRisk(env, admin, { title: unique('Vault keys') });
    const last = `${prefix} 200`;
    // At least the 200 controls before it by name come first, so the plain picker cannot list it.
    const plain = await pageOf(adminBrowser, `/risks/${risk}/treatments`);
    expect(plain).toContain('Find controls');
    expect(plain).not.toContain(`>${last}</option>`);
    const found = await pageOf(adminBrowser, `/risks/${risk}/treatments?controls=${encodeURIComponent(last)}`);
    expect(found).toMatch(new RegExp(`<option value="[0-9a-f-]{36}">${last}</option>`));
    expect(found).toContain('The picker lists 1 of 1 matching controls by name');
    // Chosen from the search, then refused for a blank title: the chosen control is still listed, and chosen.
    const lastId = found.match(new RegExp(`<option value="([0-9a-f-]{36})">${last}</option>`))![1];
    const refused = await adminBrowser.post(`/risks/${risk}/treatments`, { type: 'mitigate', status: 'planned', title: '', controlIds: [lastId] });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(`<option value="${lastId}" selected>${last}</option>`);
  }, 60_000);
});
