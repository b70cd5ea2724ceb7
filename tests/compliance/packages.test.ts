import { beforeAll, describe, expect, test } from 'bun:test';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { auditLog, complianceAnalyses, complianceItems, compliancePackages, history } from '../../db/schema';
import { importPackage, validatePackage } from '../../src/modules/compliance/packages-service';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import type { PackageInput } from '../../src/modules/compliance/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['compliance:read', 'compliance:create', 'compliance:update', 'compliance:delete']);
});

const PATH = '/api/v1/compliance/packages';
const post = (body: unknown, secret = token) => env.request(PATH, bearer(secret, { method: 'POST', body: JSON.stringify(body) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;

interface Problem { index?: number; code?: string; field: string; message: string }
const problemsOf = async (res: Response) => ((await res.json()) as { problems: Problem[] }).problems;

/** A small framework: two headings, requirements under them, one additional item. */
const sample = (name = unique('Framework')): PackageInput => ({
  name,
  standard: 'ISO/IEC 27001',
  version: '2022',
  description: 'Annex A, abridged',
  items: [
    { code: 'A.5', name: 'Organizational controls', kind: 'heading' },
    { code: 'A.5.1', name: 'Policies for information security', description: 'Define and approve policies.', parentCode: 'A.5' },
    { code: 'A.5.2', name: 'Information security roles', parentCode: 'A.5', kind: 'requirement' },
    { code: 'A.8', name: 'Technological controls', kind: 'heading' },
    { code: 'A.8.1', name: 'User endpoint devices', parentCode: 'A.8', kind: '' },
    { code: 'G.1', name: 'Guidance on scope', kind: 'additional' },
  ],
});

const generated = (n: number): PackageInput => ({
  name: unique('Large framework'),
  items: Array.from({ length: n }, (_, i) => ({
    code: `R-${String(i).padStart(5, '0')}`,
    name: `Requirement ${i} ${'x'.repeat(200)}`,
    description: `The description of requirement ${i}. `.repeat(2),
    parentCode: i % 100 === 0 ? null : `R-${String(i - (i % 100)).padStart(5, '0')}`,
    kind: i % 100 === 0 ? 'heading' : i % 7 === 0 ? 'additional' : 'requirement',
  })),
});

const packageCount = async (name: string) =>
  (await env.ctx.db.select({ n: count() }).from(compliancePackages).where(eq(compliancePackages.name, name)))[0].n;

describe('package import over REST', () => {
  test('a package is created with its items in file order and one analysis per requirement and additional item', async () => {
    const input = sample();
    const res = await post(input);
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await json<{ id: string }>(res);
    const pkg = await json<{ name: string; standard: string; version: string; itemCounts: Record<string, number>; owner: { email: string } }>(
      await env.request(`${PATH}/${id}`, bearer(token)));
    expect(pkg).toMatchObject({ name: input.name, standard: 'ISO/IEC 27001', version: '2022', itemCounts: { total: 6, requirement: 3, additional: 1, heading: 2 } });
    expect(pkg.owner.email).toBe('admin@test.example');
    const analyses = await env.ctx.db.select({ code: complianceItems.code, status: complianceAnalyses.status }).from(complianceAnalyses)
      .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, id));
    expect(analyses.map((a) => a.code).sort()).toEqual(['A.5.1', 'A.5.2', 'A.8.1', 'G.1']);
    expect(new Set(analyses.map((a) => a.status))).toEqual(new Set(['not_assessed']));
  });

  test('the import writes one Audit Log entry with the item counts and one History entry for the package', async () => {
    const { id } = await json<{ id: string }>(await post(sample()));
    const entries = await env.ctx.db.select().from(auditLog).where(eq(auditLog.recordId, id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ module: 'compliance', action: 'create', recordType: 'compliancePackage', via: 'api' });
    expect((entries[0].details as { import: unknown }).import).toEqual({ items: 6, requirements: 3, additional: 1, headings: 2, analyses: 4 });
    const packageHistory = await json<{ action: string }[]>(await env.request(`${PATH}/${id}/history`, bearer(token)));
    expect(packageHistory.map((h) => h.action)).toEqual(['create']);
  });

  test('every item and every analysis written gets its own Audit Log and History entry, sealed in the chain', async () => {
    const { id } = await json<{ id: string }>(await post(sample()));
    const items = await env.ctx.db.select().from(complianceItems).where(eq(complianceItems.packageId, id));
    const analyses = await env.ctx.db.select().from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
    expect([items.length, analyses.length]).toEqual([6, 4]);
    for (const [recordType, rows] of [['complianceItem', items], ['complianceAnalysis', analyses]] as const) {
      const ids = rows.map((row) => row.id);
      const audited = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordType, recordType), inArray(auditLog.recordId, ids)));
      expect(audited.map((e) => e.recordId).sort()).toEqual([...ids].sort());
      expect(new Set(audited.map((e) => `${e.module} ${e.action} ${e.via}`))).toEqual(new Set(['compliance create api']));
      const trail = await env.ctx.db.select().from(history).where(and(eq(history.recordType, recordType), inArray(history.recordId, ids)));
      expect(trail.map((h) => h.recordId).sort()).toEqual([...ids].sort());
      // Each History entry points at its own Audit Log entry, which seals its changes by digest.
      const bySeq = new Map(audited.map((e) => [e.seq, e]));
      for (const h of trail) expect(bySeq.get(h.auditSeq!)?.recordId).toBe(h.recordId);
    }
    const item = items.find((i) => i.code === 'A.5.1')!;
    const [itemHistory] = await env.ctx.db.select().from(history).where(eq(history.recordId, item.id));
    expect(itemHistory.changes).toMatchObject({ code: { before: null, after: 'A.5.1' }, parentCode: { before: null, after: 'A.5' }, kind: { before: null, after: 'requirement' } });
    const analysis = analyses.find((a) => a.itemId === item.id)!;
    const analysisHistory = await json<{ action: string; via: string; changes: Record<string, { after: unknown }> }[]>(
      await env.request(`/api/v1/compliance/analyses/${analysis.id}/history`, bearer(token)));
    expect(analysisHistory.map((h) => [h.action, h.via])).toEqual([['create', 'api']]);
    expect(analysisHistory[0].changes.status.after).toBe('not_assessed');
    expect(analysisHistory[0].changes.itemId.after).toBe(item.id);
    expect((await verifyAuditLog(env.ctx.db)).ok).toBe(true);
  });

  test('export answers exactly the import shape, and importing the export gives an identical tree', async () => {
    const { id } = await json<{ id: string }>(await post(sample()));
    const exported = (await (await env.request(`${PATH}/${id}/export`, bearer(token))).json()) as PackageInput;
    expect(Object.keys(exported).sort()).toEqual(['description', 'items', 'name', 'standard', 'version']);
    expect(exported.items[1]).toEqual({ code: 'A.5.1', name: 'Policies for information security', description: 'Define and approve policies.', parentCode: 'A.5', kind: 'requirement' });
    expect(exported.items[0]).toEqual({ code: 'A.5', name: 'Organizational controls', description: '', parentCode: null, kind: 'heading' });
    const again = await post(exported);
    expect(again.status, await again.clone().text()).toBe(201);
    const { id: copy } = await json<{ id: string }>(again);
    const reexported = (await (await env.request(`${PATH}/${copy}/export`, bearer(token))).json()) as PackageInput;
    expect(reexported).toEqual(exported);
  });

  test('10,000 items (a body of about 3 MB) are accepted, analyses included; 10,001 are refused and nothing is written', async () => {
    const large = generated(10_000);
    const body = JSON.stringify(large);
    expect(body.length).toBeGreaterThan(2_500_000);
    const res = await env.request(PATH, bearer(token, { method: 'POST', body }));
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await json<{ id: string }>(res);
    const [{ n: items }] = await env.ctx.db.select({ n: count() }).from(complianceItems).where(eq(complianceItems.packageId, id));
    const [{ n: analyses }] = await env.ctx.db.select({ n: count() }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
    expect(items).toBe(10_000);
    expect(analyses).toBe(10_000 - 100);
    const [{ n: historyRows }] = await env.ctx.db.select({ n: count() }).from(history).where(eq(history.recordId, id));
    expect(historyRows).toBe(1);
    const [{ n: trail }] = await env.ctx.db.select({ n: count() }).from(history)
      .where(inArray(history.recordId, env.ctx.db.select({ id: sql<string>`${complianceAnalyses.id}::text` }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id))));
    expect(trail).toBe(10_000 - 100);

    const tooMany = generated(10_001);
    const refused = await post(tooMany);
    expect(refused.status).toBe(400);
    expect(await problemsOf(refused)).toEqual([{ field: 'items', message: 'at most 10,000 items' }]);
    expect(await packageCount(tooMany.name)).toBe(0);
  }, 60_000);

  test('a package with a problem is refused whole: nothing is written, not even the valid items', async () => {
    const input = sample();
    input.items.push({ code: 'A.5.1', name: 'Repeated' });
    const [{ n: before }] = await env.ctx.db.select({ n: count() }).from(complianceItems);
    const res = await post(input);
    expect(res.status).toBe(400);
    expect(await packageCount(input.name)).toBe(0);
    const [{ n: after }] = await env.ctx.db.select({ n: count() }).from(complianceItems);
    expect(after).toBe(before);
  });
});

describe('every refusal rule is listed with its item index, code and field', () => {
  const refusedWith = async (mutate: (input: PackageInput) => void) => {
    const input = sample();
    mutate(input);
    const res = await post(input);
    expect(res.status).toBe(400);
    expect(await packageCount(input.name)).toBe(0);
    return problemsOf(res);
  };

  test('empty code and empty name', async () => {
    const problems = await refusedWith((p) => { p.items[2].code = '  '; p.items[4].name = ''; });
    expect(problems).toEqual([
      { index: 2, field: 'code', message: 'must not be empty' },
      { index: 4, code: 'A.8.1', field: 'name', message: 'must not be empty' },
    ]);
  });

  test('an empty package name and a package without items', async () => {
    expect(await refusedWith((p) => { p.name = ''; })).toEqual([{ field: 'name', message: 'must not be empty' }]);
    expect(await refusedWith((p) => { p.items = []; })).toEqual([{ field: 'items', message: 'at least one item is required' }]);
  });

  test('a repeated code', async () => {
    const problems = await refusedWith((p) => { p.items[5].code = 'A.5.2'; });
    expect(problems).toEqual([{ index: 5, code: 'A.5.2', field: 'code', message: 'repeats the code of item 2' }]);
  });

  test('a parentCode naming a code not in the file', async () => {
    const problems = await refusedWith((p) => { p.items[4].parentCode = 'A.9'; });
    expect(problems).toEqual([{ index: 4, code: 'A.8.1', field: 'parentCode', message: 'names A.9, which is not in the package' }]);
  });

  test('parents forming a cycle, including an item that is its own parent', async () => {
    const problems = await refusedWith((p) => { p.items[0].parentCode = 'A.5.1'; p.items[3].parentCode = 'A.8'; });
    expect(problems).toEqual([
      { index: 0, code: 'A.5', field: 'parentCode', message: 'parents form a cycle: A.5 → A.5.1 → A.5' },
      { index: 1, code: 'A.5.1', field: 'parentCode', message: 'parents form a cycle: A.5 → A.5.1 → A.5' },
      { index: 3, code: 'A.8', field: 'parentCode', message: 'parents form a cycle: A.8 → A.8' },
    ]);
  });

  test('over-long code, name and package name, an unknown kind and an unknown field', async () => {
    const problems = await refusedWith((p) => {
      p.name = 'n'.repeat(301);
      p.items[1].code = 'c'.repeat(101);
      p.items[1].name = 'm'.repeat(301);
      (p.items[2] as Record<string, unknown>).kind = 'control';
      (p.items[5] as Record<string, unknown>).weight = 3;
    });
    expect(problems).toEqual([
      { field: 'name', message: 'at most 300 characters' },
      { index: 1, code: 'c'.repeat(101), field: 'code', message: 'at most 100 characters' },
      { index: 1, code: 'c'.repeat(101), field: 'name', message: 'at most 300 characters' },
      { index: 2, code: 'A.5.2', field: 'kind', message: 'must be requirement, additional, heading or blank (blank means requirement)' },
      { index: 5, code: 'G.1', field: 'weight', message: 'is not a package field' },
    ]);
  });

  test('every problem of a file is listed at once, not only the first', async () => {
    const problems = await refusedWith((p) => {
      p.items[0].name = '';
      p.items[3].code = 'A.5';
      p.items[5].parentCode = 'nowhere';
    });
    expect(problems.map((x) => `${x.index}:${x.field}`)).toEqual(['0:name', '3:code', '4:parentCode', '5:parentCode']);
  });

  test('a body that is not a package object, and malformed JSON', async () => {
    const notObject = await post(['not', 'a', 'package']);
    expect(notObject.status).toBe(400);
    expect((await problemsOf(notObject))[0]).toMatchObject({ field: 'body' });
    const malformed = await env.request(PATH, bearer(token, { method: 'POST', body: '{"name": "x", "items": [' }));
    expect(malformed.status).toBe(400);
  });

  test('validatePackage accepts a valid package with no problems', () => {
    expect(validatePackage(sample())).toEqual([]);
  });
});

describe('package permissions', () => {
  test('no token is 401 and a token without compliance:create is 403 on import', async () => {
    expect((await env.request(PATH, { method: 'POST', body: JSON.stringify(sample()), headers: { 'content-type': 'application/json' } })).status).toBe(401);
    const readOnly = await makeToken(env, await adminActor(env), ['compliance:read']);
    const input = sample();
    expect((await post(input, readOnly)).status).toBe(403);
    expect(await packageCount(input.name)).toBe(0);
    expect((await env.request(PATH, {})).status).toBe(401);
    const otherModule = await makeToken(env, await adminActor(env), ['risks:read']);
    expect((await env.request(PATH, bearer(otherModule))).status).toBe(403);
  });

  test('a user at level own lists, reads and exports only packages they own', async () => {
    const user = await makeUser(env, { 'compliance:read': 'own', 'compliance:create': 'own', 'compliance:delete': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['compliance:read', 'compliance:create', 'compliance:delete']);
    const { id: mine } = await json<{ id: string }>(await post(sample(), own));
    const { id: theirs } = await json<{ id: string }>(await post(sample()));
    const page = await json<{ rows: { id: string; itemCounts: { total: number } }[] }>(await env.request(`${PATH}?pageSize=200`, bearer(own)));
    expect(page.rows.map((r) => r.id)).toEqual([mine]);
    expect(page.rows[0].itemCounts.total).toBe(6);
    expect((await env.request(`${PATH}/${theirs}`, bearer(own))).status).toBe(404);
    expect((await env.request(`${PATH}/${theirs}/export`, bearer(own))).status).toBe(404);
    expect((await env.request(`${PATH}/${theirs}`, bearer(own, { method: 'DELETE' }))).status).toBe(404);
    expect((await env.request(`${PATH}/${mine}/export`, bearer(own))).status).toBe(200);
  });

  test('the service refuses an actor without compliance:create before reading the input', async () => {
    const user = await makeUser(env, { 'compliance:read': 'all' });
    const actor = await user.actor();
    await expect(env.ctx.db.transaction((tx) => importPackage(tx, actor, sample()))).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('package changes and deletion', () => {
  test('a package can be renamed; its tree stays; deleting removes items and analyses with one History entry', async () => {
    const { id } = await json<{ id: string }>(await post(sample()));
    const patched = await env.request(`${PATH}/${id}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ version: '2022 amd 1' }) }));
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect((await json<{ version: string; itemCounts: { total: number } }>(patched))).toMatchObject({ version: '2022 amd 1', itemCounts: { total: 6 } });
    expect((await env.request(`${PATH}/${id}`, bearer(token, { method: 'DELETE' }))).status).toBe(204);
    expect((await env.request(`${PATH}/${id}`, bearer(token))).status).toBe(404);
    const [{ n: left }] = await env.ctx.db.select({ n: count() }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
    expect(left).toBe(0);
    const deletions = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, id), eq(auditLog.action, 'delete')));
    expect(deletions).toHaveLength(1);
    expect((deletions[0].details as { removed: unknown }).removed).toEqual({ items: 6, analyses: 4 });
  });

  test('the OpenAPI document describes the import body and the scope', async () => {
    const doc = (await (await env.request('/api/v1/openapi')).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const op = doc.paths['/api/v1/compliance/packages'].post;
    expect(op['x-required-scope']).toBe('compliance:create');
    expect(JSON.stringify(op.requestBody)).toContain('parentCode');
  });
});
