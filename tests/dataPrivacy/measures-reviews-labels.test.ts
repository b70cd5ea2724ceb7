import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, history, processingActivities } from '../../db/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, dataOf, createdId } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { previewDigest } from '../../src/platform/notifications/reminders';
import { dueSoon } from '../../src/platform/dashboard/due-soon';
import { addMonths, todayIso } from '../../src/platform/core/dates';

const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'dataPrivacy:delete'];
const PATH = '/api/v1/data-privacy/processing-activities';

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [
    ...PRIVACY, 'dataPrivacy:review', 'controls:read', 'controls:create', 'thirdParties:read', 'thirdParties:create', 'settings:read', 'settings:create',
  ]);
});

const send = apiSender(() => env, () => token);
const json = dataOf;
const created = createdId;
const activity = (body: Record<string, unknown> = {}, secret = token) =>
  send('POST', PATH, { name: unique('Payroll'), legalBasis: 'legal_obligation', ...body }, secret).then(created);
const control = (name = unique('Encryption at rest'), secret = token) => send('POST', '/api/v1/controls', { name }, secret).then(created);
const label = (name = unique('GDPR')) => send('POST', '/api/v1/labels', { name }).then(created);
const read = (id: string, secret = token) => send('GET', `${PATH}/${id}`, undefined, secret).then((res) => json<Record<string, unknown>>(res));

describe('technical and organisational measures (Art. 32) as links to controls', () => {
  test('a processing activity names its measures as controls; the register and its CSV name them in their own column', async () => {
    const name = unique('Encryption at rest');
    const encryption = await control(name);
    const id = await activity({ status: 'active', securityMeasures: 'Described in the ISMS', controlIds: [encryption] });
    expect(await read(id)).toMatchObject({ controlIds: [encryption], securityMeasures: 'Described in the ISMS' });

    const register = await json<{ entries: { id: string; controls: string; securityMeasures: string }[] }[]>(await send('GET', '/api/v1/data-privacy/register'));
    const entry = register.flatMap((s) => s.entries).find((e) => e.id === id)!;
    expect(entry).toMatchObject({ controls: name, securityMeasures: 'Described in the ISMS' });
    const csv = await (await send('GET', '/api/v1/data-privacy/register/csv')).text();
    const header = csv.split('\r\n')[0].split(',');
    expect(header.indexOf('Technical and organisational measures (controls)')).toBe(header.indexOf('Technical and organisational measures') + 1);
    expect(csv).toContain(`Described in the ISMS,${name},`);
  });

  test('a control the caller cannot read answers the same 404 as a missing one, the reason only in the Audit Log, and nothing is written', async () => {
    const hidden = await control();
    const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:create': 'all', 'controls:read': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['dataPrivacy:read', 'dataPrivacy:create', 'controls:read']);
    const name = unique('Refused');
    const body = { name, legalBasis: 'consent', controlIds: [hidden] };
    expect(await refusalOf(env, () => send('POST', PATH, body, own)))
      .toEqual(refusedWith(404, 'controlIds: Control <id> not found', 'link to Control <id>: not readable (controls:read)'));
    expect(await refusalOf(env, () => send('POST', PATH, { ...body, controlIds: [crypto.randomUUID()] }, own)))
      .toEqual(refusedWith(404, 'controlIds: Control <id> not found', 'link to Control <id>: no such record'));
    const withoutScope = await makeToken(env, await user.actor(), ['dataPrivacy:read', 'dataPrivacy:create']);
    expect(await refusalOf(env, () => send('POST', PATH, body, withoutScope))).toEqual(refusedWith(403, 'forbidden', 'token scope controls:read missing'));
    expect(await env.ctx.db.select().from(processingActivities).where(eq(processingActivities.name, name))).toEqual([]);
  });

  test('a control linked by someone else is kept when a caller who cannot read it edits the activity', async () => {
    const hidden = await control();
    const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:update': 'all', 'controls:read': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['dataPrivacy:read', 'dataPrivacy:update', 'controls:read']);
    const id = await activity({ controlIds: [hidden] });
    const res = await send('PATCH', `${PATH}/${id}`, { purposes: 'Paying salaries', controlIds: [hidden] }, own);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await read(id)).toMatchObject({ controlIds: [hidden], purposes: 'Paying salaries' });
  });

  test('the activities naming a control are listed by controlId, and its change is in History', async () => {
    const a = await control();
    const b = await control();
    const id = await activity({ controlIds: [a] });
    await send('PATCH', `${PATH}/${id}`, { controlIds: [a, b] });
    const page = await json<{ rows: { id: string }[] }>(await send('GET', `${PATH}?controlId=${b}`));
    expect(page.rows.map((r) => r.id)).toEqual([id]);
    const changes = await json<{ changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `${PATH}/${id}/history`));
    expect(changes.some((e) => JSON.stringify(e.changes.controlIds?.after) === JSON.stringify([a, b]))).toBe(true);
  });
});

describe('periodic reviews of a processing activity', () => {
  test('a review records the day, reviewer and outcome and sets the next review on the activity; History and the Audit Log keep both', async () => {
    const id = await activity();
    const reviewId = await send('POST', `${PATH}/${id}/reviews`, {
      reviewedOn: '2026-11-01', outcome: 'changes_needed', notes: 'Retention to be shortened', nextReviewOn: '2027-05-01',
    }).then(created);
    const reviews = await json<{ nextReviewOn: string; reviews: Record<string, unknown>[] }>(await send('GET', `${PATH}/${id}/reviews`));
    expect(reviews.nextReviewOn).toBe('2027-05-01');
    expect(reviews.reviews).toEqual([expect.objectContaining({
      id: reviewId, reviewedOn: '2026-11-01', outcome: 'changes_needed', notes: 'Retention to be shortened', nextReviewOn: '2027-05-01',
      reviewer: expect.objectContaining({ id: admin.userId }),
    })]);
    expect(await read(id)).toMatchObject({ nextReviewOn: '2027-05-01' });
    const audited = await env.ctx.db.select({ action: auditLog.action, recordType: auditLog.recordType }).from(auditLog)
      .where(and(eq(auditLog.module, 'dataPrivacy'), eq(auditLog.recordId, reviewId)));
    expect(audited).toEqual([{ action: 'create', recordType: 'processingActivityReview' }]);
    const activityHistory = await env.ctx.db.select({ changes: history.changes }).from(history)
      .where(and(eq(history.recordType, 'processingActivity'), eq(history.recordId, id)));
    expect(activityHistory.some((h) => JSON.stringify(h.changes).includes('2027-05-01'))).toBe(true);
  });

  test('left without a next review day, the next review is a year after the review; null leaves none', async () => {
    const id = await activity();
    await send('POST', `${PATH}/${id}/reviews`, { outcome: 'no_change' }).then(created);
    expect(await read(id)).toMatchObject({ nextReviewOn: addMonths(todayIso(), 12) });
    await send('POST', `${PATH}/${id}/reviews`, { outcome: 'no_change', nextReviewOn: null }).then(created);
    expect(await read(id)).toMatchObject({ nextReviewOn: null });
  });

  test('changes needed must say which; a day in the future, a next review not after the review and an inactive reviewer are refused by field', async () => {
    const id = await activity();
    const problems = async (body: Record<string, unknown>) => {
      const res = await send('POST', `${PATH}/${id}/reviews`, body);
      expect(res.status).toBe(400);
      return ((await res.json()) as { problems: { field: string }[] }).problems.map((p) => p.field);
    };
    expect(await problems({ outcome: 'changes_needed' })).toEqual(['notes']);
    expect(await problems({ outcome: 'no_change', reviewedOn: '2999-01-01' })).toEqual(['reviewedOn']);
    expect(await problems({ outcome: 'no_change', reviewedOn: '2026-06-01', nextReviewOn: '2026-06-01' })).toEqual(['nextReviewOn']);
    expect(await problems({ outcome: 'no_change', reviewerId: crypto.randomUUID() })).toEqual(['reviewerId']);
    expect((await json<{ reviews: unknown[] }>(await send('GET', `${PATH}/${id}/reviews`))).reviews).toEqual([]);
  });

  test('deciding a review needs dataPrivacy:review: without it 403 naming the right; at level own, only on activities you own', async () => {
    const id = await activity();
    const updater = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:update': 'all', 'apiTokens:create': 'own' });
    const updaterToken = await makeToken(env, await updater.actor(), ['dataPrivacy:read', 'dataPrivacy:update']);
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/reviews`, { outcome: 'no_change' }, updaterToken)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:review missing'));
    const reviewer = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:review': 'own', 'apiTokens:create': 'own' });
    const reviewerToken = await makeToken(env, await reviewer.actor(), ['dataPrivacy:read', 'dataPrivacy:review']);
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/reviews`, { outcome: 'no_change' }, reviewerToken)))
      .toEqual(refusedWith(403, 'forbidden', 'dataPrivacy:review is at level own and Processing activity <id> is not owned'));
    const theirs = await activity({ ownerId: null, ownerGroupId: reviewer.groupId });
    await send('POST', `${PATH}/${theirs}/reviews`, { outcome: 'no_change' }, reviewerToken).then(created);
    const stranger = await makeUser(env, { 'dataPrivacy:read': 'own', 'dataPrivacy:review': 'own', 'apiTokens:create': 'own' });
    const strangerToken = await makeToken(env, await stranger.actor(), ['dataPrivacy:read', 'dataPrivacy:review']);
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/reviews`, { outcome: 'no_change' }, strangerToken)))
      .toEqual(refusedWith(404, 'Processing activity <id> not found', 'no dataPrivacy:read on Processing activity <id>'));
  });

  test('a review coming due reaches the owner in the daily digest and the Dashboard due list', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'own', 'dataPrivacy:create': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['dataPrivacy:read', 'dataPrivacy:create']);
    const name = unique('Loyalty programme');
    const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    await activity({ name, status: 'active', nextReviewOn: inAWeek }, own);
    const digest = await previewDigest(env.ctx, user.id);
    expect(digest?.body).toContain('Processing activity reviews due');
    expect(digest?.body).toContain(name);
    const due = (await dueSoon(env.ctx.db, await user.actor())).find((r) => r.kind.key === 'processingActivityReviewsDue')!;
    expect(due.items.map((i) => i.title)).toEqual([name]);
  });
});

describe('labels on privacy records', () => {
  test('processing activities, DPIAs, transfers and TIAs carry labels by id, read back with their names, and lists filter by label', async () => {
    const gdprName = unique('GDPR');
    const gdpr = await label(gdprName);
    const id = await activity({ labelIds: [gdpr] });
    expect(await read(id)).toMatchObject({ labelIds: [gdpr], labels: [gdprName] });
    expect((await json<{ rows: { id: string }[] }>(await send('GET', `${PATH}?label=${gdpr}`))).rows.map((r) => r.id)).toEqual([id]);

    const dpia = await send('POST', '/api/v1/data-privacy/dpias', { name: unique('DPIA'), processingActivityId: id, labelIds: [gdpr] }).then(created);
    expect(await json(await send('GET', `/api/v1/data-privacy/dpias/${dpia}`))).toMatchObject({ labelIds: [gdpr], labels: [gdprName] });
    expect((await json<{ rows: { id: string }[] }>(await send('GET', `/api/v1/data-privacy/dpias?label=${gdpr}`))).rows.map((r) => r.id)).toEqual([dpia]);

    const vendor = await send('POST', '/api/v1/third-parties', { name: unique('Payroll bureau') }).then(created);
    const tia = await send('POST', `/api/v1/third-parties/${vendor}/transfer-impact-assessments`, {
      name: unique('TIA'), lawsAssessed: 'FISA 702', riskFound: 'medium', conclusion: 'proceed', assessedOn: '2026-01-01', labelIds: [gdpr],
    }).then(created);
    expect(await json(await send('GET', `/api/v1/third-parties/${vendor}/transfer-impact-assessments/${tia}`))).toMatchObject({ labels: [gdprName] });
    const transfer = await send('POST', '/api/v1/data-privacy/transfers', {
      name: unique('Transfer'), processingActivityId: id, destinationCountry: 'IN', recipientThirdPartyId: vendor, safeguard: 'sccs', sccModule: 2,
      labelIds: [gdpr],
    }).then(created);
    expect((await json<{ rows: { id: string; labels: string[] }[] }>(await send('GET', `/api/v1/data-privacy/transfers?label=${gdpr}`))).rows)
      .toEqual([expect.objectContaining({ id: transfer, labels: [gdprName] })]);
  });

  test('an id naming no label is a 400 naming labelIds, and nothing is written', async () => {
    const name = unique('Unlabelled');
    const res = await send('POST', PATH, { name, legalBasis: 'consent', labelIds: [crypto.randomUUID()] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { problems: { field: string }[] }).problems.map((p) => p.field)).toEqual(['labelIds']);
    expect(await env.ctx.db.select().from(processingActivities).where(eq(processingActivities.name, name))).toEqual([]);
  });
});
