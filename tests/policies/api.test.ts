import { beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { auditLog, policyVersions } from '../../db/schema';
import { savePolicySettings } from '../../src/modules/policies/settings-service';
import type { Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

const ALL_POLICY_SCOPES: Permission[] = ['policies:read', 'policies:create', 'policies:update', 'policies:delete', 'policies:review'];

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ALL_POLICY_SCOPES);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const post = (path: string, body?: unknown, secret = token) => send('POST', path, body, secret);
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

async function createPolicy(fields: Record<string, unknown> = {}, secret = token): Promise<string> {
  const res = await post('/api/v1/policies', { title: 'Acceptable use', ...fields }, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

async function publishedPolicy(content = '# Acceptable use\n\nBe kind to the laptops.'): Promise<string> {
  const id = await createPolicy();
  expect((await send('PUT', `/api/v1/policies/${id}/content`, { content })).status).toBe(200);
  expect((await post(`/api/v1/policies/${id}/publish`)).status).toBe(201);
  return id;
}

const setOutsideApprovals = async (on: boolean) => {
  const admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => savePolicySettings(tx, admin, { allowOutsideApprovals: on }));
};

describe('policy fields', () => {
  test('a blank review frequency gives 12 months; a new policy is a draft owned by its creator', async () => {
    const id = await createPolicy({ description: 'Laptops and phones' });
    const policy = await json<Record<string, unknown>>(await send('GET', `/api/v1/policies/${id}`));
    expect(policy).toMatchObject({ title: 'Acceptable use', reviewFrequencyMonths: 12, status: 'draft', currentVersion: null, content: '' });
    expect((policy.owner as { email: string }).email).toBe('admin@test.example');
    const nulled = await createPolicy({ reviewFrequencyMonths: null });
    expect((await json<{ reviewFrequencyMonths: number }>(await send('GET', `/api/v1/policies/${nulled}`))).reviewFrequencyMonths).toBe(12);
  });

  test('review frequency 0 and 121 are refused naming the field; 1 and 120 are accepted', async () => {
    for (const months of [0, 121]) {
      const res = await post('/api/v1/policies', { title: 'Out of range', reviewFrequencyMonths: months });
      expect(res.status, `${months} months`).toBe(400);
      expect(await errorOf(res)).toContain('reviewFrequencyMonths');
    }
    await createPolicy({ reviewFrequencyMonths: 1 });
    const id = await createPolicy({ reviewFrequencyMonths: 120 });
    const cleared = await send('PATCH', `/api/v1/policies/${id}`, { reviewFrequencyMonths: null });
    expect(cleared.status, await cleared.clone().text()).toBe(200);
    expect((await json<{ reviewFrequencyMonths: number }>(cleared)).reviewFrequencyMonths).toBe(12);
  });

  test('a blank title is refused naming the field; only publishing makes a policy published', async () => {
    const blank = await post('/api/v1/policies', { title: '   ' });
    expect(blank.status).toBe(400);
    expect(await errorOf(blank)).toContain('title');
    // Status and version are not input: sending them is refused rather than ignored.
    const sneaky = await post('/api/v1/policies', { title: 'Sneaky', status: 'published', currentVersion: 3 });
    expect(sneaky.status).toBe(400);
    expect(await errorOf(sneaky)).toContain('status: Unexpected property');
    const id = await createPolicy({ title: 'Drafted' });
    expect(await json<Record<string, unknown>>(await send('GET', `/api/v1/policies/${id}`))).toMatchObject({ status: 'draft', currentVersion: null });
  });
});

describe('content and versions', () => {
  test('publishing an empty draft is refused with 409', async () => {
    const id = await createPolicy();
    const res = await post(`/api/v1/policies/${id}/publish`);
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toContain('no content');
  });

  test('publishing creates version n+1 and the old versions never change', async () => {
    const id = await createPolicy({ title: 'Password policy' });
    await send('PUT', `/api/v1/policies/${id}/content`, { content: 'Version one text' });
    const first = await post(`/api/v1/policies/${id}/publish`);
    expect(first.status, await first.clone().text()).toBe(201);
    expect((await json<{ version: number }>(first)).version).toBe(1);
    let policy = await json<{ status: string; currentVersion: number }>(await send('GET', `/api/v1/policies/${id}`));
    expect(policy).toMatchObject({ status: 'published', currentVersion: 1 });

    const unchanged = await post(`/api/v1/policies/${id}/publish`);
    expect(unchanged.status).toBe(409);
    expect(await errorOf(unchanged)).toContain('unchanged since version 1');

    const edited = await send('PUT', `/api/v1/policies/${id}/content`, { content: 'Version two text' });
    expect(edited.status).toBe(200);
    expect((await json<{ content: string }>(edited)).content).toBe('Version two text');
    expect((await json<{ version: number }>(await post(`/api/v1/policies/${id}/publish`))).version).toBe(2);

    const versions = await json<{ version: number; content: string; publishedBy: string | null }[]>(await send('GET', `/api/v1/policies/${id}/versions`));
    expect(versions.map((v) => [v.version, v.content])).toEqual([[2, 'Version two text'], [1, 'Version one text']]);
    expect(versions[0].publishedBy).toBe((await adminActor(env)).userId);
    policy = await json<{ status: string; currentVersion: number }>(await send('GET', `/api/v1/policies/${id}`));
    expect(policy.currentVersion).toBe(2);
  });

  test('the database itself refuses to change or delete a published version', async () => {
    const id = await publishedPolicy('Immutable text');
    const rewrite = async () => { await env.ctx.db.update(policyVersions).set({ content: 'rewritten' }).where(eq(policyVersions.policyId, id)); };
    const remove = async () => { await env.ctx.db.delete(policyVersions).where(eq(policyVersions.policyId, id)); };
    await expect(rewrite()).rejects.toThrow();
    await expect(remove()).rejects.toThrow();
    const [version] = await env.ctx.db.select().from(policyVersions).where(eq(policyVersions.policyId, id));
    expect(version.content).toBe('Immutable text');
  });

  test('a published policy cannot be deleted (409 naming its versions); a draft can', async () => {
    const published = await publishedPolicy();
    const refused = await send('DELETE', `/api/v1/policies/${published}`);
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('still referenced by 1 published version (kept for good');
    const draft = await createPolicy();
    expect((await send('DELETE', `/api/v1/policies/${draft}`)).status).toBe(204);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/policies/${draft}`))).toEqual(refusedWith(404, 'Policy <id> not found'));
  });

  test('content changes and publications are in the History', async () => {
    const id = await publishedPolicy('First words');
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(
      await send('GET', `/api/v1/policies/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['publish', 'update', 'create']);
    expect(history[0].changes.status).toEqual({ before: 'draft', after: 'published' });
    expect(history[1].changes.content).toEqual({ before: '', after: 'First words' });
  });

  test('changing content needs policies:update', async () => {
    const id = await createPolicy();
    const readOnly = await makeToken(env, await adminActor(env), ['policies:read']);
    expect(await refusalOf(env, async () => send('PUT', `/api/v1/policies/${id}/content`, { content: 'x' }, readOnly))).toEqual(refusedWith(403, 'forbidden', 'token scope policies:update missing'));
    expect(await refusalOf(env, async () => post(`/api/v1/policies/${id}/publish`, undefined, readOnly))).toEqual(refusedWith(403, 'forbidden', 'token scope policies:update missing'));
  });
});

describe('reviews', () => {
  test('the next review is due the frequency after the last review', async () => {
    const id = await createPolicy({ reviewFrequencyMonths: 6 });
    const before = await json<{ nextReviewDue: string | null }>(await send('GET', `/api/v1/policies/${id}/reviews`));
    expect(before.nextReviewDue).toBeNull();
    expect((await post(`/api/v1/policies/${id}/reviews`, { reviewedOn: '2026-03-15', outcome: 'no_changes' })).status).toBe(201);
    const later = await post(`/api/v1/policies/${id}/reviews`, { reviewedOn: '2026-08-31', outcome: 'changes_required', notes: 'Add MFA' });
    expect(later.status, await later.clone().text()).toBe(201);
    const schedule = await json<{ lastReviewedOn: string; nextReviewDue: string; reviews: { outcome: string; reviewerName: string }[] }>(
      await send('GET', `/api/v1/policies/${id}/reviews`));
    expect(schedule.lastReviewedOn).toBe('2026-08-31');
    expect(schedule.nextReviewDue).toBe('2027-02-28');
    expect(schedule.reviews.map((r) => r.outcome)).toEqual(['changes_required', 'no_changes']);
  });

  test('a published policy never reviewed is due the frequency after its first publication', async () => {
    const id = await publishedPolicy();
    const schedule = await json<{ nextReviewDue: string }>(await send('GET', `/api/v1/policies/${id}/reviews`));
    const published = new Date();
    const expected = new Date(Date.UTC(published.getUTCFullYear() + 1, published.getUTCMonth(), 1));
    expect(schedule.nextReviewDue.slice(0, 7)).toBe(expected.toISOString().slice(0, 7));
  });

  test('a date that does not exist is refused naming the field', async () => {
    const id = await createPolicy();
    const res = await post(`/api/v1/policies/${id}/reviews`, { reviewedOn: '2026-02-30', outcome: 'no_changes' });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('reviewedOn');
  });

  test('recording a review needs policies:review', async () => {
    const id = await createPolicy();
    const noReview = await makeToken(env, await adminActor(env), ['policies:read', 'policies:update']);
    expect(await refusalOf(env, async () => post(`/api/v1/policies/${id}/reviews`, { reviewedOn: '2026-01-05', outcome: 'no_changes' }, noReview))).toEqual(refusedWith(403, 'forbidden', 'token scope policies:review missing'));
  });
});

describe('approvals recorded outside the app', () => {
  test('refused with 409 while the setting is off; recorded once it is on', async () => {
    const id = await publishedPolicy();
    await setOutsideApprovals(false);
    const refused = await post(`/api/v1/policies/${id}/approvals`, { approverName: 'Dana Board', approvedOn: '2026-02-01' });
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('Allow recording outside approvals');

    await setOutsideApprovals(true);
    const recorded = await post(`/api/v1/policies/${id}/approvals`, { approverName: 'Dana Board', approvedOn: '2026-02-01' });
    expect(recorded.status, await recorded.clone().text()).toBe(201);
    const approvals = await json<{ approverName: string; version: number; recordedBy: string }[]>(await send('GET', `/api/v1/policies/${id}/approvals`));
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ approverName: 'Dana Board', version: 1, recordedBy: (await adminActor(env)).userId });
    await setOutsideApprovals(false);
  });

  test('needs policies:review, in the token scopes and in the creator\'s rights', async () => {
    const id = await publishedPolicy();
    await setOutsideApprovals(true);
    const body = { approverName: 'Dana Board', approvedOn: '2026-02-01' };
    const noScope = await makeToken(env, await adminActor(env), ['policies:read', 'policies:update']);
    expect(await refusalOf(env, async () => post(`/api/v1/policies/${id}/approvals`, body, noScope))).toEqual(refusedWith(403, 'forbidden', 'token scope policies:review missing'));
    const user = await makeUser(env, { 'policies:read': 'all', 'policies:update': 'all', 'apiTokens:create': 'own' });
    const noRight = await makeToken(env, await user.actor(), ['policies:read', 'policies:update']);
    expect(await refusalOf(env, async () => post(`/api/v1/policies/${id}/approvals`, body, noRight))).toEqual(refusedWith(403, 'forbidden', 'token scope policies:review missing'));
    await setOutsideApprovals(false);
  });

  test('a draft has no version to approve; an unknown version is refused naming the field', async () => {
    await setOutsideApprovals(true);
    const draft = await createPolicy();
    const res = await post(`/api/v1/policies/${draft}/approvals`, { approverName: 'Dana Board', approvedOn: '2026-02-01' });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toContain('no published version');
    const published = await publishedPolicy();
    const unknown = await post(`/api/v1/policies/${published}/approvals`, { approverName: 'Dana Board', approvedOn: '2026-02-01', version: 7 });
    expect(unknown.status).toBe(400);
    expect(await errorOf(unknown)).toContain('version');
    await setOutsideApprovals(false);
  });

  test('a policies reader reads the setting over REST (GET /policies/settings), so a client can tell before recording approvals', async () => {
    const reader = await makeUser(env, { 'policies:read': 'all', 'apiTokens:create': 'own' });
    const readOnly = await makeToken(env, await reader.actor(), ['policies:read']);
    await setOutsideApprovals(true);
    const on = await send('GET', '/api/v1/policies/settings', undefined, readOnly);
    expect(on.status, await on.clone().text()).toBe(200);
    expect(await json(on)).toEqual({ allowOutsideApprovals: true });
    await setOutsideApprovals(false);
    expect(await json(await send('GET', '/api/v1/policies/settings', undefined, readOnly))).toEqual({ allowOutsideApprovals: false });
    const withoutRead = await makeToken(env, await adminActor(env), ['policies:create']);
    expect(await refusalOf(env, async () => send('GET', '/api/v1/policies/settings', undefined, withoutRead))).toEqual(refusedWith(403, 'forbidden', 'token scope policies:read missing'));
    // Read only: the setting is changed on the Settings screen.
    expect((await send('PUT', '/api/v1/policies/settings', { allowOutsideApprovals: true })).status).toBe(405);
  });

  test('the setting needs settings:update to change, and each change is in the Audit Log', async () => {
    const reader = await (await makeUser(env, { 'settings:read': 'all' })).actor();
    await expect(env.ctx.db.transaction((tx) => savePolicySettings(tx, reader, { allowOutsideApprovals: true }))).rejects.toThrow('forbidden');
    await setOutsideApprovals(true);
    await setOutsideApprovals(false);
    const entries = await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
      .where(sql`${auditLog.recordId} = 'policies.allowOutsideApprovals'`).orderBy(sql`${auditLog.seq} desc`).limit(1);
    expect(entries[0].details).toMatchObject({ changes: { value: { before: true, after: false } } });
  });
});

describe('own level', () => {
  test('a user at level own sees only the policies they or their groups own, and so does their token', async () => {
    const user = await makeUser(env, { 'policies:read': 'own', 'policies:create': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['policies:read', 'policies:create']);
    const mine = await createPolicy({ title: 'Mine' }, own);
    const theirs = await createPolicy({ title: 'Theirs' });
    const page = await json<{ rows: { id: string }[]; total: number }>(await send('GET', '/api/v1/policies?pageSize=200', undefined, own));
    expect(page.rows.map((r) => r.id)).toEqual([mine]);
    expect(page.total).toBe(1);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/policies/${theirs}`, undefined, own))).toEqual(refusedWith(404, 'Policy <id> not found', 'no policies:read on Policy <id>'));
    expect(await refusalOf(env, async () => send('GET', `/api/v1/policies/${theirs}/versions`, undefined, own))).toEqual(refusedWith(404, 'Policy <id> not found', 'no policies:read on Policy <id>'));
    expect(await refusalOf(env, async () => post('/api/v1/policies', { title: 'For someone else', ownerId: (await adminActor(env)).userId }, own))).toEqual(refusedWith(403, 'forbidden', 'policies:create is at level own: the record must be owned by you or one of your groups'));
  });

  test('review at level own covers only owned policies', async () => {
    const user = await makeUser(env, { 'policies:read': 'all', 'policies:create': 'own', 'policies:review': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['policies:read', 'policies:create', 'policies:review']);
    const mine = await createPolicy({ title: 'Mine to review' }, own);
    const theirs = await createPolicy({ title: 'Not mine to review' });
    const review = { reviewedOn: '2026-04-01', outcome: 'no_changes' };
    expect((await post(`/api/v1/policies/${mine}/reviews`, review, own)).status).toBe(201);
    expect(await refusalOf(env, async () => post(`/api/v1/policies/${theirs}/reviews`, review, own))).toEqual(refusedWith(403, 'forbidden', 'policies:review is at level own and Policy <id> is not owned'));
  });

  test('the list filters by status and searches by title', async () => {
    const id = await publishedPolicy();
    await send('PATCH', `/api/v1/policies/${id}`, { title: 'Findable clean desk policy' });
    const page = await json<{ rows: { id: string }[]; total: number }>(
      await send('GET', '/api/v1/policies?q=findable%20clean%20desk&status=published'));
    expect(page.rows.map((r) => r.id)).toEqual([id]);
  });
});
