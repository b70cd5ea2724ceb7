import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, asc, eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import type { RiskScale, RiskScaleView } from '../../src/modules/risks/schema';
import type { Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeRisk, makeToken, unique } from '../helpers/factories';

let env: TestEnv;
let adminToken: string;

const ALL_SETTINGS: Permission[] = ['risks:read', 'risks:create', 'settings:create', 'settings:update'];

beforeAll(async () => {
  env = await testEnv();
  adminToken = await makeToken(env, await adminActor(env), ALL_SETTINGS);
});

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

async function auditEntries(target: TestEnv, recordType: string, recordId: string) {
  return target.ctx.db.select().from(auditLog)
    .where(and(eq(auditLog.recordType, recordType), eq(auditLog.recordId, recordId))).orderBy(asc(auditLog.seq));
}

async function historyOf(target: TestEnv, token: string, path: string) {
  const res = await target.request(path, bearer(token));
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: { action: string; via: string; changes: Record<string, { before: unknown; after: unknown }> }[] }).data;
}

async function createClassification(name: string) {
  const res = await env.request('/api/v1/risk-classifications', bearer(adminToken, json('POST', { name })));
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

describe('risk settings: who may call what', () => {
  const routes: { method: string; path: string | (() => Promise<string>); scope: Permission; body?: () => unknown; ok: number }[] = [
    { method: 'GET', path: '/api/v1/risk-classifications', scope: 'risks:read', ok: 200 },
    { method: 'POST', path: '/api/v1/risk-classifications', scope: 'settings:create', body: () => ({ name: unique('Class') }), ok: 201 },
    { method: 'PATCH', path: async () => `/api/v1/risk-classifications/${await createClassification(unique('Patchable'))}`, scope: 'settings:update', body: () => ({ name: unique('Renamed') }), ok: 200 },
    { method: 'DELETE', path: async () => `/api/v1/risk-classifications/${await createClassification(unique('Deletable'))}`, scope: 'settings:update', ok: 204 },
    { method: 'GET', path: '/api/v1/risk-scale', scope: 'risks:read', ok: 200 },
    { method: 'PUT', path: '/api/v1/risk-scale', scope: 'settings:update', body: () => 'current-scale', ok: 200 },
  ];

  for (const route of routes) {
    test(`${route.method} ${typeof route.path === 'string' ? route.path : '/api/v1/risk-classifications/:id'} needs ${route.scope}`, async () => {
      const path = typeof route.path === 'string' ? route.path : await route.path();
      let body: unknown = route.body?.();
      if (body === 'current-scale') {
        const current = await env.request('/api/v1/risk-scale', bearer(adminToken));
        body = ((await current.json()) as { data: RiskScaleView }).data;
      }
      const init = (token?: string): RequestInit => {
        const base: RequestInit = { method: route.method, ...(body ? { body: JSON.stringify(body) } : {}) };
        return token ? bearer(token, base) : { ...base, headers: body ? { 'content-type': 'application/json' } : {} };
      };
      const admin = await adminActor(env);
      const wrongScope: Permission = route.scope === 'risks:read' ? 'controls:read' : 'risks:read';
      const noToken = await env.request(path, init());
      expect(noToken.status, `${route.method} ${path} without a token`).toBe(401);
      const wrong = await env.request(path, init(await makeToken(env, admin, [wrongScope])));
      expect(wrong.status, `${route.method} ${path} with ${wrongScope}`).toBe(403);
      expect(((await wrong.json()) as { error: string }).error).toBe('forbidden');
      const right = await env.request(path, init(await makeToken(env, admin, [route.scope])));
      expect(right.status, `${route.method} ${path} with ${route.scope}: ${await right.clone().text()}`).toBe(route.ok);
    });
  }
});

describe('risk classifications', () => {
  test('a new classification is listed, audited and has a History entry', async () => {
    const name = unique('Supply chain');
    const id = await createClassification(name);
    const list = await env.request(`/api/v1/risk-classifications?q=${encodeURIComponent(name)}`, bearer(adminToken));
    const { data } = (await list.json()) as { data: { rows: { id: string; name: string; riskCount: number }[]; total: number } };
    expect(data.rows).toEqual([{ id, name, description: '', riskCount: 0 } as (typeof data.rows)[number]]);
    expect(data.total).toBe(1);
    const history = await historyOf(env, adminToken, `/api/v1/risk-classifications/${id}/history`);
    expect(history.map((h) => h.action)).toEqual(['create']);
    expect(history[0].via).toBe('api');
    const audit = await auditEntries(env, 'risk_classification', id);
    expect(audit.map((a) => [a.module, a.action, a.actorTokenId !== null])).toEqual([['settings', 'create', true]]);
  });

  test('a name already taken, ignoring case and spacing, is a 409; a blank name is a 400 on the name field', async () => {
    const name = unique('Vendor risk');
    await createClassification(name);
    const clash = await env.request('/api/v1/risk-classifications', bearer(adminToken, json('POST', { name: `  ${name.toUpperCase()} ` })));
    expect(clash.status, await clash.clone().text()).toBe(409);
    expect(((await clash.json()) as { error: string }).error).toContain(name);
    const blank = await env.request('/api/v1/risk-classifications', bearer(adminToken, json('POST', { name: '   ' })));
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { problems: { field: string }[] }).problems.map((p) => p.field)).toEqual(['name']);
  });

  test('renaming records the old and new name in History', async () => {
    const id = await createClassification(unique('Old name'));
    const newName = unique('New name');
    const res = await env.request(`/api/v1/risk-classifications/${id}`, bearer(adminToken, json('PATCH', { name: newName, description: 'Why it exists' })));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { data: { name: string; description: string } }).data).toMatchObject({ name: newName, description: 'Why it exists' });
    const [latest] = await historyOf(env, adminToken, `/api/v1/risk-classifications/${id}/history`);
    expect(latest.action).toBe('update');
    expect(latest.changes.name.after).toBe(newName);
    expect(latest.changes.description).toEqual({ before: '', after: 'Why it exists' });
  });

  test('a classification in use cannot be deleted: 409 naming how many risks use it', async () => {
    const admin = await adminActor(env);
    const id = await createClassification(unique('In use'));
    await makeRisk(env, admin, { classificationId: id });
    await makeRisk(env, admin, { classificationId: id });
    const res = await env.request(`/api/v1/risk-classifications/${id}`, bearer(adminToken, { method: 'DELETE' }));
    expect(res.status, await res.clone().text()).toBe(409);
    expect(((await res.json()) as { error: string }).error).toContain('used by 2 risks');
    const still = await env.request(`/api/v1/risk-classifications/${id}`, bearer(adminToken));
    expect(((await still.json()) as { data: { riskCount: number } }).data.riskCount).toBe(2);
  });

  test('deleting an unused classification is audited; a second delete is a 404', async () => {
    const id = await createClassification(unique('Short-lived'));
    const res = await env.request(`/api/v1/risk-classifications/${id}`, bearer(adminToken, { method: 'DELETE' }));
    expect(res.status).toBe(204);
    expect((await auditEntries(env, 'risk_classification', id)).map((a) => a.action)).toEqual(['create', 'delete']);
    const again = await env.request(`/api/v1/risk-classifications/${id}`, bearer(adminToken, { method: 'DELETE' }));
    expect(again.status).toBe(404);
  });
});

// ---------------------------------------------------------------- the scale

async function readScale(): Promise<RiskScaleView> {
  const res = await env.request('/api/v1/risk-scale', bearer(adminToken));
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: RiskScaleView }).data;
}

const putScale = (scale: RiskScale) => env.request('/api/v1/risk-scale', bearer(adminToken, json('PUT', scale)));

/** A full n×m scale whose score is likelihood × impact, with the given bands. */
function productScale(likelihood: string[], impact: string[], bands: RiskScale['bands']): RiskScale {
  return {
    likelihood: likelihood.map((name, i) => ({ value: i + 1, name })),
    impact: impact.map((name, i) => ({ value: i + 1, name })),
    cells: likelihood.flatMap((_, l) => impact.map((__, m) => ({ likelihood: l + 1, impact: m + 1, score: (l + 1) * (m + 1) }))),
    bands,
  };
}

/** The scale is shared by every test file in the process: these tests put back what they found. */
describe('risk scale', () => {
  let original: RiskScaleView;
  beforeAll(async () => {
    original = await readScale();
  });
  afterAll(async () => {
    const res = await putScale(original);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  test('the default scale is 5×5 with a cell for every pair and four bands', async () => {
    const scale = await readScale();
    expect(scale.likelihood.map((l) => l.name)).toEqual(['Rare', 'Unlikely', 'Possible', 'Likely', 'Almost certain']);
    expect(scale.impact).toHaveLength(5);
    expect(scale.cells).toHaveLength(25);
    expect(scale.bands.map((b) => [b.name, b.minScore, b.maxScore])).toEqual([['Low', 1, 4], ['Medium', 5, 9], ['High', 10, 16], ['Critical', 17, 25]]);
  });

  test('changing a cell changes the score of risks rated on it, and the change is audited with History', async () => {
    const admin = await adminActor(env);
    const riskId = await makeRisk(env, admin, { classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 2 });
    const scale = await readScale();
    const cell = scale.cells.find((c) => c.likelihood === 2 && c.impact === 2)!;
    cell.score = 12;
    const res = await putScale(scale);
    expect(res.status, await res.clone().text()).toBe(200);
    const risk = await env.request(`/api/v1/risks/${riskId}`, bearer(adminToken));
    expect(((await risk.json()) as { data: { inherentScore: number; inherentBand: { name: string } } }).data)
      .toMatchObject({ inherentScore: 12, inherentBand: { name: 'High' } });
    const [latest] = await historyOf(env, adminToken, '/api/v1/risk-scale/history');
    expect(latest.action).toBe('update');
    expect(Object.keys(latest.changes)).toEqual(['cells']);
    expect((await auditEntries(env, 'risk_scale', 'default')).at(-1)).toMatchObject({ module: 'settings', action: 'update', via: 'api' });
  });

  test('every broken rule is reported at once: repeated values and names, missing cells, bands reversed or overlapping', async () => {
    const scale = productScale(['Low', 'High'], ['Small', 'Large'], [
      { name: 'Green', minScore: 1, maxScore: 2 },
      { name: 'Amber', minScore: 2, maxScore: 3 },
      { name: 'Red', minScore: 9, maxScore: 4 },
    ]);
    scale.likelihood.push({ value: 2, name: 'low' });
    scale.impact[1].name = 'small';
    scale.cells = scale.cells.filter((c) => !(c.likelihood === 2 && c.impact === 2));
    const before = await readScale();
    const res = await putScale(scale);
    expect(res.status).toBe(400);
    const problems = ((await res.json()) as { problems: { field: string; message: string }[] }).problems;
    expect(problems).toContainEqual({ field: 'likelihood.2.value', message: 'repeats value 2' });
    expect(problems).toContainEqual({ field: 'likelihood.2.name', message: 'repeats name "low"' });
    expect(problems).toContainEqual({ field: 'impact.1.name', message: 'repeats name "small"' });
    expect(problems).toContainEqual({ field: 'cells', message: 'no score for likelihood 2 and impact 2' });
    expect(problems).toContainEqual({ field: 'bands.1.minScore', message: 'overlaps band "Green" (1 to 2)' });
    expect(problems).toContainEqual({ field: 'bands.2.maxScore', message: 'must not be below minScore' });
    expect(await readScale()).toEqual(before);
  });

  test('a cell naming a level that does not exist is refused', async () => {
    const scale = productScale(['A'], ['B'], []);
    scale.cells.push({ likelihood: 7, impact: 1, score: 3 });
    const res = await putScale(scale);
    expect(res.status).toBe(400);
    const problems = ((await res.json()) as { problems: { field: string }[] }).problems;
    expect(problems.map((p) => p.field)).toEqual(['cells.1.likelihood']);
  });

  test('levels still used by risks cannot be removed: 409 naming the count, and nothing changes', async () => {
    const admin = await adminActor(env);
    await makeRisk(env, admin, { classificationId: await classificationId(env), inherentLikelihood: 5, inherentImpact: 5 });
    await makeRisk(env, admin, { classificationId: await classificationId(env), inherentLikelihood: 5, inherentImpact: 4, residualLikelihood: 4, residualImpact: 4 });
    const before = await readScale();
    const usage = await env.ctx.database.raw<{ n: number }>('select count(*)::int as n from risks where inherent_likelihood = 5 or residual_likelihood = 5');
    const res = await putScale(productScale(['1', '2', '3', '4'], ['1', '2', '3', '4', '5'], [{ name: 'All', minScore: 0, maxScore: 100 }]));
    expect(res.status, await res.clone().text()).toBe(409);
    expect(((await res.json()) as { error: string }).error).toContain(`likelihood level 5 "Almost certain" is used by ${usage[0].n} risks`);
    expect(await readScale()).toEqual(before);
  });

  test('levels can swap names, an unused level can be added and removed, and bands may leave gaps', async () => {
    const before = await readScale();
    const swapped = productScale(
      ['Unlikely', 'Rare', 'Possible', 'Likely', 'Almost certain', 'Certain'],
      ['Insignificant', 'Minor', 'Moderate', 'Major', 'Severe'],
      [{ name: 'Low', minScore: 1, maxScore: 5, color: '#00aa00' }, { name: 'High', minScore: 10, maxScore: 30 }],
    );
    const res = await putScale(swapped);
    expect(res.status, await res.clone().text()).toBe(200);
    const after = await readScale();
    expect(after.likelihood.map((l) => l.name)).toEqual(['Unlikely', 'Rare', 'Possible', 'Likely', 'Almost certain', 'Certain']);
    expect(after.cells).toHaveLength(30);
    expect(after.bands).toEqual([
      { name: 'Low', minScore: 1, maxScore: 5, color: '#00aa00' },
      { name: 'High', minScore: 10, maxScore: 30, color: '#888888' },
    ]);
    const restore = await putScale(before);
    expect(restore.status, await restore.clone().text()).toBe(200);
    expect(await readScale()).toEqual(before);
  });
});
