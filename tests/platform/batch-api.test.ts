import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { controlKind } from '../../src/modules/controls/service';
import { BATCH_MAX_ITEMS } from '../../src/platform/records/batch';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';

/**
 * Batch operations of the REST API (src/platform/records/batch.ts): many records in one request and one transaction, each
 * with the rules of its single-record operation, its Audit Log and History entry, and one result per item.
 */

let env: TestEnv;
let admin: Actor;
let token: string;
const SCOPES: Permission[] = [
  'controls:read', 'controls:create', 'controls:update', 'policies:read', 'policies:create', 'policies:update',
  'risks:read', 'risks:create', 'risks:update', 'compliance:read', 'compliance:update',
];
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, SCOPES);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const ok = async <T>(res: Response, status = 200): Promise<T> => {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
};
type Result = { id: string; changed: boolean } | { error: string; problems: { field: string; message: string }[] };
const results = async (res: Response) => (await ok<{ results: Result[] }>(res)).results;
const idOf = (result: Result) => {
  if (!('id' in result)) throw new Error(`refused: ${result.error}`);
  return result.id;
};
interface HistoryEntry { action: string; via: string; changes: Record<string, { before: unknown; after: unknown }> }
const history = async (path: string) => ok<HistoryEntry[]>(await send('GET', path));

describe('registers: POST and PATCH /<register>/batch', () => {
  test('creates every valid control, refuses the others with their problems, one result per item in order, each audited', async () => {
    const name = unique('Batch control');
    const answer = await results(await send('POST', '/api/v1/controls/batch', {
      items: [{ name, type: 'technical' }, { name: '   ' }, { name: `${name} 2`, testFrequencyMonths: 3 }],
    }));
    expect(answer).toHaveLength(3);
    expect(answer[1]).toEqual({ error: 'name: must not be blank', problems: [{ field: 'name', message: 'must not be blank' }] });
    const created = await ok<{ name: string; type: string; ownerId: string }>(await send('GET', `/api/v1/controls/${idOf(answer[0])}`));
    expect(created).toMatchObject({ name, type: 'technical', ownerId: admin.userId! });
    expect(await ok<{ testFrequencyMonths: number }>(await send('GET', `/api/v1/controls/${idOf(answer[2])}`))).toMatchObject({ testFrequencyMonths: 3 });
    const [entry] = await history(`/api/v1/controls/${idOf(answer[0])}/history`);
    expect(entry).toMatchObject({ action: 'create', via: 'api', changes: { name: { before: null, after: name } } });
  });

  test('changes controls by id; an item that changes nothing is changed: false; an unknown id is refused', async () => {
    const [a, b] = (await results(await send('POST', '/api/v1/controls/batch', { items: [{ name: unique('A') }, { name: unique('B') }] }))).map(idOf);
    const missing = crypto.randomUUID();
    const answer = await results(await send('PATCH', '/api/v1/controls/batch', {
      items: [{ id: a, changes: { status: 'retired' } }, { id: b, changes: { type: 'process' } }, { id: missing, changes: { status: 'planned' } }],
    }));
    expect(answer[0]).toEqual({ id: a, changed: true });
    expect(answer[1]).toEqual({ id: b, changed: false });
    expect(answer[2]).toMatchObject({ error: `Control ${missing} not found` });
    expect(await ok<{ status: string }>(await send('GET', `/api/v1/controls/${a}`))).toMatchObject({ status: 'retired' });
    expect((await history(`/api/v1/controls/${b}/history`)).map((e) => e.action)).toEqual(['create']);
  });

  test('needs the right of the single operation; a body off the schema is refused whole and writes nothing', async () => {
    const readOnly = await makeToken(env, admin, ['controls:read']);
    expect((await send('POST', '/api/v1/controls/batch', { items: [{ name: 'x' }] }, readOnly)).status).toBe(403);
    expect((await send('PATCH', '/api/v1/controls/batch', { items: [{ id: crypto.randomUUID(), changes: { name: 'x' } }] }, readOnly)).status).toBe(403);
    expect((await send('POST', '/api/v1/controls/batch', { items: [{ name: 'x' }] }, 'aat_not-a-token')).status).toBe(401);
    const name = unique('Never written');
    const refused = await send('POST', '/api/v1/controls/batch', { items: [{ name }, { name: 'y', colour: 'red' }] });
    expect(refused.status).toBe(400);
    expect((await ok<{ total: number }>(await send('GET', `/api/v1/controls?q=${encodeURIComponent(name)}`))).total).toBe(0);
    const tooMany = Array.from({ length: BATCH_MAX_ITEMS + 1 }, (_, i) => ({ name: `${name} ${i}` }));
    expect((await send('POST', '/api/v1/controls/batch', { items: tooMany })).status).toBe(400);
    expect((await send('POST', '/api/v1/controls/batch', { items: [] })).status).toBe(400);
  });

  test('at level own a user cannot hand a record to another owner in a batch either', async () => {
    const user = await makeUser(env, { 'controls:read': 'all', 'controls:create': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['controls:read', 'controls:create']);
    const answer = await results(await send('POST', '/api/v1/controls/batch', { items: [{ name: unique('Mine') }, { name: unique('Theirs'), ownerId: admin.userId }] }, own));
    expect(await ok<{ ownerId: string }>(await send('GET', `/api/v1/controls/${idOf(answer[0])}`))).toMatchObject({ ownerId: user.id });
    expect(answer[1]).toMatchObject({ error: expect.stringContaining('not allowed') });
  });
});

describe('policies: batch with content, and batch publish', () => {
  test('creates policies with their draft content, then publishes them as version 1; empty or unchanged drafts are refused', async () => {
    const content = '# Acceptable use\n\nBe kind to the laptops.';
    const [withContent, empty] = (await results(await send('POST', '/api/v1/policies/batch', {
      items: [{ title: unique('Batch policy'), content }, { title: unique('Empty policy') }],
    }))).map(idOf);
    expect(await ok<{ content: string; status: string }>(await send('GET', `/api/v1/policies/${withContent}`))).toMatchObject({ content, status: 'draft' });
    const missing = crypto.randomUUID();
    const published = await results(await send('POST', '/api/v1/policies/batch/publish', { items: [{ id: withContent }, { id: empty }, { id: missing }] }));
    expect(published[0]).toMatchObject({ changed: true });
    expect(published[1]).toMatchObject({ error: expect.stringContaining('no content to publish') });
    expect(published[2]).toMatchObject({ error: `Policy ${missing} not found` });
    const policy = await ok<{ status: string; currentVersion: number }>(await send('GET', `/api/v1/policies/${withContent}`));
    expect(policy).toMatchObject({ status: 'published', currentVersion: 1 });
    const versions = await ok<{ id: string; version: number; content: string }[]>(await send('GET', `/api/v1/policies/${withContent}/versions`));
    expect(versions.map((v) => [v.id, v.version, v.content])).toEqual([[idOf(published[0]), 1, content]]);
    expect((await history(`/api/v1/policies/${withContent}/history`)).map((e) => e.action)).toEqual(['publish', 'create']);
    const again = await results(await send('POST', '/api/v1/policies/batch/publish', { items: [{ id: withContent }] }));
    expect(again[0]).toMatchObject({ error: expect.stringContaining('unchanged since version 1') });
  });

  test('a batch change of the content is an update; publishing it again numbers the next version', async () => {
    const [id] = (await results(await send('POST', '/api/v1/policies/batch', { items: [{ title: unique('Versioned'), content: 'one' }] }))).map(idOf);
    await results(await send('POST', '/api/v1/policies/batch/publish', { items: [{ id }] }));
    expect(await results(await send('PATCH', '/api/v1/policies/batch', { items: [{ id, changes: { content: 'two', reviewFrequencyMonths: 6 } }] }))).toEqual([{ id, changed: true }]);
    expect((await results(await send('POST', '/api/v1/policies/batch/publish', { items: [{ id }] })))[0]).toMatchObject({ changed: true });
    const policy = await ok<{ content: string; currentVersion: number; reviewFrequencyMonths: number }>(await send('GET', `/api/v1/policies/${id}`));
    expect(policy).toMatchObject({ content: 'two', currentVersion: 2, reviewFrequencyMonths: 6 });
  });
});

describe('risks: POST and PATCH /risks/batch', () => {
  test('levels by value or name, as the single create takes them; a classification that does not exist is refused', async () => {
    const classification = await classificationId(env);
    const title = unique('Batch risk');
    const answer = await results(await send('POST', '/api/v1/risks/batch', {
      items: [
        { title, classificationId: classification, inherentLikelihood: 'likely', inherentImpact: 5, residualLikelihood: 'rare', residualImpact: 'moderate' },
        { title: `${title} 2`, classificationId: crypto.randomUUID(), inherentLikelihood: 1, inherentImpact: 1 },
        { title: `${title} 3`, classificationId: classification, inherentLikelihood: 2, inherentImpact: 2, residualLikelihood: 3, residualImpact: 1 },
      ],
    }));
    const risk = await ok<{ inherentLikelihood: { value: number }; residualImpact: { value: number }; inherentScore: number }>(await send('GET', `/api/v1/risks/${idOf(answer[0])}`));
    expect(risk).toMatchObject({ inherentLikelihood: { value: 4 }, residualImpact: { value: 3 }, inherentScore: 20 });
    expect(answer[1]).toMatchObject({ error: 'classificationId: no such risk classification' });
    expect(answer[2]).toMatchObject({ error: 'residualLikelihood: must not be above the inherent likelihood' });
    const changed = await results(await send('PATCH', '/api/v1/risks/batch', { items: [{ id: idOf(answer[0]), changes: { status: 'closed', inherentImpact: 'major' } }] }));
    expect(changed).toEqual([{ id: idOf(answer[0]), changed: true }]);
    expect(await ok<{ status: string; inherentImpact: { value: number } }>(await send('GET', `/api/v1/risks/${idOf(answer[0])}`)))
      .toMatchObject({ status: 'closed', inherentImpact: { value: 4 } });
  });
});

describe('treatments: POST /risks/treatments/batch and GET /risks/treatments', () => {
  test('adds treatments to several risks; an implemented mitigate one sets the residual rating; refusals name the rule', async () => {
    const first = await makeRisk(env, admin, { inherentLikelihood: 4, inherentImpact: 4 });
    const second = await makeRisk(env, admin, { inherentLikelihood: 2, inherentImpact: 2 });
    const { id: control } = await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: unique('Linked control') }));
    const answer = await results(await send('POST', '/api/v1/risks/treatments/batch', {
      items: [
        { riskId: first, type: 'mitigate', status: 'implemented', title: 'Backups', residualLikelihood: 2, residualImpact: 'minor', controlIds: [control] },
        { riskId: second, type: 'mitigate', title: 'Too good', residualLikelihood: 3, residualImpact: 1 },
        { riskId: second, type: 'accept', title: 'Accepted for now' },
        { riskId: crypto.randomUUID(), type: 'avoid', title: 'Nowhere' },
        { riskId: second, type: 'mitigate', title: 'Unknown control', controlIds: [crypto.randomUUID()] },
      ],
    }));
    expect(answer[1]).toMatchObject({ error: "residualLikelihood: must not be above the risk's inherent likelihood" });
    expect(answer[3]).toMatchObject({ error: expect.stringMatching(/^Risk .* not found$/) });
    expect(answer[4]).toMatchObject({ error: expect.stringMatching(/^controlIds: Control .* not found$/) });
    expect(await ok<{ residualLikelihood: { value: number }; residualImpact: { value: number } }>(await send('GET', `/api/v1/risks/${first}`)))
      .toMatchObject({ residualLikelihood: { value: 2 }, residualImpact: { value: 2 } });
    const treatments = await ok<{ id: string; title: string; controls: { id: string }[] }[]>(await send('GET', `/api/v1/risks/${first}/treatments`));
    expect(treatments.map((t) => [t.id, t.title, t.controls.map((c) => c.id)])).toEqual([[idOf(answer[0]), 'Backups', [control]]]);
    const [entry] = await history(`/api/v1/risks/${first}/treatments/${idOf(answer[0])}/history`);
    expect(entry).toMatchObject({ action: 'create', changes: { title: { before: null, after: 'Backups' } } });

    const page = await ok<{ rows: { id: string; riskId: string }[]; total: number }>(await send('GET', `/api/v1/risks/treatments?riskId=${second}`));
    expect(page.rows.map((r) => [r.id, r.riskId])).toEqual([[idOf(answer[2]), second]]);
    expect(page.total).toBe(1);
  });

  test('GET /risks/treatments lists only treatments of risks the reader may read, a page at a time', async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:create': 'own', 'risks:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['risks:read', 'risks:update']);
    const mine = await makeRisk(env, await user.actor());
    const theirs = await makeRisk(env, admin);
    await results(await send('POST', '/api/v1/risks/treatments/batch', { items: [{ riskId: mine, type: 'accept', title: 'Mine' }, { riskId: theirs, type: 'accept', title: 'Theirs' }] }));
    const page = await ok<{ rows: { riskId: string; title: string }[]; total: number; pageSize: number }>(await send('GET', '/api/v1/risks/treatments?pageSize=200', undefined, own));
    expect(page.rows.map((r) => [r.riskId, r.title])).toEqual([[mine, 'Mine']]);
    expect(page.total).toBe(1);
    const refused = await results(await send('POST', '/api/v1/risks/treatments/batch', { items: [{ riskId: theirs, type: 'accept', title: 'Not mine' }] }, own));
    expect(refused[0]).toMatchObject({ error: expect.stringMatching(/not found/) });
  });
});

describe('mappings: POST /compliance/mappings/batch', () => {
  test('maps controls, policies and risks; one already mapped is changed: false; an unreadable module or unknown analysis is refused', async () => {
    const { id: packageId } = await env.ctx.db.transaction((tx) => importPackage(tx, admin, {
      name: unique('Batch framework'), items: [{ code: 'R1', name: 'One' }, { code: 'R2', name: 'Two' }],
    }));
    const analyses = await env.ctx.db.select({ code: complianceItems.code, id: complianceAnalyses.id }).from(complianceAnalyses)
      .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, packageId));
    const r1 = analyses.find((a) => a.code === 'R1')!.id;
    const { id: control } = await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: unique('Mapped control') }));
    const risk = await makeRisk(env, admin);
    const missing = crypto.randomUUID();
    const answer = await results(await send('POST', '/api/v1/compliance/mappings/batch', {
      items: [
        { analysisId: r1, kind: 'controls', id: control },
        { analysisId: r1, kind: 'risks', id: risk },
        { analysisId: r1, kind: 'controls', id: control },
        { analysisId: missing, kind: 'controls', id: control },
        { analysisId: r1, kind: 'projects', id: crypto.randomUUID() },
      ],
    }));
    expect(answer.slice(0, 3)).toEqual([{ id: r1, changed: true }, { id: r1, changed: true }, { id: r1, changed: false }]);
    expect(answer[3]).toMatchObject({ error: `Analysis ${missing} not found` });
    expect(answer[4]).toMatchObject({ error: expect.stringContaining('projects:read') });
    const detail = await ok<{ mappings: { controls: { id: string }[]; risks: { id: string }[] } }>(await send('GET', `/api/v1/compliance/analyses/${r1}`));
    expect(detail.mappings.controls.map((c) => c.id)).toEqual([control]);
    expect(detail.mappings.risks.map((r) => r.id)).toEqual([risk]);
    expect((await history(`/api/v1/compliance/analyses/${r1}/history`)).map((e) => e.action).filter((a) => a.endsWith('.link')).sort()).toEqual(['control.link', 'risk.link']);
    const again = await results(await send('POST', '/api/v1/compliance/mappings/batch', { items: [{ analysisId: r1, kind: 'controls', id: control }] }));
    expect(again).toEqual([{ id: r1, changed: false }]);
  });
});
