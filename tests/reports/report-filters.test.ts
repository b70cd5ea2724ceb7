import { beforeAll, describe, expect, test } from 'bun:test';
import { createRecord, updateRecord } from '../../src/platform/records/records';
import { runWrite } from '../../src/platform/http/context';
import { installedReports } from '../../src/platform/reports/declarations';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import { controlKind, recordControlTest } from '../../src/modules/controls/service';
import { createTreatment } from '../../src/modules/risks/treatments-service';
import { createException } from '../../src/modules/exceptions/service';
import { riskParent } from '../../src/modules/exceptions/parents';
import { evidenceKind } from '../../src/modules/evidence/service';
import { incidentKind } from '../../src/modules/incidents/service';
import { thirdPartyKind } from '../../src/modules/thirdParties/service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import type { Actor } from '../../src/platform/permissions/permissions';

// Every report of the Report Center offers the filters its data suggests (status, type, owner group, date ranges),
// through the one mechanism of its declaration: the printable page and the CSV apply the same chosen filters, and a
// filter value that is not a choice or not a real date is refused inside the app, never dropped.
let env: TestEnv;
let admin: Actor;
let team: TestUser;
const t: Record<string, string> = {};

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  team = await makeUser(env, { 'risks:read': 'own' });
  for (const key of ['early', 'late', 'tech', 'proc', 'never', 'expSoon', 'expLater', 'evOld', 'evNew', 'incJan', 'incMar', 'vendor', 'partner']) t[key] = unique(key);

  const risk = await makeRisk(env, admin, { title: unique('Treated risk') });
  await runWrite(env.ctx, (tx) => createTreatment(tx, admin, risk, { type: 'mitigate', title: t.early, dueOn: '2026-01-10' }));
  await runWrite(env.ctx, (tx) => createTreatment(tx, admin, risk, { type: 'transfer', status: 'implemented', title: t.late, dueOn: '2026-03-10' }));

  const tech = await runWrite(env.ctx, (tx) => createRecord(tx, controlKind, admin, { name: t.tech, type: 'technical', ownerGroupId: team.groupId, testFrequencyMonths: 6 }));
  await runWrite(env.ctx, (tx) => recordControlTest(tx, admin, tech.id, { testedOn: '2025-01-05', result: 'fail' }));
  await runWrite(env.ctx, (tx) => createRecord(tx, controlKind, admin, { name: t.proc, type: 'process', testFrequencyMonths: 12 }));
  const proc = await runWrite(env.ctx, (tx) => createRecord(tx, controlKind, admin, { name: t.never, type: 'process' }));
  await runWrite(env.ctx, (tx) => updateRecord(tx, controlKind, admin, proc.id, { status: 'planned' }));

  await runWrite(env.ctx, (tx) => createException(tx, riskParent, admin, { parentId: risk, title: t.expSoon, description: 'Waiting for the supplier', expiresAt: '2030-02-01' }));
  await runWrite(env.ctx, (tx) => createException(tx, riskParent, admin, { parentId: risk, title: t.expLater, description: 'Accepted until the migration', expiresAt: '2031-06-01', ownerGroupId: team.groupId }));

  await runWrite(env.ctx, (tx) => createRecord(tx, evidenceKind, admin, { title: t.evOld, collectedOn: '2024-01-01', validUntil: '2024-12-31' }));
  await runWrite(env.ctx, (tx) => createRecord(tx, evidenceKind, admin, { title: t.evNew, collectedOn: '2026-01-01', validUntil: '2036-01-01' }));

  await runWrite(env.ctx, (tx) => createRecord(tx, incidentKind, admin, { title: t.incJan, openedAt: '2026-01-15' }));
  await runWrite(env.ctx, (tx) => createRecord(tx, incidentKind, admin, { title: t.incMar, openedAt: '2026-03-15' }));

  await runWrite(env.ctx, (tx) => createRecord(tx, thirdPartyKind, admin, { name: t.vendor, type: 'vendor' }));
  await runWrite(env.ctx, (tx) => createRecord(tx, thirdPartyKind, admin, { name: t.partner, type: 'partner', ownerGroupId: team.groupId }));
});

async function adminGet() {
  const login = await signIn(env.ctx.db, ADMIN_EMAIL, ADMIN_PASSWORD, '', { sessionHours: 1 });
  const cookie = `${sessionCookieName(env.ctx.config)}=${login.secret}`;
  return (path: string) => env.request(path, { headers: { cookie }, redirect: 'manual' });
}

/** The report's printable page and CSV under the same filters; both must answer 200 and hold the same titles. */
async function both(key: string, query: string, titles: string[]) {
  const get = await adminGet();
  const page = await (await get(`/reports/${key}?${query}`)).text();
  const res = await get(`/reports/${key}/csv?${query}`);
  const csv = await res.text();
  expect(res.status, csv.slice(0, 300)).toBe(200);
  const seen = (text: string) => titles.filter((title) => text.includes(title));
  return { page: seen(page), csv: seen(csv), html: page };
}

describe('every report offers filters, the printable page and the CSV applying them alike', () => {
  test('every declared report has filters, each with a label; the ranges come as pairs of days', async () => {
    const viewer = admin;
    for (const report of installedReports()) {
      const filters = await report.filtersFor(env.ctx, viewer);
      expect(filters.length, `${report.key} has no filter`).toBeGreaterThan(0);
      for (const f of filters) expect(f.label.length, `${report.key}.${f.name}`).toBeGreaterThan(0);
      for (const f of filters.filter((x) => x.notBefore)) expect(filters.some((x) => x.name === f.notBefore && x.kind === 'date')).toBe(true);
    }
  });

  test('treatment plan: by status, by type and by due date range', async () => {
    const titles = [t.early, t.late];
    expect(await both('treatmentPlan', 'status=planned', titles)).toMatchObject({ page: [t.early], csv: [t.early] });
    expect(await both('treatmentPlan', 'type=transfer', titles)).toMatchObject({ page: [t.late], csv: [t.late] });
    const ranged = await both('treatmentPlan', 'dueOnFrom=2026-02-01&dueOnTo=2026-03-31', titles);
    expect(ranged).toMatchObject({ page: [t.late], csv: [t.late] });
    expect(ranged.html).toContain('Filtered by Due from: 2026-02-01; Due to: 2026-03-31.');
    expect(ranged.html).toContain('type="date"');
  });

  test('control test status: by type and owner group on the list, by last result, overdue and next test due on the rows', async () => {
    const titles = [t.tech, t.proc, t.never];
    expect(await both('controlTestStatus', 'type=process', titles)).toMatchObject({ page: [t.proc, t.never], csv: [t.proc, t.never] });
    expect(await both('controlTestStatus', `ownerGroupId=${team.groupId}`, titles)).toMatchObject({ page: [t.tech], csv: [t.tech] });
    // The technical control failed its test of 2025-01-05, due again 2025-07-05: overdue; the process control was never tested.
    expect(await both('controlTestStatus', 'lastResult=fail&overdue=true', titles)).toMatchObject({ page: [t.tech], csv: [t.tech] });
    expect(await both('controlTestStatus', 'lastResult=never&status=active', titles)).toMatchObject({ page: [t.proc], csv: [t.proc] });
    expect(await both('controlTestStatus', 'nextTestDueFrom=2025-07-01&nextTestDueTo=2025-07-31', titles)).toMatchObject({ page: [t.tech], csv: [t.tech] });
  });

  test('exceptions, evidence, incidents and third parties: their ranges, types and owner groups', async () => {
    expect(await both('riskExceptions', 'expiresAtTo=2030-12-31', [t.expSoon, t.expLater])).toMatchObject({ page: [t.expSoon], csv: [t.expSoon] });
    expect(await both('riskExceptions', `ownerGroupId=${team.groupId}&status=requested`, [t.expSoon, t.expLater])).toMatchObject({ page: [t.expLater], csv: [t.expLater] });
    expect(await both('evidenceStatus', 'validUntilFrom=2030-01-01', [t.evOld, t.evNew])).toMatchObject({ page: [t.evNew], csv: [t.evNew] });
    expect(await both('evidenceStatus', 'status=expired', [t.evOld, t.evNew])).toMatchObject({ page: [t.evOld], csv: [t.evOld] });
    expect(await both('incidents', 'openedAtFrom=2026-03-01&openedAtTo=2026-03-31', [t.incJan, t.incMar])).toMatchObject({ page: [t.incMar], csv: [t.incMar] });
    expect(await both('thirdParties', 'type=vendor', [t.vendor, t.partner])).toMatchObject({ page: [t.vendor], csv: [t.vendor] });
    expect(await both('thirdParties', `ownerGroupId=${team.groupId}`, [t.vendor, t.partner])).toMatchObject({ page: [t.partner], csv: [t.partner] });
  });

  test('refused inside the app, the filter named: a day that is not real, a range ending before it starts, a group that is none of the choices', async () => {
    const get = await adminGet();
    const notReal = await get('/reports/treatmentPlan?dueOnFrom=2026-02-30');
    const notRealPage = await notReal.text();
    expect(notReal.status).toBe(400);
    expect(notRealPage).toContain('Due from: enter a real date, such as 2026-03-31');
    expect(notRealPage).toContain('<nav');
    const backwards = await get('/reports/incidents/csv?openedAtFrom=2026-03-01&openedAtTo=2026-02-01');
    expect(backwards.status).toBe(400);
    expect(await backwards.text()).toContain('Opened to must not be before Opened from (2026-03-01)');
    const group = await get('/reports/thirdParties?ownerGroupId=00000000-0000-4000-8000-000000000000');
    expect(group.status).toBe(400);
    expect(await group.text()).toContain('is not one of the choices of Owner group');
  });
});
