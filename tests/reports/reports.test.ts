import { beforeAll, describe, expect, test } from 'bun:test';
import { createRecord } from '../../src/platform/records/records';
import { runWrite } from '../../src/platform/http/context';
import { installedReports } from '../../src/platform/reports/declarations';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import { linkRisk, thirdPartyKind } from '../../src/modules/thirdParties/service';
import { controlKind, recordControlTest } from '../../src/modules/controls/service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import type { Actor } from '../../src/platform/permissions/permissions';

let env: TestEnv;
let admin: Actor;
/** Reads risks at level own and every third party: the third party report names the risks they may not read "(restricted)". */
let reader: TestUser;
const titles = { mine: '', formula: '', theirs: '', party: '' };

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  reader = await makeUser(env, { 'risks:read': 'own', 'thirdParties:read': 'all' });
  const other = await makeUser(env, { 'risks:read': 'own' });
  titles.mine = unique('A mine');
  titles.formula = `=HYPERLINK("http://x")-${unique('f')}`;
  titles.theirs = unique('B theirs');
  titles.party = unique('Vendor');
  const mine = await makeRisk(env, admin, { title: titles.mine, ownerId: reader.id, inherentLikelihood: 3, inherentImpact: 4, residualLikelihood: 2, residualImpact: 3 });
  await makeRisk(env, admin, { title: titles.formula, ownerId: reader.id, inherentLikelihood: 1, inherentImpact: 1 });
  const theirs = await makeRisk(env, admin, { title: titles.theirs, ownerId: other.id, inherentLikelihood: 2, inherentImpact: 2 });
  const party = await runWrite(env.ctx, (tx) => createRecord(tx, thirdPartyKind, admin, { name: titles.party, type: 'vendor', ownerId: reader.id }));
  await runWrite(env.ctx, (tx) => linkRisk(tx, admin, party.id, { riskId: mine }));
  await runWrite(env.ctx, (tx) => linkRisk(tx, admin, party.id, { riskId: theirs }));
});

async function signedIn(email: string, password: string) {
  const session = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
  const cookie = `${sessionCookieName(env.ctx.config)}=${session.secret}`;
  return { get: (path: string) => env.request(path, { headers: { cookie }, redirect: 'manual' }) };
}

/** A CSV's lines, its byte order mark checked and removed. */
async function csvLines(res: Response): Promise<string[]> {
  // Read as bytes: Response.text() drops a leading byte order mark, which the file must carry.
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
  expect(res.status, text.slice(0, 500)).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="\w+-\d{4}-\d{2}-\d{2}\.csv"$/);
  expect(text.startsWith('\uFEFF')).toBe(true);
  return text.slice(1).split('\r\n').filter((line) => line !== '');
}

describe('the Report Center lists the reports the viewer may read', () => {
  test('a reader of risks and third parties sees their reports, and none of controls, incidents or compliance', async () => {
    const res = await (await signedIn(reader.email, reader.password)).get('/reports');
    const page = await res.text();
    expect(res.status).toBe(200);
    for (const title of ['Risk register', 'Risk treatment plan', 'Risk exceptions register', 'Third parties and their risks']) expect(page).toContain(`>${title}</a>`);
    for (const title of ['Control test status', 'Incidents', 'Audit findings', 'Compliance status by package', 'Policy exceptions register']) expect(page).not.toContain(`>${title}</a>`);
    expect(page).toContain('href="/reports/riskRegister/csv"');
  });

  test('a report whose right the viewer lacks is refused, naming the right; a report no module declares is not found', async () => {
    const session = await signedIn(reader.email, reader.password);
    expect(await refusalOf(env, () => session.get('/reports/controlTestStatus/csv'))).toEqual(refusedWith(403, undefined, 'user right controls:read missing'));
    expect((await session.get('/reports/noSuchReport')).status).toBe(404);
  });
});

describe('each CSV holds its header and only the rows the reader may read', () => {
  test('the risk register at level own: the reader\'s risks with inherent and residual ratings, formulas neutralised, not the others\'', async () => {
    const lines = await csvLines(await (await signedIn(reader.email, reader.password)).get('/reports/riskRegister/csv'));
    expect(lines[0]).toBe('Title,Classification,Inherent likelihood,Inherent impact,Inherent score,Inherent band,Residual likelihood,Residual impact,Residual score,Residual band,'
      + 'Owner,Owner group,Status,Review every (months),Updated');
    expect(lines.length).toBe(3);
    const mine = lines.find((l) => l.startsWith(titles.mine))!;
    expect(mine).toContain(',3 – Possible,4 – Major,12,High,2 – Unlikely,3 – Moderate,6,Medium,');
    expect(lines.some((l) => l.startsWith(`"'=HYPERLINK(""http://x"")`))).toBe(true);
    expect(lines.join('\n')).not.toContain(titles.theirs);
  });

  test('the risk register, whose cells PostgreSQL writes, gives cell for cell what the Risks list\'s export gives from each risk\'s view', async () => {
    // Owned by a person, by a group only, by both; rated residually and not; each status; text that CSV must quote or guard.
    const owner = await makeUser(env, { 'risks:read': 'own' });
    await makeRisk(env, admin, { title: unique('Alpha; "quoted"'), ownerId: owner.id, inherentLikelihood: 3, inherentImpact: 4, residualLikelihood: 2, residualImpact: 3 });
    await makeRisk(env, admin, { title: `-2 ${unique('formula')}`, ownerId: null, ownerGroupId: owner.groupId, inherentLikelihood: 1, inherentImpact: 5, status: 'closed' });
    await makeRisk(env, admin, { title: unique('Beta'), ownerId: owner.id, ownerGroupId: owner.groupId, inherentLikelihood: 5, inherentImpact: 5, residualLikelihood: 5, residualImpact: 1, status: 'archived' });
    const session = await signedIn(owner.email, owner.password);
    const report = await csvLines(await session.get('/reports/riskRegister/csv'));
    const listed = await csvLines(await session.get('/risks/export.csv?sort=title'));
    expect(report.length).toBe(4);
    expect(report).toEqual(listed);
    expect(report.some((line) => line.includes(',Archived,'))).toBe(true);
  });

  test('third parties and their risks: a linked risk the reader may not read is "(restricted)"', async () => {
    const lines = await csvLines(await (await signedIn(reader.email, reader.password)).get('/reports/thirdParties/csv'));
    expect(lines[0]).toBe('Name,Type,Status,Website,Owner,Linked risks,Risks');
    const row = lines.find((l) => l.startsWith(titles.party))!;
    expect(row).toEndWith(`,2,"${titles.mine}; (restricted)"`);
    expect(lines.join('\n')).not.toContain(titles.theirs);
  });

  test('control test status at level own: the reader\'s controls with their last test and next due date, not the others\'', async () => {
    const tester = await makeUser(env, { 'controls:read': 'own' });
    const tested = unique('Tested control');
    const untested = unique('Untested control');
    const hidden = unique('Someone else\'s control');
    const a = await runWrite(env.ctx, (tx) => createRecord(tx, controlKind, admin, { name: tested, type: 'process', status: 'active', testFrequencyMonths: 3, ownerId: tester.id }));
    await runWrite(env.ctx, (tx) => recordControlTest(tx, admin, a.id, { testedOn: '2026-01-10', result: 'pass' }));
    await runWrite(env.ctx, (tx) => recordControlTest(tx, admin, a.id, { testedOn: '2026-02-15', result: 'fail' }));
    await runWrite(env.ctx, (tx) => createRecord(tx, controlKind, admin, { name: untested, type: 'process', status: 'active', ownerId: tester.id }));
    await runWrite(env.ctx, (tx) => createRecord(tx, controlKind, admin, { name: hidden, type: 'process', status: 'active', testFrequencyMonths: 3 }));
    const lines = await csvLines(await (await signedIn(tester.email, tester.password)).get('/reports/controlTestStatus/csv'));
    const owner = tester.email.split('@')[0];
    expect(lines[0]).toBe('Control,Type,Status,Owner,Test every (months),Last tested,Last result,Next test due,Overdue');
    expect(lines.length).toBe(3);
    // The latest test counts (February's failure, not January's pass); three months later the next one is due, long past.
    expect(lines.find((l) => l.startsWith(tested))).toBe(`${tested},Process,Active,${owner},3,2026-02-15,Failed,2026-05-15,Yes`);
    expect(lines.find((l) => l.startsWith(untested))).toBe(`${untested},Process,Active,${owner},,,Never tested,,No`);
    expect(lines.join('\n')).not.toContain(hidden);
  });

  test('the administrator downloads every declared report, each opening with its declared columns', async () => {
    const session = await signedIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(installedReports().map((r) => r.key)).toEqual(expect.arrayContaining([
      'riskRegister', 'treatmentPlan', 'controlTestStatus', 'complianceStatus', 'poam', 'riskExceptions', 'policyExceptions', 'complianceExceptions',
      'incidents', 'auditFindings', 'thirdParties', 'evidenceStatus', 'accountReviewResults', 'article30Register',
    ]));
    for (const report of installedReports()) {
      const lines = await csvLines(await session.get(`/reports/${report.key}/csv`));
      expect(lines[0]).toBe(report.headers.map((header) => (/[",;]/.test(header) ? `"${header}"` : header)).join(','));
    }
  });
});

describe('the printable page', () => {
  test('renders the report as a table in the app shell, with the reader\'s rows and its CSV link', async () => {
    const res = await (await signedIn(reader.email, reader.password)).get('/reports/riskRegister');
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(page).toContain('<h1');
    expect(page).toContain('Risk register');
    expect(page).toContain('<th scope="col">Residual band</th>');
    expect(page).toContain(titles.mine);
    expect(page).not.toContain(titles.theirs);
    expect(page).toContain('2 rows you may read');
    expect(page).toContain('href="/reports/riskRegister/csv"');
  });
});
