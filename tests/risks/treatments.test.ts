import { beforeAll, describe, expect, test } from 'bun:test';
import { controlKind } from '../../src/modules/controls/service';
import { createRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:read', 'risks:update', 'risks:review', 'controls:read']);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;
const makeControl = async (actor: Actor, name = unique('Control'), ownerId?: string) =>
  (await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, actor, { name, ...(ownerId ? { ownerId } : {}) }))).id;

interface Treatment {
  id: string;
  type: string;
  status: string;
  residualLikelihood: { value: number; name: string } | null;
  residualImpact: { value: number; name: string } | null;
  controls: { id: string; name: string }[];
}
interface Risk {
  residualLikelihood: { value: number } | null;
  residualImpact: { value: number } | null;
}

describe('risk treatments', () => {
  test('a mitigate treatment carries a residual rating by level name or value and links controls', async () => {
    const riskId = await makeRisk(env, admin);
    const controlId = await makeControl(admin, 'Nightly backups');
    const res = await send('POST', `/api/v1/risks/${riskId}/treatments`, {
      type: 'mitigate', title: 'Back up the ledger', residualLikelihood: 'unlikely', residualImpact: 2, controlIds: [controlId],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const [treatment] = await json<Treatment[]>(await send('GET', `/api/v1/risks/${riskId}/treatments`));
    expect(treatment).toMatchObject({
      type: 'mitigate', status: 'planned',
      residualLikelihood: { value: 2, name: 'Unlikely' }, residualImpact: { value: 2, name: 'Minor' },
      controls: [{ id: controlId, name: 'Nightly backups' }],
    });
  });

  test('a residual rating above the inherent one, or on another type of treatment, is refused naming the field', async () => {
    const riskId = await makeRisk(env, admin, { inherentLikelihood: 3, inherentImpact: 4 });
    const above = await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'mitigate', title: 'Too optimistic', residualLikelihood: 4, residualImpact: 4 });
    expect(above.status).toBe(400);
    expect(await errorOf(above)).toContain('residualLikelihood');
    const accepted = await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'accept', title: 'Live with it', residualLikelihood: 1, residualImpact: 1 });
    expect(accepted.status).toBe(400);
    expect(await errorOf(accepted)).toContain('only a mitigate treatment');
    const transfer = await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'transfer', title: 'Insure', controlIds: [await makeControl(admin)] });
    expect(transfer.status).toBe(400);
    expect(await errorOf(transfer)).toContain('controlIds');
    const half = await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'mitigate', title: 'Half rated', residualLikelihood: 1 });
    expect(half.status).toBe(400);
    expect(await errorOf(half)).toContain('residualImpact');
    const badDate = await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'avoid', title: 'Stop doing it', dueOn: '2026-02-30' });
    expect(badDate.status).toBe(400);
    expect(await errorOf(badDate)).toContain('dueOn');
  });

  test("an implemented mitigate treatment sets the risk's residual rating, shown in the risk's History; a planned one does not", async () => {
    const riskId = await makeRisk(env, admin, { inherentLikelihood: 4, inherentImpact: 4 });
    const planned = await json<{ id: string }>(await send('POST', `/api/v1/risks/${riskId}/treatments`, {
      type: 'mitigate', title: 'Segregate duties', residualLikelihood: 2, residualImpact: 3,
    }));
    expect((await json<Risk>(await send('GET', `/api/v1/risks/${riskId}`))).residualLikelihood).toBeNull();
    const patched = await send('PATCH', `/api/v1/risks/${riskId}/treatments/${planned.id}`, { status: 'implemented' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const risk = await json<Risk>(await send('GET', `/api/v1/risks/${riskId}`));
    expect(risk.residualLikelihood?.value).toBe(2);
    expect(risk.residualImpact?.value).toBe(3);
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(
      await send('GET', `/api/v1/risks/${riskId}/history`));
    expect(history[0].changes.residualLikelihood).toEqual({ before: null, after: 2 });
  });

  test('changes and removal of a treatment are in its History, including linked controls', async () => {
    const riskId = await makeRisk(env, admin);
    const first = await makeControl(admin);
    const second = await makeControl(admin);
    const { id } = await json<{ id: string }>(await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'mitigate', title: 'Harden', controlIds: [first] }));
    const changed = await json<Treatment>(await send('PATCH', `/api/v1/risks/${riskId}/treatments/${id}`, { controlIds: [second] }));
    expect(changed.controls.map((c) => c.id)).toEqual([second]);
    expect((await send('DELETE', `/api/v1/risks/${riskId}/treatments/${id}`)).status).toBe(204);
    expect(await json<Treatment[]>(await send('GET', `/api/v1/risks/${riskId}/treatments`))).toEqual([]);
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(
      await send('GET', `/api/v1/risks/${riskId}/treatments/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['delete', 'update', 'create']);
    expect(history[1].changes.controlIds).toEqual({ before: [first], after: [second] });
  });

  test('linking controls needs controls:read: 403 without the scope, 404 for a control the caller cannot read', async () => {
    const riskId = await makeRisk(env, admin);
    const controlId = await makeControl(admin);
    const noControls = await makeToken(env, admin, ['risks:read', 'risks:update']);
    const refused = await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'mitigate', title: 'Link', controlIds: [controlId] }, noControls);
    expect(refused.status).toBe(403);
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:update': 'own', 'controls:read': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['risks:read', 'risks:update', 'controls:read']);
    const myRisk = await makeRisk(env, admin, { ownerId: user.id });
    const unreadable = await send('POST', `/api/v1/risks/${myRisk}/treatments`, { type: 'mitigate', title: 'Link', controlIds: [controlId] }, own);
    expect(unreadable.status).toBe(404);
    const mine = await makeControl(admin, unique('Control'), user.id);
    expect((await send('POST', `/api/v1/risks/${myRisk}/treatments`, { type: 'mitigate', title: 'Link', controlIds: [mine] }, own)).status).toBe(201);
  });

  test("at level own, treatments of a risk someone else owns are not found", async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['risks:read', 'risks:update']);
    const theirs = await makeRisk(env, admin);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/risks/${theirs}/treatments`, undefined, own))).toEqual(refusedWith(404, 'Risk <id> not found', 'no risks:read on Risk <id>'));
    expect(await refusalOf(env, async () => send('POST', `/api/v1/risks/${theirs}/treatments`, { type: 'accept', title: 'Mine now' }, own))).toEqual(refusedWith(404, 'Risk <id> not found', 'no risks:read on Risk <id>'));
  });
});

describe('risk reviews', () => {
  test('the next review is due the review frequency after the last review; the reviewer defaults to the caller', async () => {
    const riskId = await makeRisk(env, admin, { reviewFrequencyMonths: 6 });
    for (const reviewedOn of ['2026-01-31', '2025-06-01']) {
      const res = await send('POST', `/api/v1/risks/${riskId}/reviews`, { reviewedOn, outcome: 'no_change', notes: 'still relevant' });
      expect(res.status, await res.clone().text()).toBe(201);
    }
    const reviews = await json<{ lastReviewedOn: string; nextReviewDue: string; reviews: { reviewer: { id: string } | null }[] }>(
      await send('GET', `/api/v1/risks/${riskId}/reviews`));
    expect(reviews.lastReviewedOn).toBe('2026-01-31');
    expect(reviews.nextReviewDue).toBe('2026-07-31');
    expect(reviews.reviews).toHaveLength(2);
    expect(reviews.reviews[0].reviewer?.id).toBe(admin.userId!);
  });

  test('a risk never reviewed is due its frequency after it was created', async () => {
    const riskId = await makeRisk(env, admin, { reviewFrequencyMonths: 12 });
    const reviews = await json<{ lastReviewedOn: string | null; nextReviewDue: string; overdue: boolean }>(await send('GET', `/api/v1/risks/${riskId}/reviews`));
    const created = new Date();
    const expected = `${created.getUTCFullYear() + 1}-${String(created.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(reviews.lastReviewedOn).toBeNull();
    expect(reviews.nextReviewDue.slice(0, 7)).toBe(expected);
    expect(reviews.overdue).toBe(false);
  });

  test('recording a review needs risks:review; an impossible date is refused naming the field', async () => {
    const riskId = await makeRisk(env, admin);
    const noReview = await makeToken(env, admin, ['risks:read', 'risks:update']);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/risks/${riskId}/reviews`, { reviewedOn: '2026-01-01', outcome: 'changed' }, noReview))).toEqual(refusedWith(403, 'forbidden', 'token scope risks:review missing'));
    const bad = await send('POST', `/api/v1/risks/${riskId}/reviews`, { reviewedOn: '2026-02-30', outcome: 'changed' });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toContain('reviewedOn');
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:review': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['risks:read', 'risks:review']);
    expect(await refusalOf(env, async () => send('POST', `/api/v1/risks/${riskId}/reviews`, { reviewedOn: '2026-01-01', outcome: 'changed' }, own))).toEqual(refusedWith(404, 'Risk <id> not found', 'no risks:read on Risk <id>'));
  });
});

describe('treatments, reviews and exceptions screen', () => {
  const browser = async () => {
    const { signIn } = await import('../../src/platform/http/sessions');
    const { sessionCookieName } = await import('../../src/platform/http/screen-auth');
    const { ADMIN_EMAIL, ADMIN_PASSWORD } = await import('../helpers/app');
    const session = await signIn(env.ctx.db, ADMIN_EMAIL, ADMIN_PASSWORD, '', { sessionHours: 1 });
    const cookie = `${sessionCookieName(env.ctx.config)}=${session.secret}`;
    return {
      get: (path: string) => env.request(path, { headers: { cookie } }),
      post: (path: string, fields: Record<string, string>) => env.request(path, {
        method: 'POST', redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: session.csrfToken, ...fields }).toString(),
      }),
    };
  };

  test('adding an implemented mitigate treatment on the screen sets the residual rating; refusals are shown inline', async () => {
    const page = await browser();
    const riskId = await makeRisk(env, admin, { inherentLikelihood: 3, inherentImpact: 3 });
    expect(await (await page.get(`/risks/${riskId}`)).text()).toContain(`/risks/${riskId}/treatments`);
    const refused = await page.post(`/risks/${riskId}/treatments`, { type: 'mitigate', status: 'implemented', title: 'Too good', residualLikelihood: '5', residualImpact: '1' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('must not be above the risk&#x27;s inherent likelihood');
    const added = await page.post(`/risks/${riskId}/treatments`, { type: 'mitigate', status: 'implemented', title: 'Encrypt laptops', residualLikelihood: '1', residualImpact: '2' });
    expect(added.status, await added.clone().text()).toBe(303);
    const risk = await json<Risk>(await send('GET', `/api/v1/risks/${riskId}`));
    expect([risk.residualLikelihood?.value, risk.residualImpact?.value]).toEqual([1, 2]);
    expect(await (await page.get(`/risks/${riskId}/treatments`)).text()).toContain('Encrypt laptops');
    expect(await refusalOf(env, async () => page.post(`/risks/${riskId}/treatments/not-a-treatment/delete`, {}))).toEqual(refusedWith(404, undefined));
  });

  test('a review and an exception request are recorded from the screen; the next review date is shown', async () => {
    const page = await browser();
    const riskId = await makeRisk(env, admin, { reviewFrequencyMonths: 3 });
    expect((await page.post(`/risks/${riskId}/reviews`, { reviewedOn: '2026-01-15', outcome: 'changed', notes: 'new supplier' })).status).toBe(303);
    expect((await page.post(`/risks/${riskId}/exceptions`, { exceptionTitle: 'Legacy VPN', exceptionDescription: 'until migration', expiresAt: '2026-13-01' })).status).toBe(400);
    expect((await page.post(`/risks/${riskId}/exceptions`, { exceptionTitle: 'Legacy VPN', exceptionDescription: 'until migration', expiresAt: '2099-06-30' })).status).toBe(303);
    const html = await (await page.get(`/risks/${riskId}/treatments`)).text();
    expect(html).toContain('Next review due: 2026-04-15');
    expect(html).toContain('Legacy VPN');
    expect(html).toContain('2099-06-30');
  });
});

describe('deleting what treatments and exceptions point at', () => {
  test('a control linked to a treatment, and a risk with an exception, cannot be deleted; the 409 names them', async () => {
    const riskId = await makeRisk(env, admin);
    const controlId = await makeControl(admin, unique('Linked control'));
    const linked = await send('POST', `/api/v1/risks/${riskId}/treatments`, { type: 'mitigate', title: 'Uses the control', controlIds: [controlId] });
    expect(linked.status, await linked.clone().text()).toBe(201);
    const deleter = await makeToken(env, admin, ['controls:read', 'controls:delete', 'risks:read', 'risks:delete', 'risks:update']);
    const controlRefused = await send('DELETE', `/api/v1/controls/${controlId}`, undefined, deleter);
    expect(controlRefused.status).toBe(409);
    expect(await errorOf(controlRefused)).toContain('still referenced by 1 risk treatment;');

    const requested = await send('POST', '/api/v1/risk-exceptions', { parentId: riskId, title: 'Waiver', description: 'for now', expiresAt: '2030-01-31' }, deleter);
    expect(requested.status, await requested.clone().text()).toBe(201);
    const riskRefused = await send('DELETE', `/api/v1/risks/${riskId}`, undefined, deleter);
    expect(riskRefused.status).toBe(409);
    expect(await errorOf(riskRefused)).toContain('still referenced by 1 exception;');
  });
});
