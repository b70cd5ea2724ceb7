import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { complianceAnalyses } from '../../db/schema';
import { importPackage } from '../../src/modules/compliance/packages-service';
import type { Level, Permission } from '../../src/platform/permissions/permissions';
import { lineDiff } from '../../src/platform/records/history-format';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, classificationId, makeToken, makeUser, unique } from '../helpers/factories';

/**
 * History reads the same on every record page: field labels, linked records by name (or "(restricted)" to a reader
 * who may not read them, or "(deleted)"), stored keys by their labels, long text as a line diff, and the parts of a
 * record (a risk's treatments, reviews and exceptions; a control's tests; a requirement's exceptions) in its History.
 */

let env: TestEnv;
let token: string;
let admin: Browser;
let reader: Browser;
const SECRET = unique('Secret');

const ALL_SCOPES: Permission[] = [
  'risks:read', 'risks:create', 'risks:update', 'risks:review', 'controls:read', 'controls:create', 'controls:update', 'controls:delete', 'thirdParties:read',
  'thirdParties:create', 'thirdParties:update', 'policies:read', 'policies:create', 'policies:update', 'compliance:read', 'compliance:update',
];

const send = (method: string, path: string, body?: unknown) =>
  env.request(path, bearer(token, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));

async function ok(res: Response, status = 200): Promise<{ id: string }> {
  expect(res.status, await res.clone().text()).toBe(status);
  return res.status === 204 ? { id: '' } : (((await res.json()) as { data: { id: string } }).data ?? { id: '' });
}

const post = async (path: string, body: Record<string, unknown>) => (await ok(await send('POST', path, body), 201)).id;

/** The History table of a record page as text, row by row. */
async function historyOf(b: Browser, path: string): Promise<string> {
  const res = await b.get(path);
  expect(res.status).toBe(200);
  const html = await res.text();
  const start = html.indexOf('id="record-history"') >= 0 ? html.indexOf('id="record-history"') : html.indexOf('id="requirement-history"');
  expect(start).toBeGreaterThan(0);
  return html.slice(start, html.indexOf('</table>', start));
}

beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ALL_SCOPES);
  // The reader reads third parties and requirements at level all, but no risk and no control.
  const rights: Partial<Record<Permission, Level>> = { 'thirdParties:read': 'all', 'compliance:read': 'all' };
  const user = await makeUser(env, rights);
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  reader = await signedInBrowser(env, user.email, user.password);
});

describe('History of a control', () => {
  test('labels its fields, shows stored keys by label, the owner by name, and its test results as its parts', async () => {
    const id = await post('/api/v1/controls', { name: unique('Firewall review'), type: 'technical' });
    await ok(await send('PATCH', `/api/v1/controls/${id}`, { status: 'retired' }));
    await post(`/api/v1/controls/${id}/tests`, { testedOn: '2026-03-01', result: 'partial', notes: 'Two rules undocumented' });
    const table = await historyOf(admin, `/controls/${id}`);
    expect(table).toContain('<strong>Status</strong>: <span>Active</span> → <span>Retired</span>');
    expect(table).toContain('<strong>Type</strong>: <span>—</span> → <span>Technical</span>');
    expect(table).toContain('<strong>Owner</strong>: <span>—</span> → <span>Administrator</span>');
    // The test result is a part of the control: its row names it and reads its result by label.
    expect(table).toContain('<span class="muted">Control test</span>');
    expect(table).toContain('<strong>Result</strong>: <span>—</span> → <span>Partly passed</span>');
    // Raw keys and field names are gone.
    expect(table).not.toContain('>retired<');
    expect(table).not.toContain('ownerId');
    // An administrator goes from the record to its Audit Log entries.
    expect(await (await admin.get(`/controls/${id}`)).text()).toContain(`<a href="/settings/audit?record=${id}">Open in Settings › Audit log</a>`);
  });
});

describe('History of a policy', () => {
  test('a change of its Markdown content is a line diff: lines removed and added, the rest as context', async () => {
    const id = await post('/api/v1/policies', { title: unique('Access policy') });
    await ok(await send('PUT', `/api/v1/policies/${id}/content`, { content: '# Access\n\nAccounts are reviewed yearly.\nAdmins use MFA.\n' }));
    await ok(await send('PUT', `/api/v1/policies/${id}/content`, { content: '# Access\n\nAccounts are reviewed quarterly.\nAdmins use MFA.\n' }));
    const table = await historyOf(admin, `/policies/${id}`);
    expect(table).toContain('<del>- Accounts are reviewed yearly.\n</del><ins>+ Accounts are reviewed quarterly.\n</ins>');
    expect(table).toContain('<span>  Admins use MFA.\n</span>');
  });

  test('the diff keeps the unchanged lines as they were, in order (the rule the screen uses)', () => {
    expect(lineDiff('a\nb\nc\nd', 'a\nB\nc\nd\ne')).toEqual([
      { kind: 'same', text: 'a' }, { kind: 'removed', text: 'b' }, { kind: 'added', text: 'B' }, { kind: 'same', text: 'c' }, { kind: 'same', text: 'd' },
      { kind: 'added', text: 'e' },
    ]);
    expect(lineDiff('', 'one\ntwo')).toEqual([{ kind: 'added', text: 'one' }, { kind: 'added', text: 'two' }]);
  });
});

describe('History of a third party', () => {
  test('a linked risk is named to who may read it and "(restricted)" to who may not; the name never reaches them', async () => {
    const riskTitle = `${SECRET} risk`;
    const riskId = await post('/api/v1/risks', { title: riskTitle, classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 });
    const vendor = await post('/api/v1/third-parties', { name: unique('Vendor') });
    await post(`/api/v1/third-parties/${vendor}/risks`, { riskId });

    const seenByAdmin = await historyOf(admin, `/third-parties/${vendor}`);
    expect(seenByAdmin).toContain(riskTitle);
    expect(seenByAdmin).toContain('<strong>Risk</strong>');

    const seenByReader = await historyOf(reader, `/third-parties/${vendor}`);
    expect(seenByReader).toContain('(restricted)');
    expect(seenByReader).not.toContain(SECRET);
    expect(seenByReader).not.toContain(riskId);
  });

  test('a sub-processor is named and linked as the third party it is, never by its id', async () => {
    const cloud = await post('/api/v1/third-parties', { name: unique('Cloud') });
    const dcName = unique('Data centre');
    const dc = await post('/api/v1/third-parties', { name: dcName });
    await post(`/api/v1/third-parties/${cloud}/sub-processors`, { thirdPartyId: dc });
    const table = await historyOf(admin, `/third-parties/${cloud}`);
    expect(table).toContain(`<strong>Sub processor</strong>: <span>—</span> → <span><a href="/third-parties/${dc}">${dcName}</a></span>`);
    expect(table).not.toContain(`>${dc}<`);
  });
});

describe('History of a requirement', () => {
  test('a mapped control is named, "(restricted)" to a reader without controls, "(deleted)" once it is gone; mappings read as words', async () => {
    const importer = await adminActor(env);
    const { id: packageId } = await env.ctx.db.transaction((tx) => importPackage(tx, { ...importer, via: 'api' }, { name: unique('Framework'), items: [{ code: 'R1', name: 'Requirement' }] }));
    const [{ id: analysis }] = await env.ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, packageId));
    const kept = `${SECRET} kept control`;
    const gone = unique('Gone control');
    const keptId = await post('/api/v1/controls', { name: kept });
    const goneId = await post('/api/v1/controls', { name: gone });
    await post(`/api/v1/compliance/analyses/${analysis}/controls`, { id: keptId });
    await post(`/api/v1/compliance/analyses/${analysis}/controls`, { id: goneId });
    await ok(await send('DELETE', `/api/v1/compliance/analyses/${analysis}/controls/${goneId}`));
    await ok(await send('DELETE', `/api/v1/controls/${goneId}`), 204);
    await ok(await send('PATCH', `/api/v1/compliance/analyses/${analysis}`, { status: 'partially_compliant' }));

    const seenByAdmin = await historyOf(admin, `/compliance/analyses/${analysis}`);
    expect(seenByAdmin).toContain('<span>Control linked</span>');
    expect(seenByAdmin).toContain('<span>Control unlinked</span>');
    // A linked record the reader may open is a link to its page.
    expect(seenByAdmin).toContain(`<strong>Control</strong>: <span>—</span> → <span><a href="/controls/${keptId}">${kept}</a></span>`);
    expect(seenByAdmin).toContain('<strong>Control</strong>: <span>—</span> → <span>(deleted)</span>');
    expect(seenByAdmin).toContain('<strong>Status</strong>: <span>Not assessed</span> → <span>Partially compliant</span>');

    const seenByReader = await historyOf(reader, `/compliance/analyses/${analysis}`);
    expect(seenByReader).toContain('<strong>Control</strong>: <span>—</span> → <span>(restricted)</span>');
    expect(seenByReader).not.toContain(SECRET);
  });
});

describe("History of a risk", () => {
  test('shows its treatments, reviews and exceptions, each named and worded by label', async () => {
    const riskId = await post('/api/v1/risks', { title: unique('Supplier outage'), classificationId: await classificationId(env), inherentLikelihood: 4, inherentImpact: 4 });
    const treatment = unique('Second supplier');
    await post(`/api/v1/risks/${riskId}/treatments`, { type: 'transfer', title: treatment });
    await post(`/api/v1/risks/${riskId}/treatments`, { type: 'mitigate', title: unique('Spare stock'), residualLikelihood: 2, residualImpact: 3 });
    await post(`/api/v1/risks/${riskId}/reviews`, { reviewedOn: '2026-05-01', outcome: 'no_change', notes: 'Stable' });
    const exception = unique('Accepted until migration');
    await post('/api/v1/risk-exceptions', { parentId: riskId, title: exception, description: 'Waiting for the contract', expiresAt: '2099-01-01' });

    const table = await historyOf(admin, `/risks/${riskId}`);
    expect(table).toContain('<th scope="col">Record</th>');
    expect(table).toContain('<span class="muted">Risk treatment</span>');
    expect(table).toMatch(new RegExp(`<a href="/risks/${riskId}/treatments/[0-9a-f-]{36}">${treatment}</a><br/><span class="muted">Risk treatment</span>`));
    expect(table).toContain('<strong>Type</strong>: <span>—</span> → <span>Transfer</span>');
    // A treatment's residual rating reads as the risk's own does: the level with its name.
    expect(table).toMatch(/<strong>Residual likelihood<\/strong>: <span>—<\/span> → <span>2 [A-Z][a-z]/);
    expect(table).toMatch(/<strong>Residual impact<\/strong>: <span>—<\/span> → <span>3 [A-Z][a-z]/);
    // A review has no title: it reads as a risk review, never by its id.
    expect(table).toMatch(/<td data-label="[^"]+"><span>—<\/span><br\/><span class="muted">Risk review<\/span><\/td>/);
    expect(table).toContain('<strong>Outcome</strong>: <span>—</span> → <span>No change</span>');
    // The reviewer (the caller, by default) is named, never shown as an id.
    expect(table).toMatch(/<strong>Reviewer<\/strong>: <span>—<\/span> → <span>[^<0-9a-f-][^<]*<\/span>/);
    expect(table).toContain(`>${exception}</a><br/><span class="muted">Risk exception</span>`);
    // The risk's own entry stays "This record".
    expect(table).toContain('<span class="muted">This record</span>');
  });
});

describe('History of any record: people, groups and typed links by name', () => {
  test('people and groups in fields of every kind, a link whose type is named beside it, and a record type by its label', async () => {
    const { describeHistory } = await import('../../src/platform/records/history-format');
    const { createGroup } = await import('../../src/modules/people/service');
    const { systemActor } = await import('../../src/platform/permissions/permissions');
    const viewer = await adminActor(env);
    const person = await makeUser(env, {});
    const groupName = unique('Auditors');
    const group = await env.ctx.db.transaction((tx) => createGroup(tx, systemActor(), { name: groupName }));
    const controlName = unique('Log review');
    const control = await post('/api/v1/controls', { name: controlName });
    const change = (after: unknown) => ({ before: null, after });
    const [entry] = await describeHistory(env.ctx.db, viewer, [{
      at: new Date().toISOString(), action: 'create', via: 'screen', source: null, actor: null, actorUserId: null, tokenId: null, auditSeq: null,
      recordType: 'somethingUndeclared', recordId: crypto.randomUUID(),
      changes: {
        userIds: change([person.id]), groupIds: change([group.id]), audienceGroupIds: change([group.id]), testerId: change(person.id),
        signedOffById: change(person.id), personId: change(person.id), linkedType: change('control'), linkedId: change(control), recordType: change('risk'),
      },
    }]);
    const shown = Object.fromEntries(entry.changes.map((c) => [c.field, c.after.text]));
    expect(shown).toEqual({
      userIds: person.email.replace('@test.example', ''), groupIds: groupName, audienceGroupIds: groupName, testerId: person.email.replace('@test.example', ''),
      signedOffById: person.email.replace('@test.example', ''), personId: person.email.replace('@test.example', ''), linkedType: 'Control', linkedId: controlName,
      recordType: 'Risk',
    });
    expect(entry.changes.find((c) => c.field === 'linkedId')?.after.links).toEqual([{ text: controlName, href: `/controls/${control}` }]);
    // A record no module declares (a setting) is named by the name its changes hold, not by its id.
    const [setting] = await describeHistory(env.ctx.db, viewer, [{
      at: new Date().toISOString(), action: 'create', via: 'screen', source: null, actor: null, actorUserId: null, tokenId: null, auditSeq: null,
      recordType: 'reportSchedule', recordId: crypto.randomUUID(), changes: { name: change('Risk register every month') },
    }]);
    expect(setting.record?.title).toBe('Risk register every month');
    // The platform's settings records word their keys as their forms do.
    const [rule, schedule] = await describeHistory(env.ctx.db, viewer, ['notificationRule', 'reportSchedule'].map((recordType) => ({
      at: new Date().toISOString(), action: 'create', via: 'screen' as const, source: null, actor: null, actorUserId: null, tokenId: null, auditSeq: null,
      recordType, recordId: crypto.randomUUID(),
      changes: (recordType === 'notificationRule'
        ? { name: change('Tell the owner'), event: change('changed'), recordType: change('risk') }
        : { name: change('Weekly register'), frequency: change('weekly'), weekday: change(1), reportKey: change('riskRegister') }) as Record<string, { before: unknown; after: unknown }>,
    })));
    expect(rule.record?.title).toBe('Tell the owner');
    expect(Object.fromEntries(rule.changes.map((c) => [c.label, c.after.text]))).toMatchObject({ Event: 'Changed (any change)', 'Record type': 'Risk' });
    expect(Object.fromEntries(schedule.changes.map((c) => [c.label, c.after.text]))).toMatchObject({ Frequency: 'Weekly', Weekday: 'Monday', Report: expect.stringMatching(/^Risk register/) });
  });
});
