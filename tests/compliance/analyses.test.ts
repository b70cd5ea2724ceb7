import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { importPackage } from '../../src/modules/compliance/packages-service';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let token: string;
const EVERYTHING: Permission[] = [
  'compliance:read', 'compliance:update', 'compliance:review', 'compliance:delete', 'controls:read', 'controls:create', 'controls:delete',
  'policies:read', 'policies:create', 'policies:delete', 'risks:read', 'risks:delete', 'projects:read', 'projects:create', 'projects:delete',
];
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, EVERYTHING);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const ok = async <T>(res: Response, status = 200) => {
  expect(res.status, await res.clone().text()).toBe(status);
  return json<T>(res);
};

interface Linked { id: string; title: string }
interface Analysis {
  id: string;
  status: string;
  notes: string;
  assessorId: string | null;
  assessedAt: string | null;
  item: { code: string; kind: string };
  mappingCounts: Record<string, number>;
  mappings: Record<'controls' | 'policies' | 'risks' | 'projects', Linked[]>;
}
interface Counts { total: number; compliant: number; partially_compliant: number; non_compliant: number; not_applicable: number; not_assessed: number; applicable: number; percentCompliant: number | null }

/** A package of 2 headings, 5 requirements and 2 additional items; returns its id and analysis ids by item code. */
async function makePackage(actor: Actor = admin): Promise<{ id: string; analyses: Record<string, string> }> {
  const { id } = await env.ctx.db.transaction((tx) => importPackage(tx, actor, {
    name: unique('Framework'),
    items: [
      { code: 'H1', name: 'Governance', kind: 'heading' },
      { code: 'R1', name: 'Policy set', parentCode: 'H1' },
      { code: 'R2', name: 'Roles', parentCode: 'H1' },
      { code: 'R3', name: 'Segregation of duties', parentCode: 'H1' },
      { code: 'H2', name: 'Technology', kind: 'heading' },
      { code: 'R4', name: 'Endpoints', parentCode: 'H2' },
      { code: 'R5', name: 'Backups', parentCode: 'H2' },
      { code: 'X1', name: 'Guidance', kind: 'additional' },
      { code: 'X2', name: 'Further guidance', kind: 'additional' },
    ],
  }));
  const rows = await env.ctx.db.select({ code: complianceItems.code, analysisId: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, id));
  return { id, analyses: Object.fromEntries(rows.map((r) => [r.code, r.analysisId])) };
}

const createVia = async (path: string, body: Record<string, unknown>) => (await ok<{ id: string }>(await send('POST', path, body), 201)).id;

describe('assessing an analysis', () => {
  test('a status change records the actor as assessor and the time; History keeps it; the list filters by package and status', async () => {
    const pkg = await makePackage();
    const before = Date.now();
    const assessed = await ok<Analysis>(await send('PATCH', `/api/v1/compliance/analyses/${pkg.analyses.R1}`, { status: 'non_compliant', notes: 'No approved policy set' }));
    expect(assessed).toMatchObject({ status: 'non_compliant', notes: 'No approved policy set', assessorId: admin.userId! });
    expect(Date.parse(assessed.assessedAt!)).toBeGreaterThanOrEqual(before - 1000);
    const history = await ok<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(
      await send('GET', `/api/v1/compliance/analyses/${pkg.analyses.R1}/history`));
    expect(history[0].action).toBe('update');
    expect(history[0].changes.status).toEqual({ before: 'not_assessed', after: 'non_compliant' });
    const page = await ok<{ rows: Analysis[]; total: number }>(await send('GET', `/api/v1/compliance/analyses?packageId=${pkg.id}&status=non_compliant`));
    expect(page.rows.map((r) => r.id)).toEqual([pkg.analyses.R1]);
    const all = await ok<{ rows: Analysis[]; total: number }>(await send('GET', `/api/v1/compliance/analyses?packageId=${pkg.id}&pageSize=200`));
    expect(all.total).toBe(7);
    expect(all.rows.map((r) => r.item.code)).toEqual(['R1', 'R2', 'R3', 'R4', 'R5', 'X1', 'X2']);
  });

  test('a named assessor must be an active user; setting not assessed clears assessor and time; an unknown status is a 400', async () => {
    const pkg = await makePackage();
    const colleague = await makeUser(env, { 'compliance:read': 'all' });
    const named = await ok<Analysis>(await send('PATCH', `/api/v1/compliance/analyses/${pkg.analyses.R2}`, { status: 'compliant', assessorId: colleague.id }));
    expect(named.assessorId).toBe(colleague.id);
    const missing = await send('PATCH', `/api/v1/compliance/analyses/${pkg.analyses.R2}`, { status: 'compliant', assessorId: crypto.randomUUID() });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('assessorId');
    const reset = await ok<Analysis>(await send('PATCH', `/api/v1/compliance/analyses/${pkg.analyses.R2}`, { status: 'not_assessed' }));
    expect(reset).toMatchObject({ status: 'not_assessed', assessorId: null, assessedAt: null });
    expect((await send('PATCH', `/api/v1/compliance/analyses/${pkg.analyses.R2}`, { status: 'done' })).status).toBe(400);
  });

  test('the score counts requirements and additional items separately and headings not at all', async () => {
    const pkg = await makePackage();
    const set = (code: string, status: string) => send('PATCH', `/api/v1/compliance/analyses/${pkg.analyses[code]}`, { status });
    for (const [code, status] of [['R1', 'compliant'], ['R2', 'compliant'], ['R3', 'partially_compliant'], ['R4', 'not_applicable'], ['X1', 'compliant']]) {
      expect((await set(code, status)).status).toBe(200);
    }
    const score = await ok<{ requirements: Counts; additional: Counts }>(await send('GET', `/api/v1/compliance/packages/${pkg.id}/score`));
    // 5 requirements, 1 not applicable: 2 compliant of 4 applicable (R5 not assessed counts against it).
    expect(score.requirements).toMatchObject({ total: 5, compliant: 2, partially_compliant: 1, non_compliant: 0, not_applicable: 1, not_assessed: 1, applicable: 4, percentCompliant: 50 });
    expect(score.additional).toMatchObject({ total: 2, compliant: 1, not_assessed: 1, percentCompliant: 50 });
    expect(await refusalOf(env, async () => send('GET', `/api/v1/compliance/packages/${crypto.randomUUID()}/score`))).toEqual(refusedWith(404, 'Package <id> not found'));
  });
});

describe('mapping controls, policies, risks and projects', () => {
  test('each kind is mapped and unmapped, shown on the analysis and in its History; mapping twice is a 409', async () => {
    const pkg = await makePackage();
    const base = `/api/v1/compliance/analyses/${pkg.analyses.R3}`;
    const ids = {
      controls: await createVia('/api/v1/controls', { name: unique('Control') }),
      policies: await createVia('/api/v1/policies', { title: unique('Policy') }),
      risks: await makeRisk(env, admin),
      projects: await createVia('/api/v1/projects', { title: unique('Project') }),
    };
    for (const [kind, id] of Object.entries(ids)) {
      const mapped = await ok<Analysis>(await send('POST', `${base}/${kind}`, { id }), 201);
      expect(mapped.mappings[kind as keyof Analysis['mappings']].map((m) => m.id)).toEqual([id]);
      expect(mapped.mappingCounts[kind]).toBe(1);
      expect((await send('POST', `${base}/${kind}`, { id })).status).toBe(409);
    }
    const unmapped = await ok<Analysis>(await send('DELETE', `${base}/controls/${ids.controls}`));
    expect(unmapped.mappings.controls).toEqual([]);
    expect(await refusalOf(env, async () => send('DELETE', `${base}/controls/${ids.controls}`))).toEqual(refusedWith(404, 'Mapping of control <id> to analysis <id> not found'));
    const history = await ok<{ action: string }[]>(await send('GET', `${base}/history`));
    expect(history.map((h) => h.action)).toEqual(['control.unlink', 'project.link', 'risk.link', 'policy.link', 'control.link', 'create']);
  });

  test("mapping needs the linked module's read scope (403) and a record the caller can read (404)", async () => {
    const pkg = await makePackage();
    const base = `/api/v1/compliance/analyses/${pkg.analyses.R4}`;
    const controlId = await createVia('/api/v1/controls', { name: unique('Control') });
    const noControls = await makeToken(env, admin, ['compliance:read', 'compliance:update']);
    expect(await refusalOf(env, async () => send('POST', `${base}/controls`, { id: controlId }, noControls))).toEqual(refusedWith(403, 'forbidden', 'token scope controls:read missing'));
    const readOnly = await makeToken(env, admin, ['compliance:read', 'controls:read']);
    expect(await refusalOf(env, async () => send('POST', `${base}/controls`, { id: controlId }, readOnly))).toEqual(refusedWith(403, 'forbidden', 'token scope compliance:update missing'));
    // A user who may assess everything but reads only their own controls: someone else's control is not found.
    const user = await makeUser(env, { 'compliance:read': 'all', 'compliance:update': 'all', 'controls:read': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['compliance:read', 'compliance:update', 'controls:read']);
    expect(await refusalOf(env, async () => send('POST', `${base}/controls`, { id: controlId }, own))).toEqual(refusedWith(404, 'id: Control <id> not found', 'link to Control <id>: not readable (controls:read)'));
    expect(await refusalOf(env, async () => send('POST', `${base}/controls`, { id: crypto.randomUUID() }))).toEqual(refusedWith(404, 'id: Control <id> not found', 'link to Control <id>: no such record'));
    expect(await refusalOf(env, async () => send('POST', `/api/v1/compliance/analyses/${crypto.randomUUID()}/controls`, { id: controlId }))).toEqual(refusedWith(404, 'Analysis <id> not found'));
    // And a mapped record they cannot read is not listed to them, though it is counted.
    await ok<Analysis>(await send('POST', `${base}/controls`, { id: controlId }), 201);
    const seen = await ok<Analysis>(await send('GET', `/api/v1/compliance/analyses/${pkg.analyses.R4}`, undefined, own));
    expect(seen.mappings.controls).toEqual([]);
    expect(seen.mappingCounts.controls).toBe(1);
  });

  test('deleting a mapped control, policy, risk or project answers 409; once unmapped it can be deleted', async () => {
    const pkg = await makePackage();
    const base = `/api/v1/compliance/analyses/${pkg.analyses.R5}`;
    const ids = {
      controls: await createVia('/api/v1/controls', { name: unique('Control') }),
      policies: await createVia('/api/v1/policies', { title: unique('Policy') }),
      risks: await makeRisk(env, admin),
      projects: await createVia('/api/v1/projects', { title: unique('Project') }),
    };
    for (const [kind, id] of Object.entries(ids)) {
      await ok<Analysis>(await send('POST', `${base}/${kind}`, { id }), 201);
      const refused = await send('DELETE', `/api/v1/${kind}/${id}`);
      expect(refused.status, `${kind}: ${await refused.clone().text()}`).toBe(409);
      expect(await refused.text()).toContain('requirement');
      await ok<Analysis>(await send('DELETE', `${base}/${kind}/${id}`));
      expect((await send('DELETE', `/api/v1/${kind}/${id}`)).status).toBe(204);
    }
  });
});

describe('own level', () => {
  test('at level own a user sees and assesses analyses they own or of packages they own; others are 404; read-all without update-all is 403', async () => {
    const user = await makeUser(env, { 'compliance:read': 'own', 'compliance:update': 'own', 'compliance:create': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['compliance:read', 'compliance:update']);
    const theirs = await makePackage();
    const mine = await makePackage(await user.actor('api'));
    // One analysis of someone else's package handed to the user's group.
    await env.ctx.db.update(complianceAnalyses).set({ ownerId: null, ownerGroupId: user.groupId }).where(eq(complianceAnalyses.id, theirs.analyses.R1));
    const listed = await ok<{ rows: Analysis[]; total: number }>(await send('GET', `/api/v1/compliance/analyses?packageId=${theirs.id}`, undefined, own));
    expect(listed.rows.map((r) => r.id)).toEqual([theirs.analyses.R1]);
    const minePage = await ok<{ total: number }>(await send('GET', `/api/v1/compliance/analyses?packageId=${mine.id}`, undefined, own));
    expect(minePage.total).toBe(7);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/compliance/analyses/${theirs.analyses.R2}`, undefined, own))).toEqual(refusedWith(404, 'Analysis <id> not found', 'no compliance:read on Analysis <id>'));
    expect(await refusalOf(env, async () => send('PATCH', `/api/v1/compliance/analyses/${theirs.analyses.R2}`, { status: 'compliant' }, own))).toEqual(refusedWith(404, 'Analysis <id> not found', 'no compliance:read on Analysis <id>'));
    expect((await send('PATCH', `/api/v1/compliance/analyses/${theirs.analyses.R1}`, { status: 'compliant' }, own)).status).toBe(200);
    // The score of the other package counts only what the user can read.
    const score = await ok<{ requirements: Counts }>(await send('GET', `/api/v1/compliance/packages/${theirs.id}/score`, undefined, own));
    expect(score.requirements).toMatchObject({ total: 1, compliant: 1 });
    const untouched = await makePackage();
    expect(await refusalOf(env, async () => send('GET', `/api/v1/compliance/packages/${untouched.id}/score`, undefined, own))).toEqual(refusedWith(404, 'Package <id> not found', 'no compliance:read on package <id>'));

    const reader = await makeUser(env, { 'compliance:read': 'all', 'compliance:update': 'own', 'apiTokens:create': 'own' });
    const readerToken = await makeToken(env, await reader.actor(), ['compliance:read', 'compliance:update']);
    expect(await refusalOf(env, async () => send('PATCH', `/api/v1/compliance/analyses/${theirs.analyses.R3}`, { status: 'compliant' }, readerToken))).toEqual(refusedWith(403, 'forbidden', 'compliance:update is at level own and Analysis <id> is not owned'));
    const stillNot = await env.ctx.db.select({ status: complianceAnalyses.status }).from(complianceAnalyses)
      .where(and(eq(complianceAnalyses.id, theirs.analyses.R3)));
    expect(stillNot[0].status).toBe('not_assessed');
  });
});

describe('compliance exceptions', () => {
  test('an exception for a requirement arrives as requested and is decided with compliance:review', async () => {
    const pkg = await makePackage();
    const created = await send('POST', '/api/v1/compliance/exceptions', {
      parentId: pkg.analyses.R2, title: unique('Exception'), description: 'Small team; roles combined', expiresAt: '2099-01-31', status: 'requested',
    });
    const { id } = await ok<{ id: string }>(created, 201);
    const view = await ok<{ status: string; parent: { title: string }; parentType: string }>(await send('GET', `/api/v1/compliance/exceptions/${id}`));
    expect(view).toMatchObject({ status: 'requested', parentType: 'compliance', parent: { title: 'R2 Roles' } });
    const noReview = await makeToken(env, admin, ['compliance:read', 'compliance:update']);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/compliance/exceptions/${id}/decision`, { decision: 'approved' }, noReview))).toEqual(refusedWith(403, 'forbidden', 'token scope compliance:review missing'));
    // The administrator requested it: deciding it is an explicit override (segregation of duties).
    const decided = await ok<{ status: string; approverId: string }>(await send('POST', `/api/v1/compliance/exceptions/${id}/decision`, { decision: 'approved', override: true, note: 'one-person team' }));
    expect(decided).toMatchObject({ status: 'approved', approverId: admin.userId! });
    const listed = await ok<{ rows: { id: string }[] }>(await send('GET', `/api/v1/compliance/exceptions?parentId=${pkg.analyses.R2}`));
    expect(listed.rows.map((r) => r.id)).toEqual([id]);
    expect((await send('POST', '/api/v1/compliance/exceptions', {
      parentId: crypto.randomUUID(), title: 'x', description: 'y', expiresAt: '2099-01-31',
    })).status).toBe(404);
    const approved = await send('POST', '/api/v1/compliance/exceptions', { parentId: pkg.analyses.R2, title: 'x', description: 'y', expiresAt: '2099-01-31', status: 'approved' });
    expect(approved.status).toBe(400);
  });
});
