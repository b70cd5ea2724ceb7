import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { auditFindings, history, incidents, policies, projects, thirdParties } from '../../db/schema';
import { auditPlanKind } from '../../src/modules/audits/service';
import { createCustomField } from '../../src/modules/customFields/service';
import { createIncidentClassification } from '../../src/modules/incidents/service';
import { loadCustomFields } from '../../src/platform/records/custom-field-values';
import { systemActor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { errorColumns, postCsv, rowAt } from './helpers';

let env: TestEnv;
let token: string;
let browser: Browser;
let owner: TestUser;

beforeAll(async () => {
  env = await testEnv();
  const admin = await adminActor(env);
  // A finding's control and an incident's asset are links to other modules: their read scopes too (spec Bearer rule 4).
  token = await makeToken(env, admin, [...(['policies', 'thirdParties', 'incidents', 'projects', 'audits'] as const)
    .flatMap((m) => [`${m}:create`, `${m}:update`, `${m}:read`] as const), 'controls:read', 'assets:read']);
  browser = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  owner = await makeUser(env, {});
});

const NO_GROUP = () => `No group ${unique('g')}`;

async function makePlan(title = unique('Plan')) {
  const admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => createRecord(tx, auditPlanKind, admin, { title }));
  return title;
}

describe('Policies', () => {
  test('create (frequency 12 when blank, custom field), update by id, every reason of an error row', async () => {
    const key = `pol${Date.now().toString(36)}`;
    await env.ctx.db.transaction((tx) => createCustomField(tx, systemActor(), { module: 'policies', key, label: 'Scope note', type: 'text' }));
    const title = unique('Policy');
    const created = await postCsv(env, token, 'policies', `title,review_frequency_months,owner,cf.${key}\n${title},,${owner.email},All staff\n`, 'apply');
    expect(created.status, created.text).toBe(200);
    expect(created.data.counts).toEqual({ create: 1, update: 0, unchanged: 0, error: 0 });
    const [row] = await env.ctx.db.select().from(policies).where(eq(policies.title, title));
    expect([row.reviewFrequencyMonths, row.ownerId, row.status]).toEqual([12, owner.id, 'draft']);
    expect((await loadCustomFields(env.ctx.db, 'policies', [row.id])).get(row.id)).toEqual({ [key]: 'All staff' });

    const updated = await postCsv(env, token, 'policies', `id,title,review_frequency_months,cf.${key}\n${row.id},${title},24,\n`, 'apply');
    expect(updated.status, updated.text).toBe(200);
    expect(rowAt(updated.data, 2).changes).toEqual([
      { column: 'review_frequency_months', old: '12', new: '24' },
      { column: `cf.${key}`, old: 'All staff', new: '' },
    ]);

    const bad = await postCsv(env, token, 'policies', `title,review_frequency_months,owner,owner_group\n,121,nobody@nowhere.example,${NO_GROUP()}\n`, 'check');
    expect(errorColumns(bad.data, 2)).toEqual(['owner', 'owner_group', 'review_frequency_months', 'title']);
  });
});

describe('Third parties', () => {
  test('create (type vendor when blank), update by id, column and service errors', async () => {
    const name = unique('Vendor');
    const created = await postCsv(env, token, 'third-parties', `name,type,status,website\n${name},,Off Boarding,https://example.com\n`, 'apply');
    expect(created.status, created.text).toBe(200);
    const [row] = await env.ctx.db.select().from(thirdParties).where(eq(thirdParties.name, name));
    expect([row.type, row.status, row.website]).toEqual(['vendor', 'offboarding', 'https://example.com']);

    const updated = await postCsv(env, token, 'third-parties', `id,type,website\n${row.id},PARTNER,\n`, 'apply');
    expect(updated.status, updated.text).toBe(200);
    expect(rowAt(updated.data, 2).changes).toEqual([
      { column: 'type', old: 'Vendor', new: 'Partner' },
      { column: 'website', old: 'https://example.com', new: '' },
    ]);

    const bad = await postCsv(env, token, 'third-parties', `name,type,status,owner_group\n,supplier,gone,${NO_GROUP()}\n`, 'check');
    expect(errorColumns(bad.data, 2)).toEqual(['name', 'owner_group', 'status', 'type']);
    const website = await postCsv(env, token, 'third-parties', `name,website\n${unique('V')},ftp://example.com\n`, 'check');
    expect(rowAt(website.data, 2).errors).toEqual([{ column: 'website', message: 'must start with http:// or https://' }]);
  });
});

describe('Incidents', () => {
  test('classification and third party by name; closing without a resolution is an error row on resolution, on create and update', async () => {
    const classification = unique('Phishing');
    await env.ctx.db.transaction((tx) => createIncidentClassification(tx, systemActor(), { name: classification }));
    const party = unique('Party');
    expect((await postCsv(env, token, 'third-parties', `name\n${party}\n`, 'apply')).status).toBe(200);
    const title = unique('Incident');
    const csv = [
      'title,classification,opened_at,third_party,status,resolution',
      `${title},${classification.toUpperCase()},2026-03-01,${party},,`,
      `${unique('Closed')},,,,closed,`,
    ].join('\n');
    const checked = await postCsv(env, token, 'incidents', csv, 'check');
    expect(rowAt(checked.data, 2).outcome).toBe('create');
    expect(rowAt(checked.data, 3).errors).toEqual([{ column: 'resolution', message: 'closing an incident needs a resolution' }]);

    const created = await postCsv(env, token, 'incidents', csv.split('\n').slice(0, 2).join('\n'), 'apply');
    expect(created.status, created.text).toBe(200);
    const [row] = await env.ctx.db.select().from(incidents).where(eq(incidents.title, title));
    expect([row.openedAt, row.status, row.classificationId !== null, row.thirdPartyId !== null]).toEqual(['2026-03-01', 'open', true, true]);

    const close = await postCsv(env, token, 'incidents', `id,status\n${row.id},Closed\n`, 'apply');
    expect(close.status).toBe(422);
    expect(rowAt(close.data, 2).errors).toEqual([{ column: 'resolution', message: 'closing an incident needs a resolution' }]);
    const closed = await postCsv(env, token, 'incidents', `id,status,resolution\n${row.id},closed,Password reset\n`, 'apply');
    expect(closed.status, closed.text).toBe(200);
    expect(rowAt(closed.data, 2).changes).toEqual([
      { column: 'status', old: 'Open', new: 'Closed' },
      { column: 'resolution', old: '', new: 'Password reset' },
    ]);

    const bad = await postCsv(env, token, 'incidents', `title,classification,opened_at,asset,third_party,status\n,${unique('None')},2026-02-30,${unique('None')},${unique('None')},solved\n`, 'check');
    expect(errorColumns(bad.data, 2)).toEqual(['asset', 'classification', 'opened_at', 'status', 'third_party', 'title']);
  });
});

describe('Projects', () => {
  test('create (planned when blank), update by id, every reason of an error row', async () => {
    const title = unique('Project');
    const created = await postCsv(env, token, 'projects', `title,status,deadline\n${title},,2026-12-31\n`, 'apply');
    expect(created.status, created.text).toBe(200);
    const [row] = await env.ctx.db.select().from(projects).where(eq(projects.title, title));
    expect([row.status, row.deadline]).toEqual(['planned', '2026-12-31']);
    const [entry] = await env.ctx.db.select().from(history).where(eq(history.recordId, row.id));
    expect([entry.via, entry.source]).toEqual(['import', 'CSV import of test.csv']);

    const updated = await postCsv(env, token, 'projects', `id,status,deadline\n${row.id},In Progress,\n`, 'apply');
    expect(updated.status, updated.text).toBe(200);
    expect(rowAt(updated.data, 2).changes).toEqual([
      { column: 'status', old: 'Planned', new: 'In progress' },
      { column: 'deadline', old: '2026-12-31', new: '' },
    ]);

    const bad = await postCsv(env, token, 'projects', `title,status,deadline,owner\n,done,31.12.2026,nobody@nowhere.example\n`, 'check');
    expect(errorColumns(bad.data, 2)).toEqual(['deadline', 'owner', 'status', 'title']);
  });
});

describe('Audit findings', () => {
  test('audit plan and control by name; a status other than open only on updates', async () => {
    const plan = await makePlan();
    const control = unique('Control');
    const admin = await adminActor(env);
    const { controlKind } = await import('../../src/modules/controls/service');
    await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: control }));
    const title = unique('Finding');
    const csv = [
      'audit_plan,title,status,deadline,control',
      `${plan},${title},,2026-06-30,${control}`,
      `${plan},${unique('Finding')},in_remediation,,`,
      `${plan},${unique('Finding')},Open,,`,
    ].join('\n');
    const checked = await postCsv(env, token, 'audits/findings', csv, 'check');
    expect(checked.data.rows.map((r) => r.outcome)).toEqual(['create', 'error', 'create']);
    expect(rowAt(checked.data, 3).errors).toEqual([{ column: 'status', message: 'a finding is created open; change its status with an update' }]);

    const created = await postCsv(env, token, 'audits/findings', csv.split('\n').slice(0, 2).join('\n'), 'apply');
    expect(created.status, created.text).toBe(200);
    const [row] = await env.ctx.db.select().from(auditFindings).where(eq(auditFindings.title, title));
    expect([row.status, row.deadline, row.controlId !== null]).toEqual(['open', '2026-06-30', true]);

    const updated = await postCsv(env, token, 'audits/findings', `id,status,control\n${row.id},In Remediation,\n`, 'apply');
    expect(updated.status, updated.text).toBe(200);
    expect(rowAt(updated.data, 2).changes).toEqual([
      { column: 'status', old: 'Open', new: 'In remediation' },
      { column: 'control', old: control, new: '' },
    ]);

    const bad = await postCsv(env, token, 'audits/findings', `audit_plan,title,status,deadline,control\n${unique('No plan')},,finished,2026-13-01,${unique('No control')}\n`, 'check');
    expect(errorColumns(bad.data, 2)).toEqual(['audit_plan', 'control', 'deadline', 'status', 'title']);
    const missing = await postCsv(env, token, 'audits/findings', `title\n${unique('F')}\n`, 'check');
    // The engine also lists the schema's own "auditPlanId is required" for a missing column whose field differs from its name (reported).
    expect(rowAt(missing.data, 2).errors).toContainEqual({ column: 'audit_plan', message: 'is required (column missing)' });
  });

  test('a plan the importer cannot read answers like a missing one', async () => {
    const plan = await makePlan();
    const own = await makeUser(env, { 'audits:read': 'own', 'audits:create': 'own', 'apiTokens:create': 'own' });
    const ownToken = await makeToken(env, await own.actor('api'), ['audits:read', 'audits:create']);
    const res = await postCsv(env, ownToken, 'audits/findings', `audit_plan,title\n${plan},${unique('F')}\n`, 'check');
    expect(rowAt(res.data, 2).errors).toEqual([{ column: 'audit_plan', message: `no audit plan named ${plan}` }]);
  });
});

/** Each type: template header, Import button on its list, and download -> edit -> re-import showing only the edited row as Update. */
const TYPES = [
  { area: 'policies', list: '/policies', header: 'id,title,description,owner,owner_group,review_frequency_months', seed: async () => `title\n${unique('RT policy')}\n` },
  { area: 'third-parties', list: '/third-parties', header: 'id,name,description,type,status,website,owner,owner_group', seed: async () => `name,website\n${unique('RT party')},https://example.org/a?b=c\n` },
  { area: 'incidents', list: '/incidents', header: 'id,title,description,classification,opened_at,asset,third_party,owner,owner_group,status,resolution', seed: async () => `title,status,resolution\n${unique('RT incident')},closed,"Fixed, by ""ops"""\n` },
  { area: 'projects', list: '/projects', header: 'id,title,description,status,deadline,owner,owner_group', seed: async () => `title,deadline\n${unique('RT project')},2027-01-15\n` },
  { area: 'audits/findings', list: '/audits/findings', header: 'id,audit_plan,title,description,status,deadline,control,owner,owner_group', seed: async () => `audit_plan,title\n${await makePlan()},${unique('RT finding')}\n` },
];

describe.each(TYPES)('$area: downloads, Import button and round trip', ({ area, list, header, seed }) => {
  test('template, Import button, download -> edit -> re-import', async () => {
    const template = (await (await browser.get(`/${area}/import/template.csv`)).text()).replace(/^\uFEFF/, '');
    expect(template.split('\r\n')[0].startsWith(header)).toBe(true);
    expect(template.split('\r\n')[1]).toMatch(/^"?# /);
    expect(await (await browser.get(list)).text()).toContain(`href="/${area}/import"`);
    expect((await browser.get(`/${area}/import`)).status).toBe(200);

    const seedCsv = await seed();
    const title = seedCsv.split('\n')[1].split(',').find((c) => c.startsWith('RT '))!;
    expect((await postCsv(env, token, area, seedCsv, 'apply')).status).toBe(200);

    const res = await browser.get(`/${area}/import/current.csv`);
    expect(res.status).toBe(200);
    const download = await res.text();
    expect(download).toContain(title);
    const again = await postCsv(env, token, area, download, 'check', 'current.csv');
    expect(again.status, again.text).toBe(200);
    expect(again.data.counts.unchanged, again.text.slice(0, 500)).toBe(again.data.total);

    const edited = download.replace(`,${title},`, `,${title} (edited),`);
    expect(edited).not.toBe(download);
    const checked = await postCsv(env, token, area, edited, 'check', 'current.csv', '&outcome=update');
    expect(checked.data.counts).toEqual({ create: 0, update: 1, unchanged: again.data.total - 1, error: 0 });
    const column = header.split(',')[area === 'audits/findings' ? 2 : 1];
    expect(checked.data.rows.find((r) => r.outcome === 'update')?.changes).toEqual([{ column, old: title, new: `${title} (edited)` }]);
  });
});
