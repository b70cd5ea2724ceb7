import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { policyKind } from '../../src/modules/policies/service';
import { createRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let token: string;
/** Someone other than the administrator who requests exceptions, so that the administrator may decide them. */
let requester: { id: string; token: string };
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:read', 'risks:update', 'risks:delete', 'risks:review', 'policies:read', 'policies:update', 'policies:review']);
  const user = await makeUser(env, { 'risks:read': 'all', 'risks:update': 'all', 'risks:review': 'all', 'policies:read': 'all', 'policies:update': 'all', 'apiTokens:create': 'own' });
  requester = { id: user.id, token: await makeToken(env, await user.actor(), ['risks:read', 'risks:update', 'risks:review', 'policies:read', 'policies:update']) };
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
  send('POST', '/api/v1/risk-exceptions', {
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
    const exception = await json<ExceptionView>(await send('GET', `/api/v1/risk-exceptions/${id}`));
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
    const missing = await send('POST', '/api/v1/risk-exceptions', { parentId: riskId, title: 'No expiry', description: 'Open-ended' });
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toContain('expiresAt');
  });

  test('requesting needs risks:update on a risk the caller can read: 403 without it, 404 for an unreadable or missing risk', async () => {
    const riskId = await makeRisk(env, admin);
    const readOnly = await makeToken(env, admin, ['risks:read']);
    expect(await refusalOf(env, async () => request(riskId, {}, readOnly))).toEqual(refusedWith(403, 'forbidden', 'token scope risks:update missing'));
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['risks:read', 'risks:update']);
    expect(await refusalOf(env, async () => request(riskId, {}, own))).toEqual(refusedWith(404, 'Risk <id> not found', 'no risks:read on Risk <id>'));
    expect(await refusalOf(env, async () => request(crypto.randomUUID()))).toEqual(refusedWith(404, 'Risk <id> not found'));
    const mine = await makeRisk(env, admin, { ownerId: user.id });
    expect((await request(mine, {}, own)).status).toBe(201);
  });

  test('approving needs risks:review, records the approver and time, and happens once; a decided exception is not changed', async () => {
    const id = await created(await request(await makeRisk(env, admin), {}, requester.token));
    const noReview = await makeToken(env, admin, ['risks:read', 'risks:update']);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/risk-exceptions/${id}/decision`, { decision: 'approved' }, noReview))).toEqual(refusedWith(403, 'forbidden', 'token scope risks:review missing'));
    const decided = await send('POST', `/api/v1/risk-exceptions/${id}/decision`, { decision: 'approved', note: 'compensating controls in place' });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const exception = await json<ExceptionView>(decided);
    expect(exception).toMatchObject({ status: 'approved', approverId: admin.userId!, decisionNote: 'compensating controls in place' });
    expect(exception.decidedAt).toBeString();
    expect((await send('POST', `/api/v1/risk-exceptions/${id}/decision`, { decision: 'rejected' })).status).toBe(409);
    expect((await send('PATCH', `/api/v1/risk-exceptions/${id}`, { expiresAt: '2100-01-01' }, requester.token)).status).toBe(409);
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `/api/v1/risk-exceptions/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['approve', 'create']);
    expect(history[0].changes.status).toEqual({ before: 'requested', after: 'approved' });
  });

  test('a reviewer at level own decides only on exceptions of risks they own, whoever requested them', async () => {
    const allReader = await makeUser(env, { 'risks:read': 'all', 'risks:review': 'own', 'apiTokens:create': 'own' });
    const theirs = await created(await request(await makeRisk(env, admin)));
    const allReaderToken = await makeToken(env, await allReader.actor(), ['risks:read', 'risks:review']);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/risk-exceptions/${theirs}/decision`, { decision: 'rejected' }, allReaderToken))).toEqual(refusedWith(403, 'forbidden', 'risks:review is at level own and Risk <id> is not owned'));
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:review': 'own', 'apiTokens:create': 'own' });
    const reviewer = await makeToken(env, await user.actor(), ['risks:read', 'risks:review']);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/risk-exceptions/${theirs}/decision`, { decision: 'rejected' }, reviewer))).toEqual(refusedWith(404, 'Risk exception <id> not found', 'no risks:read on Risk exception <id>'));
    const mine = await created(await request(await makeRisk(env, admin, { ownerId: user.id })));
    const listed = await json<Page>(await send('GET', '/api/v1/risk-exceptions?status=requested&pageSize=200', undefined, reviewer));
    expect(listed.rows.map((r) => r.id)).toEqual([mine]);
    const rejected = await send('POST', `/api/v1/risk-exceptions/${mine}/decision`, { decision: 'rejected' }, reviewer);
    expect(rejected.status, await rejected.clone().text()).toBe(200);
    expect((await json<ExceptionView>(rejected)).status).toBe('rejected');
  });

  test('the list shows expiry and filters by expired and status', async () => {
    const riskId = await makeRisk(env, admin);
    const marker = unique('Expiry');
    const past = await created(await request(riskId, { title: `${marker} past`, expiresAt: '2020-01-31' }));
    const future = await created(await request(riskId, { title: `${marker} future` }, requester.token));
    await send('POST', `/api/v1/risk-exceptions/${future}/decision`, { decision: 'approved' });
    const expired = await json<Page>(await send('GET', `/api/v1/risk-exceptions?q=${marker}&expired=true`));
    expect(expired.rows.map((r) => [r.id, r.expired])).toEqual([[past, true]]);
    const current = await json<Page>(await send('GET', `/api/v1/risk-exceptions?q=${marker}&expired=false&status=approved`));
    expect(current.rows.map((r) => r.id)).toEqual([future]);
    const byRisk = await json<Page>(await send('GET', `/api/v1/risk-exceptions?parentId=${riskId}&sort=expiresAt`));
    expect(byRisk.rows.map((r) => r.id)).toEqual([past, future]);
  });

  test('the list sorts by status in its order (requested, approved, rejected) and by owner and approver by name, both ways', async () => {
    const riskId = await makeRisk(env, admin);
    const marker = unique('Sorted');
    const people = await Promise.all(['zoe', 'Adam', 'mia'].map((name) => makeUser(env, { 'risks:read': 'all' }, `${marker} ${name}`)));
    const rejected = await created(await request(riskId, { title: `${marker} 1`, ownerId: people[0].id }, requester.token));
    const approved = await created(await request(riskId, { title: `${marker} 2`, ownerId: people[1].id }, requester.token));
    const requested = await created(await request(riskId, { title: `${marker} 3`, ownerId: people[2].id }, requester.token));
    await send('POST', `/api/v1/risk-exceptions/${rejected}/decision`, { decision: 'rejected' });
    await send('POST', `/api/v1/risk-exceptions/${approved}/decision`, { decision: 'approved' });
    const ids = async (sort: string) => (await json<Page>(await send('GET', `/api/v1/risk-exceptions?q=${marker}&sort=${sort}`))).rows.map((r) => r.id);
    expect(await ids('status')).toEqual([requested, approved, rejected]);
    expect(await ids('-status')).toEqual([rejected, approved, requested]);
    // Owners by name whatever the case: Adam, mia, zoe.
    expect(await ids('owner')).toEqual([approved, requested, rejected]);
    expect(await ids('-owner')).toEqual([rejected, requested, approved]);
    // Decided ones name their approver; the one still requested has none and comes last ascending, first descending.
    expect((await ids('approver')).at(-1)).toBe(requested);
    expect((await ids('-approver'))[0]).toBe(requested);
    const refused = await send('GET', '/api/v1/risk-exceptions?sort=parent');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('approver');
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
    const page = await json<Page>(await send('GET', '/api/v1/risk-exceptions?pageSize=200', undefined, own));
    expect(page.rows.map((r) => r.id).sort()).toEqual([mine, onMyRisk, ownedByMyGroup].sort());
    expect(await refusalOf(env, async () => send('GET', `/api/v1/risk-exceptions/${theirs}`, undefined, own))).toEqual(refusedWith(404, 'Risk exception <id> not found', 'no risks:read on Risk exception <id>'));
    expect(await refusalOf(env, async () => send('PATCH', `/api/v1/risk-exceptions/${onMyRisk}`, { title: 'Taken over' }, own))).toEqual(refusedWith(403, 'forbidden', 'risks:update is at level own and Risk exception <id> is not owned'));
    expect(await refusalOf(env, async () => request(myRisk, { ownerId: admin.userId }, own))).toEqual(refusedWith(403, 'forbidden', 'risks:update is at level own: the record must be owned by you or one of your groups'));
    expect((await send('DELETE', `/api/v1/risk-exceptions/${mine}`, undefined, own)).status).toBe(204);
  });

  test('changing a requested exception is in its History', async () => {
    const id = await created(await request(await makeRisk(env, admin)));
    const patched = await send('PATCH', `/api/v1/risk-exceptions/${id}`, { expiresAt: '2030-06-30' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/risk-exceptions/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'update', changes: { expiresAt: { before: '2099-12-31', after: '2030-06-30' } } });
  });
});

describe('policy exceptions', () => {
  test('a policy exception uses the policies rights and is not listed among risk exceptions', async () => {
    const { id: policyId } = await env.ctx.db.transaction((tx) => createRecord(tx, policyKind, admin, { title: unique('Password policy') }));
    const res = await send('POST', '/api/v1/policy-exceptions', { parentId: policyId, title: 'Shared kiosk account', description: 'Front desk', expiresAt: '2099-01-01' }, requester.token);
    const id = await created(res);
    const riskOnly = await makeToken(env, admin, ['risks:read', 'risks:review']);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/policy-exceptions/${id}/decision`, { decision: 'approved' }, riskOnly))).toEqual(refusedWith(403, 'forbidden', 'token scope policies:review missing'));
    expect(await refusalOf(env, async () => send('GET', `/api/v1/risk-exceptions/${id}`))).toEqual(refusedWith(404, 'Risk exception <id> not found'));
    const decided = await send('POST', `/api/v1/policy-exceptions/${id}/decision`, { decision: 'approved' });
    expect(decided.status, await decided.clone().text()).toBe(200);
    expect((await json<ExceptionView>(decided)).parentId).toBe(policyId);
  });
});

describe('segregation of duties', () => {
  const lastAudit = async (action: string) => (await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.seq)).limit(1))[0];
  const decide = (id: string, body: Record<string, unknown>, secret = token) => send('POST', `/api/v1/risk-exceptions/${id}/decision`, body, secret);

  test('the requester may not decide their own exception, even holding risks:review; the reason is audited and nothing changes', async () => {
    const id = await created(await request(await makeRisk(env, admin), {}, requester.token));
    for (const decision of ['approved', 'rejected']) {
      const refused = await decide(id, { decision, note: 'looks fine to me' }, requester.token);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toStartWith('segregation of duties: ');
      expect((await lastAudit('permission.denied')).details).toMatchObject({
        reason: `segregation of duties: Risk exception ${id} was requested by you, so someone else decides it (an administrator may override, with a note)`,
      });
    }
    // Only an administrator may override: a reviewer's own override is refused too.
    expect((await decide(id, { decision: 'approved', override: true, note: 'urgent' }, requester.token)).status).toBe(403);
    expect((await lastAudit('permission.denied')).details).toMatchObject({ reason: expect.stringContaining('needs every right at level all') });
    expect((await json<ExceptionView>(await send('GET', `/api/v1/risk-exceptions/${id}`))).status).toBe('requested');
    expect((await decide(id, { decision: 'approved', note: 'second pair of eyes' })).status).toBe(200);
  });

  test('naming oneself the approver on request or later is refused, naming the field', async () => {
    const riskId = await makeRisk(env, admin);
    const self = await request(riskId, { approverId: requester.id }, requester.token);
    expect(self.status).toBe(400);
    expect(await errorOf(self)).toBe('approverId: must be someone other than the requester: nobody decides their own exception');
    const id = await created(await request(riskId, { approverId: admin.userId }, requester.token));
    const patched = await send('PATCH', `/api/v1/risk-exceptions/${id}`, { approverId: requester.id });
    expect(await errorOf(patched)).toBe('approverId: must be someone other than the requester: nobody decides their own exception');
  });

  test('an administrator may decide their own request only explicitly: override with a note, recorded in the Audit Log and History', async () => {
    const id = await created(await request(await makeRisk(env, admin)));
    expect((await decide(id, { decision: 'approved' })).status).toBe(403);
    const noNote = await decide(id, { decision: 'approved', override: true });
    expect(noNote.status).toBe(400);
    expect(await errorOf(noNote)).toBe('note: say why you decide an exception you requested yourself');
    const overridden = await decide(id, { decision: 'approved', override: true, note: 'auditor on leave; approved for the audit window' });
    expect(overridden.status, await overridden.clone().text()).toBe(200);
    expect(await json<ExceptionView>(overridden)).toMatchObject({ status: 'approved', approverId: admin.userId!, decisionNote: 'auditor on leave; approved for the audit window' });
    const [entry] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, id), eq(auditLog.action, 'approve')));
    expect(entry.details).toMatchObject({ segregationOverride: { requestedBy: admin.userId, decidedBy: admin.userId, reason: 'auditor on leave; approved for the audit window' } });
    const history = await json<{ action: string }[]>(await send('GET', `/api/v1/risk-exceptions/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['approve', 'create']);
    // An override is for one's own request only: on someone else's it is a mistake, not a louder approval.
    const theirs = await created(await request(await makeRisk(env, admin), {}, requester.token));
    const needless = await decide(theirs, { decision: 'approved', override: true, note: 'x' });
    expect(await errorOf(needless)).toBe('override: only for deciding an exception you requested yourself');
  });
});
