import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems, exceptions, history } from '../../db/schema';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { riskParent } from '../../src/modules/exceptions/parents';
import { createException, decideException } from '../../src/modules/exceptions/service';
import { policyKind } from '../../src/modules/policies/service';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { errorColumns, postCsv, rowAt } from './helpers';

let env: TestEnv;
let admin: Actor;
let token: string;
let browser: Browser;
let approver: TestUser;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:read', 'risks:update', 'policies:read', 'policies:update', 'compliance:read', 'compliance:update']);
  browser = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  approver = await makeUser(env, {});
});

const HEADER = 'risk,title,description,owner,approver,expires_at';
const exceptionByTitle = async (title: string) => (await env.ctx.db.select().from(exceptions).where(eq(exceptions.title, title)))[0];

describe('Risk exceptions (area risks/exceptions)', () => {
  test('rows without id request exceptions: they arrive as requested on the named risk, audited as imported', async () => {
    const riskTitle = unique('Risk');
    const riskId = await makeRisk(env, admin, { title: riskTitle });
    const [a, b] = [unique('Exc'), unique('Exc')];
    const csv = `${HEADER}\n${riskTitle},${a},MFA cannot be enforced,,${approver.email},2099-12-31\n${riskId},${b},Second,${approver.email},,2099-06-30\n`;
    const answer = await postCsv(env, token, 'risks/exceptions', csv, 'apply', 'exceptions.csv');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.data.counts).toEqual({ create: 2, update: 0, unchanged: 0, error: 0 });
    const first = await exceptionByTitle(a);
    expect(first).toMatchObject({ parentType: 'risk', riskId, status: 'requested', approverId: approver.id, ownerId: admin.userId, expiresAt: '2099-12-31', decidedAt: null });
    expect((await exceptionByTitle(b)).ownerId).toBe(approver.id);
    const [entry] = await env.ctx.db.select().from(history).where(and(eq(history.recordId, first.id), eq(history.recordType, 'riskException')));
    expect([entry.action, entry.via, entry.source]).toEqual(['create', 'import', 'CSV import of exceptions.csv']);
  });

  test('a missing risk, a risk the importer cannot read and one they may not update are error rows on the risk column', async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:update': 'own', 'apiTokens:create': 'own' });
    const userActor = await user.actor();
    const userToken = await makeToken(env, userActor, ['risks:read', 'risks:update']);
    const own = await makeRisk(env, admin, { title: unique('Own risk'), ownerId: null, ownerGroupId: user.groupId });
    const hidden = unique('Hidden risk');
    await makeRisk(env, admin, { title: hidden });
    const csv = `${HEADER}\n${unique('No such risk')},T,D,,,2099-01-01\n${hidden},T,D,,,2099-01-01\n${own},${unique('Ok')},D,,,2099-01-01\n`;
    const answer = await postCsv(env, userToken, 'risks/exceptions', csv, 'check');
    expect(answer.data.counts).toEqual({ create: 1, update: 0, unchanged: 0, error: 2 });
    expect(errorColumns(answer.data, 2)).toEqual(['risk']);
    expect(rowAt(answer.data, 3).errors).toEqual([{ column: 'risk', message: `no risk named ${hidden}` }]);

    // Readable (all) but update only at level own: a risk the importer does not own is refused.
    const reader = await makeUser(env, { 'risks:read': 'all', 'risks:update': 'own', 'apiTokens:create': 'own' });
    const readerToken = await makeToken(env, await reader.actor(), ['risks:read', 'risks:update']);
    const refused = await postCsv(env, readerToken, 'risks/exceptions', `${HEADER}\n${hidden},T,D,,,2099-01-01\n`, 'check');
    expect(refused.data.counts.error).toBe(1);
    expect(rowAt(refused.data, 2).errors?.[0].message).toContain('not allowed');
  });

  test('the import needs update on risks: create on risks alone is refused with 403', async () => {
    const creator = await makeUser(env, { 'risks:read': 'all', 'risks:create': 'all', 'apiTokens:create': 'own' });
    const creatorToken = await makeToken(env, await creator.actor(), ['risks:read', 'risks:create']);
    const answer = await postCsv(env, creatorToken, 'risks/exceptions', `${HEADER}\nx,T,D,,,2099-01-01\n`, 'check');
    expect(answer.status).toBe(403);
  });

  test('download -> re-import: only edited rows are Update; a decided exception is Unchanged, and editing it is an error row', async () => {
    const riskTitle = unique('RT risk');
    const riskId = await makeRisk(env, admin, { title: riskTitle });
    const open = unique('RT open');
    const decided = unique('RT decided');
    await env.ctx.db.transaction(async (tx) => {
      await createException(tx, riskParent, admin, { parentId: riskId, title: open, description: 'D', expiresAt: '2099-01-01' });
      const { id } = await createException(tx, riskParent, admin, { parentId: riskId, title: decided, description: 'D', expiresAt: '2099-01-01' });
      await decideException(tx, riskParent, admin, id, { decision: 'approved' });
    });
    const res = await browser.get('/risks/exceptions/import/current.csv');
    expect(res.status).toBe(200);
    const download = await res.text();
    expect(download.split('\r\n')[0]).toBe(`\uFEFFid,${HEADER}`);
    expect(download).toContain(`,${riskTitle},${open},D,${ADMIN_EMAIL},,2099-01-01`);

    const again = await postCsv(env, token, 'risks/exceptions', download, 'check');
    expect(again.status, again.text.slice(0, 500)).toBe(200);
    expect(again.data.counts.unchanged).toBe(again.data.total);

    const edited = download.replace(`,${open},D,`, `,${open},D (edited),`);
    const checked = await postCsv(env, token, 'risks/exceptions', edited, 'apply', 'test.csv', '&outcome=update');
    expect(checked.data.counts).toEqual({ create: 0, update: 1, unchanged: again.data.total - 1, error: 0 });
    expect(checked.data.rows.find((r) => r.outcome === 'update')?.changes).toEqual([{ column: 'description', old: 'D', new: 'D (edited)' }]);
    expect((await exceptionByTitle(open)).description).toBe('D (edited)');

    const decidedEdit = download.replace(`,${decided},D,`, `,${decided},Changed,`);
    const refused = await postCsv(env, token, 'risks/exceptions', decidedEdit, 'check');
    expect(refused.data.counts.error).toBe(1);
    expect(refused.data.rows.find((r) => r.outcome === 'error')?.errors?.[0].message).toContain('approved');

    const otherRisk = unique('Other risk');
    await makeRisk(env, admin, { title: otherRisk });
    const moved = await postCsv(env, token, 'risks/exceptions', download.replace(`,${riskTitle},${open},`, `,${otherRisk},${open},`), 'check');
    expect(moved.data.rows.find((r) => r.outcome === 'error')?.errors).toEqual([{ column: 'risk', message: 'an exception stays with its parent; request a new exception for another one' }]);
  });

  test('the template lists the columns with the required ones marked', async () => {
    const res = await browser.get('/risks/exceptions/import/template.csv?comments=false');
    expect(await res.text()).toBe(`\uFEFFid,${HEADER}\r\n`);
  });
});

describe('Policy exceptions (area policies/exceptions)', () => {
  test('rows request exceptions on the named policy; a missing required column is reported', async () => {
    const policyTitle = unique('Policy');
    const { id: policyId } = await env.ctx.db.transaction((tx) => createRecord(tx, policyKind, admin, { title: policyTitle }));
    const title = unique('PExc');
    const answer = await postCsv(env, token, 'policies/exceptions', `policy,title,description,expires_at\n${policyTitle},${title},Why,2099-03-01\n`, 'apply');
    expect(answer.status, answer.text).toBe(200);
    expect(await exceptionByTitle(title)).toMatchObject({ parentType: 'policy', policyId, status: 'requested' });
    const missing = await postCsv(env, token, 'policies/exceptions', `policy,title,description\n${policyTitle},T,D\n`, 'check');
    expect(errorColumns(missing.data, 2)).toEqual(['expires_at']);
  });
});

describe('Compliance exceptions (area compliance/exceptions)', () => {
  test('package and requirement code name the analysis; an unknown requirement is an error row; the download re-imports unchanged', async () => {
    const name = unique('Framework');
    const { id: packageId } = await env.ctx.db.transaction((tx) => importPackage(tx, admin, {
      name, items: [{ code: 'R1', name: 'Policy set' }, { code: 'R2', name: 'Roles' }],
    }));
    const [analysis] = await env.ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses)
      .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
      .where(and(eq(complianceAnalyses.packageId, packageId), eq(complianceItems.code, 'R2')));
    const title = unique('CExc');
    const header = 'package,requirement,title,description,owner,approver,expires_at';
    const answer = await postCsv(env, token, 'compliance/exceptions', `${header}\n${name},r2,${title},Why,,,2099-03-01\n${name},R9,T,D,,,2099-03-01\n`, 'check');
    expect(answer.data.counts).toEqual({ create: 1, update: 0, unchanged: 0, error: 1 });
    expect(rowAt(answer.data, 3).errors).toEqual([{ column: 'requirement', message: 'no requirement R9 in that package' }]);

    const applied = await postCsv(env, token, 'compliance/exceptions', `${header}\n${name},R2,${title},Why,,,2099-03-01\n`, 'apply');
    expect(applied.status, applied.text).toBe(200);
    expect(await exceptionByTitle(title)).toMatchObject({ parentType: 'compliance', complianceAnalysisId: analysis.id, status: 'requested' });

    const download = await (await browser.get('/compliance/exceptions/import/current.csv')).text();
    expect(download).toContain(`,${name},R2,${title},Why,`);
    const again = await postCsv(env, token, 'compliance/exceptions', download, 'check');
    expect(again.data.counts.unchanged, again.text.slice(0, 500)).toBe(again.data.total);
  });
});

test("a risk's own columns are not an exception's: the file is refused naming the unknown column", async () => {
  const answer = await postCsv(env, token, 'risks/exceptions', 'risk,title,classification\nx,y,z\n', 'check');
  expect(answer.status).toBe(422);
  expect(answer.error).toContain('"classification"');
});
