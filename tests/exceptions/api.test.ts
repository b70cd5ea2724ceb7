import { beforeAll, describe, expect, test } from 'bun:test';
import { policyKind } from '../../src/modules/policies/service';
import { createRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:read', 'risks:update', 'risks:delete', 'risks:review', 'policies:read', 'policies:update', 'policies:review']);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

interface ExceptionView {
  id: string;
  status: string;
  parentId: string;
  parent: { title: string };
  expired: boolean;
  approverId: string | null;
  decidedAt: string | null;
  decisionNote: string;
  owner: { id: string } | null;
}
interface Page { rows: ExceptionView[]; total: number }

const request = (parentId: string, extra: Record<string, unknown> = {}, secret = token) =>
  send('POST', '/api/v1/risks/exceptions', {
    parentId, title: unique('Exception'), description: 'Legacy system cannot enforce MFA', expiresAt: '2099-12-31', ...extra,
  }, secret);
const created = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
};

describe('risk exceptions', () => {
  test('an exception arrives as requested, owned by the requester, showing its risk and expiry', async () => {
    const riskId = await makeRisk(env, admin, { title: 'Unpatched mainframe' });
    const id = await created(await request(riskId));
    const exception = await json<ExceptionView>(await send('GET', `/api/v1/risks/exceptions/${id}`));
    expect(exception).toMatchObject({ status: 'requested', parentId: riskId, parent: { title: 'Unpatched mainframe' }, expired: false, decidedAt: null });
    expect(exception.owner?.id).toBe(admin.userId!);
  });

  test('any status other than requested on creation is refused naming the field, as is an impossible expiry date', async () => {
    const riskId = await makeRisk(env, admin);
    const approved = await request(riskId, { status: 'approved' });
    expect(approved.status).toBe(400);
    expect(await errorOf(approved)).toContain('status');
    expect(await created(await request(riskId, { status: 'requested' }))).toBeString();
    const badDate = await request(riskId, { expiresAt: '2026-02-30' });
    expect(badDate.status).toBe(400);
    expect(await errorOf(badDate)).toContain('expiresAt');
    const missing = await send('POST', '/api/v1/risks/exceptions', { parentId: riskId, title: 'No expiry', description: 'Open-ended' });
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toContain('expiresAt');
  });

  test('requesting needs risks:update on a risk the caller can read: 403 without it, 404 for an unreadable or missing risk', async () => {
    const riskId = await makeRisk(env, admin);
    const readOnly = await makeToken(env, admin, ['risks:read']);
    expect((await request(riskId, {}, readOnly)).status).toBe(403);
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['risks:read', 'risks:update']);
    expect((await request(riskId, {}, own)).status).toBe(404);
    expect((await request(crypto.randomUUID())).status).toBe(404);
    const mine = await makeRisk(env, admin, { ownerId: user.id });
    expect((await request(mine, {}, own)).status).toBe(201);
  });

  test('approving needs risks:review, records the approver and time, and happens once; a decided exception is not changed', async () => {
    const id = await created(await request(await makeRisk(env, admin)));
    const noReview = await makeToken(env, admin, ['risks:read', 'risks:update']);
    expect((await send('POST', `/api/v1/risks/exceptions/${id}/decision`, { decision: 'approved' }, noReview)).status).toBe(403);
    const decided = await send('POST', `/api/v1/risks/exceptions/${id}/decision`, { decision: 'approved', note: 'compensating controls in place' });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const exception = await json<ExceptionView>(decided);
    expect(exception).toMatchObject({ status: 'approved', approverId: admin.userId!, decisionNote: 'compensating controls in place' });
    expect(exception.decidedAt).toBeString();
    expect((await send('POST', `/api/v1/risks/exceptions/${id}/decision`, { decision: 'rejected' })).status).toBe(409);
    expect((await send('PATCH', `/api/v1/risks/exceptions/${id}`, { expiresAt: '2100-01-01' })).status).toBe(409);
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `/api/v1/risks/exceptions/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['approve', 'create']);
    expect(history[0].changes.status).toEqual({ before: 'requested', after: 'approved' });
  });

  test('a reviewer at level own decides only on exceptions of risks they own, whoever requested them', async () => {
    const allReader = await makeUser(env, { 'risks:read': 'all', 'risks:review': 'own', 'apiTokens:create': 'own' });
    const theirs = await created(await request(await makeRisk(env, admin)));
    const allReaderToken = await makeToken(env, await allReader.actor(), ['risks:read', 'risks:review']);
    expect((await send('POST', `/api/v1/risks/exceptions/${theirs}/decision`, { decision: 'rejected' }, allReaderToken)).status).toBe(403);
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:review': 'own', 'apiTokens:create': 'own' });
    const reviewer = await makeToken(env, await user.actor(), ['risks:read', 'risks:review']);
    expect((await send('POST', `/api/v1/risks/exceptions/${theirs}/decision`, { decision: 'rejected' }, reviewer)).status).toBe(404);
    const mine = await created(await request(await makeRisk(env, admin, { ownerId: user.id })));
    const listed = await json<Page>(await send('GET', '/api/v1/risks/exceptions?status=requested&pageSize=200', undefined, reviewer));
    expect(listed.rows.map((r) => r.id)).toEqual([mine]);
    const rejected = await send('POST', `/api/v1/risks/exceptions/${mine}/decision`, { decision: 'rejected' }, reviewer);
    expect(rejected.status, await rejected.clone().text()).toBe(200);
    expect((await json<ExceptionView>(rejected)).status).toBe('rejected');
  });

  test('the list shows expiry and filters by expired and status', async () => {
    const riskId = await makeRisk(env, admin);
    const marker = unique('Expiry');
    const past = await created(await request(riskId, { title: `${marker} past`, expiresAt: '2020-01-31' }));
    const future = await created(await request(riskId, { title: `${marker} future` }));
    await send('POST', `/api/v1/risks/exceptions/${future}/decision`, { decision: 'approved' });
    const expired = await json<Page>(await send('GET', `/api/v1/risks/exceptions?q=${marker}&expired=true`));
    expect(expired.rows.map((r) => [r.id, r.expired])).toEqual([[past, true]]);
    const current = await json<Page>(await send('GET', `/api/v1/risks/exceptions?q=${marker}&expired=false&status=approved`));
    expect(current.rows.map((r) => r.id)).toEqual([future]);
    const byRisk = await json<Page>(await send('GET', `/api/v1/risks/exceptions?parentId=${riskId}&sort=expiresAt`));
    expect(byRisk.rows.map((r) => r.id)).toEqual([past, future]);
  });

  test('at level own, a user sees exceptions they or their groups own and those on risks they own, and changes only their own', async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:update': 'own', 'risks:delete': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['risks:read', 'risks:update', 'risks:delete']);
    const myRisk = await makeRisk(env, admin, { ownerId: user.id });
    const otherRisk = await makeRisk(env, admin);
    const mine = await created(await request(myRisk, { ownerId: null, ownerGroupId: user.groupId }, own));
    const onMyRisk = await created(await request(myRisk));
    const ownedByMyGroup = await created(await request(otherRisk, { ownerId: null, ownerGroupId: user.groupId }));
    const theirs = await created(await request(otherRisk));
    const page = await json<Page>(await send('GET', '/api/v1/risks/exceptions?pageSize=200', undefined, own));
    expect(page.rows.map((r) => r.id).sort()).toEqual([mine, onMyRisk, ownedByMyGroup].sort());
    expect((await send('GET', `/api/v1/risks/exceptions/${theirs}`, undefined, own)).status).toBe(404);
    expect((await send('PATCH', `/api/v1/risks/exceptions/${onMyRisk}`, { title: 'Taken over' }, own)).status).toBe(403);
    expect((await request(myRisk, { ownerId: admin.userId }, own)).status).toBe(403);
    expect((await send('DELETE', `/api/v1/risks/exceptions/${mine}`, undefined, own)).status).toBe(204);
  });

  test('changing a requested exception is in its History', async () => {
    const id = await created(await request(await makeRisk(env, admin)));
    const patched = await send('PATCH', `/api/v1/risks/exceptions/${id}`, { expiresAt: '2030-06-30' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/risks/exceptions/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'update', changes: { expiresAt: { before: '2099-12-31', after: '2030-06-30' } } });
  });
});

describe('policy exceptions', () => {
  test('a policy exception uses the policies rights and is not listed among risk exceptions', async () => {
    const { id: policyId } = await env.ctx.db.transaction((tx) => createRecord(tx, policyKind, admin, { title: unique('Password policy') }));
    const res = await send('POST', '/api/v1/policies/exceptions', { parentId: policyId, title: 'Shared kiosk account', description: 'Front desk', expiresAt: '2099-01-01' });
    const id = await created(res);
    const riskOnly = await makeToken(env, admin, ['risks:read', 'risks:review']);
    expect((await send('POST', `/api/v1/policies/exceptions/${id}/decision`, { decision: 'approved' }, riskOnly)).status).toBe(403);
    expect((await send('GET', `/api/v1/risks/exceptions/${id}`)).status).toBe(404);
    const decided = await send('POST', `/api/v1/policies/exceptions/${id}/decision`, { decision: 'approved' });
    expect(decided.status, await decided.clone().text()).toBe(200);
    expect((await json<ExceptionView>(decided)).parentId).toBe(policyId);
  });
});
