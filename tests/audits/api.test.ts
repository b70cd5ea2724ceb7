import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), [
    'audits:read', 'audits:create', 'audits:update', 'audits:delete', 'controls:read', 'controls:create', 'controls:delete',
  ]);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const post = (path: string, body: unknown, secret = token) => send('POST', path, body, secret);
const patch = (path: string, body: unknown, secret = token) => send('PATCH', path, body, secret);
const get = (path: string, secret = token) => send('GET', path, undefined, secret);
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

async function created(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}
const createPlan = (body: Record<string, unknown> = {}, secret = token) =>
  post('/api/v1/audits', { title: unique('Audit plan'), ...body }, secret).then(created);
const createFinding = (auditPlanId: string, body: Record<string, unknown> = {}, secret = token) =>
  post('/api/v1/audit-findings', { auditPlanId, title: unique('Finding'), ...body }, secret).then(created);

type History = { action: string; changes: Record<string, { before: unknown; after: unknown }> }[];

describe('audit plans', () => {
  test('a plan created with blanks is planned and owned by its creator', async () => {
    const id = await createPlan({ title: 'ISO 27001 internal audit 2026', scope: 'ISMS', periodStart: '2026-01-01', periodEnd: '2026-03-31' });
    const plan = await json<Record<string, unknown>>(await get(`/api/v1/audits/${id}`));
    expect(plan).toMatchObject({ title: 'ISO 27001 internal audit 2026', scope: 'ISMS', periodStart: '2026-01-01', periodEnd: '2026-03-31', status: 'planned' });
    expect((plan.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('the period may not end before it starts, on create and on update', async () => {
    const refused = await post('/api/v1/audits', { title: 'Backwards', periodStart: '2026-06-01', periodEnd: '2026-05-31' });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toContain('periodEnd');

    const id = await createPlan({ periodStart: '2026-06-01', periodEnd: '2026-06-30' });
    const moved = await patch(`/api/v1/audits/${id}`, { periodStart: '2026-07-01' });
    expect(moved.status).toBe(400);
    expect(await errorOf(moved)).toContain('periodEnd');

    const unreal = await patch(`/api/v1/audits/${id}`, { periodEnd: '2026-06-31' });
    expect(unreal.status).toBe(400);
    expect(await errorOf(unreal)).toContain('periodEnd');
  });

  test('status changes are in the History', async () => {
    const id = await createPlan();
    const started = await patch(`/api/v1/audits/${id}`, { status: 'in_progress' });
    expect(started.status, await started.clone().text()).toBe(200);
    const history = await json<History>(await get(`/api/v1/audits/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'update', changes: { status: { before: 'planned', after: 'in_progress' } } });
  });
});

describe('audit findings', () => {
  test('a finding is created open and moved by an update, which the History records', async () => {
    const planId = await createPlan();
    const id = await createFinding(planId, { title: 'Leavers keep VPN access', deadline: '2026-09-30' });
    expect(await json<Record<string, unknown>>(await get(`/api/v1/audit-findings/${id}`))).toMatchObject({
      auditPlanId: planId, title: 'Leavers keep VPN access', status: 'open', deadline: '2026-09-30', controlId: null,
    });

    const moved = await patch(`/api/v1/audit-findings/${id}`, { status: 'in_remediation' });
    expect(moved.status, await moved.clone().text()).toBe(200);
    const closed = await patch(`/api/v1/audit-findings/${id}`, { status: 'closed' });
    expect(await json<{ status: string }>(closed)).toMatchObject({ status: 'closed' });

    const history = await json<History>(await get(`/api/v1/audit-findings/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['update', 'update', 'create']);
    expect(history[1].changes.status).toEqual({ before: 'open', after: 'in_remediation' });
  });

  test('a finding created in another status is refused naming status', async () => {
    const planId = await createPlan();
    for (const status of ['in_remediation', 'closed']) {
      const res = await post('/api/v1/audit-findings', { auditPlanId: planId, title: 'Too late', status });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toBe('status: a finding is created open');
    }
    await createFinding(planId, { status: 'open' });
  });

  test('the audit plan is required and must exist', async () => {
    const missing = await post('/api/v1/audit-findings', { title: 'Orphan' });
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toContain('auditPlanId');
    const unknown = await post('/api/v1/audit-findings', { auditPlanId: crypto.randomUUID(), title: 'Orphan' });
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toStartWith('auditPlanId: Audit plan ');

    const id = await createFinding(await createPlan());
    const moved = await patch(`/api/v1/audit-findings/${id}`, { auditPlanId: crypto.randomUUID() });
    expect(moved.status).toBe(404);
    expect(await errorOf(moved)).toContain('auditPlanId');
  });

  test('the control must exist, and a control with findings cannot be deleted', async () => {
    const planId = await createPlan();
    const unknown = await post('/api/v1/audit-findings', { auditPlanId: planId, title: 'No such control', controlId: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toStartWith('controlId: Control ');

    const controlId = await post('/api/v1/controls', { name: unique('Joiner-mover-leaver process') }).then(created);
    const id = await createFinding(planId, { controlId });
    const byControl = await json<{ rows: { id: string }[] }>(await get(`/api/v1/audit-findings?controlId=${controlId}`));
    expect(byControl.rows.map((r) => r.id)).toEqual([id]);

    const refused = await send('DELETE', `/api/v1/controls/${controlId}`);
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('1 audit finding');

    expect((await patch(`/api/v1/audit-findings/${id}`, { controlId: null })).status).toBe(200);
    expect((await send('DELETE', `/api/v1/controls/${controlId}`)).status).toBe(204);
  });

  test('findings list by plan; a plan with findings cannot be deleted', async () => {
    const planId = await createPlan();
    const first = await createFinding(planId, { title: 'First' });
    const second = await createFinding(planId, { title: 'Second' });
    await createFinding(await createPlan());

    const page = await json<{ rows: { id: string }[]; total: number }>(await get(`/api/v1/audit-findings?auditPlanId=${planId}&sort=title`));
    expect(page.rows.map((r) => r.id)).toEqual([first, second]);

    const refused = await send('DELETE', `/api/v1/audits/${planId}`);
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('2 audit findings');

    expect((await send('DELETE', `/api/v1/audit-findings/${first}`)).status).toBe(204);
    expect((await send('DELETE', `/api/v1/audit-findings/${second}`)).status).toBe(204);
    expect((await send('DELETE', `/api/v1/audits/${planId}`)).status).toBe(204);
    expect(await refusalOf(env, async () => get(`/api/v1/audits/${planId}`))).toEqual(refusedWith(404, 'Audit plan <id> not found'));
  });
});

describe('audits at level own', () => {
  test('a user with :own sees only the plans and findings they or their groups own; their token likewise', async () => {
    const user = await makeUser(env, { 'audits:read': 'own', 'audits:create': 'own', 'audits:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['audits:read', 'audits:create', 'audits:update']);
    const myPlan = await createPlan({ title: 'Mine' }, own);
    const theirPlan = await createPlan({ title: 'Theirs' });
    const myFinding = await createFinding(myPlan, {}, own);
    const theirFinding = await createFinding(theirPlan);

    const plans = await json<{ rows: { id: string }[] }>(await get('/api/v1/audits?pageSize=200', own));
    expect(plans.rows.map((r) => r.id)).toEqual([myPlan]);
    const findings = await json<{ rows: { id: string }[] }>(await get('/api/v1/audit-findings?pageSize=200', own));
    expect(findings.rows.map((r) => r.id)).toEqual([myFinding]);
    expect(await refusalOf(env, async () => get(`/api/v1/audits/${theirPlan}`, own))).toEqual(refusedWith(404, 'Audit plan <id> not found', 'no audits:read on Audit plan <id>'));
    expect(await refusalOf(env, async () => get(`/api/v1/audit-findings/${theirFinding}`, own))).toEqual(refusedWith(404, 'Audit finding <id> not found', 'no audits:read on Audit finding <id>'));

    // A plan they cannot read answers like a missing one.
    const intoTheirs = await post('/api/v1/audit-findings', { auditPlanId: theirPlan, title: 'Sneaked in' }, own);
    expect(intoTheirs.status).toBe(404);
    expect(await errorOf(intoTheirs)).toBe(`auditPlanId: Audit plan ${theirPlan} not found`);
  });
});
