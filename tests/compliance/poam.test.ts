import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { addDays, poamCsv, poamItems } from '../../src/modules/compliance/poam-service';
import type { PoamItem } from '../../src/modules/compliance/poam-api';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { signedInBrowser } from '../helpers/browser';

let env: TestEnv;
let admin: Actor;
let token: string;
let user: TestUser;
let userToken: string;
const ids: Record<string, string> = {};

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const created = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
};
const must = async (res: Response, status = 200) => expect(res.status, await res.clone().text()).toBe(status);
const today = () => new Date().toISOString().slice(0, 10);

/**
 * Everything the user (at level own on compliance, audits and controls) owns, plus records of others they must not see:
 * analyses R1 non-compliant, R2 partially compliant with an in-progress remediation project, R3 compliant;
 * findings F1 (open, deadline passed), F2 (in remediation, deadline ahead), F3 (closed);
 * controls C1 (latest test failed), C2 (failed, then passed), C3 (retired, failed).
 */
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [
    'compliance:read', 'compliance:update', 'audits:read', 'audits:create', 'audits:update', 'controls:read', 'controls:create', 'controls:update',
    'projects:read', 'projects:create',
  ]);
  user = await makeUser(env, {
    'compliance:read': 'own', 'compliance:create': 'own', 'audits:read': 'own', 'controls:read': 'own', 'apiTokens:create': 'own',
  });
  userToken = await makeToken(env, await user.actor(), ['compliance:read', 'audits:read', 'controls:read']);

  const importer = await user.actor('api');
  const { id: packageId } = await env.ctx.db.transaction((tx) => importPackage(tx, importer, {
    name: unique('POAM framework'),
    items: [{ code: 'R1', name: 'Access reviews' }, { code: 'R2', name: 'Backups' }, { code: 'R3', name: 'Logging' }, { code: 'H', name: 'Heading', kind: 'heading' }],
  }));
  const analyses = await env.ctx.db.select({ code: complianceItems.code, id: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, packageId));
  for (const a of analyses) ids[a.code] = a.id;
  await must(await send('PATCH', `/api/v1/compliance/analyses/${ids.R1}`, { status: 'non_compliant' }));
  await must(await send('PATCH', `/api/v1/compliance/analyses/${ids.R2}`, { status: 'partially_compliant' }));
  await must(await send('PATCH', `/api/v1/compliance/analyses/${ids.R3}`, { status: 'compliant' }));
  const project = await created(await send('POST', '/api/v1/projects', { title: unique('Backup rollout'), status: 'in_progress', deadline: '2021-06-30' }));
  await must(await send('POST', `/api/v1/compliance/analyses/${ids.R2}/projects`, { id: project }), 201);

  const plan = await created(await send('POST', '/api/v1/audits', { title: unique('Audit') }));
  const finding = (title: string, deadline: string, ownerId: string | null = user.id) =>
    send('POST', '/api/v1/audit-findings', { auditPlanId: plan, title, deadline, ownerId });
  ids.F1 = await created(await finding('=HYPERLINK("http://evil")', '2020-01-01'));
  ids.F2 = await created(await finding(unique('Finding in remediation'), '2099-01-01'));
  await must(await send('PATCH', `/api/v1/audit-findings/${ids.F2}`, { status: 'in_remediation' }));
  ids.F3 = await created(await finding(unique('Closed finding'), '2020-01-01'));
  await must(await send('PATCH', `/api/v1/audit-findings/${ids.F3}`, { status: 'closed' }));
  ids.othersFinding = await created(await finding(unique('Not theirs'), '2020-01-01', admin.userId));

  const control = (name: string, status = 'active') => send('POST', '/api/v1/controls', { name, status, ownerId: user.id });
  const testOf = async (controlId: string, testedOn: string, result: string) => {
    const res = await send('POST', `/api/v1/controls/${controlId}/tests`, { testedOn, result });
    return created(res);
  };
  ids.C1 = await created(await control(unique('Firewall review')));
  await testOf(ids.C1, '2020-01-01', 'pass');
  ids.C1test = await testOf(ids.C1, '2020-02-01', 'fail');
  ids.C2 = await created(await control(unique('Patch cadence')));
  await testOf(ids.C2, '2020-01-01', 'fail');
  await testOf(ids.C2, '2020-03-01', 'pass');
  ids.C3 = await created(await control(unique('Old control'), 'retired'));
  await testOf(ids.C3, '2020-01-01', 'fail');
}, 60_000);

const poam = async (query = '', secret = userToken) => {
  const res = await send('GET', `/api/v1/compliance/poam?pageSize=200${query}`, undefined, secret);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: { rows: PoamItem[]; total: number } }).data;
};
const sourceIds = (rows: PoamItem[]) => rows.map((r) => r.sourceId).sort();

describe('POA&M register', () => {
  test('lists non-compliant and partially compliant analyses, findings not closed and controls whose latest test failed, as the caller can read', async () => {
    const page = await poam();
    expect(sourceIds(page.rows)).toEqual([ids.R1, ids.R2, ids.F1, ids.F2, ids.C1test].sort());
    expect(page.total).toBe(5);
  });

  test('severity, status, due date and overdue follow the documented rules', async () => {
    const byId = new Map((await poam()).rows.map((r) => [r.sourceId, r]));
    const assessedOn = today();
    expect(byId.get(ids.R1)).toMatchObject({ source: 'compliance', severity: 'high', status: 'open', dueDate: addDays(assessedOn, 90), overdue: false });
    expect(byId.get(ids.R2)).toMatchObject({ source: 'compliance', severity: 'medium', status: 'in_remediation', dueDate: '2021-06-30', overdue: true });
    expect(byId.get(ids.F1)).toMatchObject({ source: 'audit', severity: 'medium', status: 'open', dueDate: '2020-01-01', overdue: true });
    expect(byId.get(ids.F2)).toMatchObject({ source: 'audit', status: 'in_remediation', dueDate: '2099-01-01', overdue: false });
    expect(byId.get(ids.C1test)).toMatchObject({ source: 'controlTest', severity: 'high', status: 'open', dueDate: '2020-03-02', overdue: true });
  });

  test('overdue depends on the day: the same items on 2019-12-31 are not overdue', async () => {
    const items = await poamItems(env.ctx.db, await user.actor('api'), {}, new Date('2019-12-31T12:00:00Z'));
    expect(items.filter((i) => i.overdue).map((i) => i.sourceId)).toEqual([]);
    const later = await poamItems(env.ctx.db, await user.actor('api'), { overdue: 'true' }, new Date('2020-01-15T12:00:00Z'));
    expect(later.map((i) => i.sourceId)).toEqual([ids.F1]);
  });

  test('filters by status, severity, source and overdue; overdue items come first', async () => {
    expect(sourceIds((await poam('&source=audit')).rows)).toEqual([ids.F1, ids.F2].sort());
    expect(sourceIds((await poam('&severity=high')).rows)).toEqual([ids.R1, ids.C1test].sort());
    expect(sourceIds((await poam('&status=in_remediation')).rows)).toEqual([ids.R2, ids.F2].sort());
    const overdue = (await poam('&overdue=true')).rows;
    expect(sourceIds(overdue)).toEqual([ids.R2, ids.F1, ids.C1test].sort());
    expect(overdue.map((r) => r.dueDate)).toEqual(['2020-01-01', '2020-03-02', '2021-06-30']);
    expect((await poam()).rows.slice(0, 3).every((r) => r.overdue)).toBe(true);
    expect((await send('GET', '/api/v1/compliance/poam?severity=critical', undefined, userToken)).status).toBe(400);
  });

  test('needs compliance:read; a source whose read scope the token lacks contributes nothing', async () => {
    const noCompliance = await makeToken(env, await user.actor(), ['audits:read', 'controls:read']);
    expect(await refusalOf(env, async () => send('GET', '/api/v1/compliance/poam', undefined, noCompliance))).toEqual(refusedWith(403, 'forbidden', 'token scope compliance:read missing'));
    const complianceOnly = await makeToken(env, await user.actor(), ['compliance:read']);
    expect(sourceIds((await poam('', complianceOnly)).rows)).toEqual([ids.R1, ids.R2].sort());
    // At level all (the administrator) others' findings appear too.
    expect((await poam('&source=audit')).rows.map((r) => r.sourceId)).not.toContain(ids.othersFinding);
    expect((await poam('&source=audit', token)).rows.map((r) => r.sourceId)).toContain(ids.othersFinding);
  });
});

describe('POA&M CSV', () => {
  test('the export has a header and one line per item, the formula-like title neutralised', async () => {
    const items = await poamItems(env.ctx.db, await user.actor('api'), { source: 'audit' });
    const csv = poamCsv(items);
    // Every CSV the service writes starts with a byte order mark, so spreadsheets read it as UTF-8.
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).trimEnd().split('\r\n');
    // Headed by the screen's column names, not stored keys.
    expect(lines[0]).toBe('Source,Weakness,Reference,Finding,Severity,Status,Due,Overdue,Owner,Source record id');
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.includes(ids.F1))).toStartWith(`Audit finding,"'=HYPERLINK(""http://evil"")"`);
    // Keys in the screen's words: no stored key reaches the file.
    expect(lines.slice(1).every((l) => /,Audit finding,(High|Medium|Low),(Open|In remediation),[0-9-]*,(Yes|No),/.test(l)), lines.join('\n')).toBe(true);
  });

  test('the screen\'s download follows its filters and sort, in its words', async () => {
    const session = await signedInBrowser(env, user.email, user.password);
    const csv = await session.get('/compliance/poam.csv?source=controlTest');
    const lines = (await csv.text()).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^Control test,Failed test of .*,Test on 2020-02-01 failed,High,Open,2020-03-02,Yes,/);
    const sorted = (await (await session.get('/compliance/poam.csv?sort=-dueDate')).text()).trimEnd().split('\r\n').slice(1);
    expect(sorted.map((l) => l.split(',').at(-1))).toEqual([ids.F2, ids.R1, ids.R2, ids.C1test, ids.F1]);
  });
});

describe('POA&M list: Owner, words and sorting by a column', () => {
  test('narrows to an owner and to words of the title or reference', async () => {
    expect(sourceIds((await poam(`&ownerId=${user.id}`)).rows)).toEqual([ids.R1, ids.R2, ids.F1, ids.F2, ids.C1test].sort());
    expect((await poam(`&ownerId=${admin.userId}`)).rows).toEqual([]);
    expect(sourceIds((await poam('&q=hyperlink')).rows)).toEqual([ids.F1]);
    expect(sourceIds((await poam('&q=firewall')).rows)).toEqual([ids.C1test]);
  });

  test('sorts by a column either way, the POA&M\'s own order breaking ties; overdue first without a sort', async () => {
    const order = async (query: string) => (await poam(query)).rows.map((r) => r.sourceId);
    expect(await order('&sort=dueDate')).toEqual([ids.F1, ids.C1test, ids.R2, ids.R1, ids.F2]);
    expect(await order('&sort=-dueDate')).toEqual([ids.F2, ids.R1, ids.R2, ids.C1test, ids.F1]);
    // High first: the failed test (overdue) before R1; then the medium ones, overdue first and by due date.
    expect(await order('&sort=severity')).toEqual([ids.C1test, ids.R1, ids.F1, ids.R2, ids.F2]);
    expect((await send('GET', '/api/v1/compliance/poam?sort=colour', undefined, userToken)).status).toBe(400);
  });

  test('the screen has the one filter bar with Owner, headers that sort with the sort in the address, and Export following both', async () => {
    const session = await signedInBrowser(env, user.email, user.password);
    const html = await (await session.get('/compliance/poam?source=audit&sort=-dueDate')).text();
    expect(html).toContain('aria-label="Filter weaknesses"');
    for (const label of ['Search weaknesses', 'Status', 'Severity', 'Source', 'Overdue', 'Owner']) expect(html).toContain(`>${label}</label>`);
    expect(html).toContain('aria-sort="descending"');
    expect(html).toContain('href="/compliance/poam?source=audit&sort=dueDate"');
    expect(html).toContain('href="/compliance/poam.csv?source=audit&sort=-dueDate"');
    expect(html).toContain('2 weaknesses match these filters');
    expect(html.indexOf('Finding in remediation')).toBeLessThan(html.indexOf('HYPERLINK'));
  });
});
