import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, sql } from 'drizzle-orm';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { selectRows } from '../../db/client';
import { auditLog, outbox, processingActivities } from '../../db/schema';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import { answerQuestionnaire, decideProposal, questionnaireDueDates, sendQuestionnaire } from '../../src/modules/dataPrivacy/questionnaire-service';
import { AppError } from '../../src/platform/core/errors';
import { remindersOf } from '../../src/platform/notifications/reminders';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, bearer, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { callTool, connectMcp, toolData } from '../helpers/mcp';
import { refusalOf, refusedWith } from '../helpers/refusals';

/**
 * Data Liaison questionnaires: a privacy officer asks a business owner about fields of a processing activity; the owner
 * answers with proposed values without any data privacy right; the officer accepts (the processing activity changes
 * through its register, with History and Audit Log) or rejects each proposal. Nobody else reads or answers it.
 */

const PATH = '/api/v1/data-privacy/questionnaires';
const OFFICER: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update'];

let env: TestEnv;
let admin: Actor;
let officerToken: string;
let owner: TestUser;
let ownerToken: string;
let third: TestUser;
let thirdToken: string;
let activity: string;
const link = (path: string) => `https://grc.example${path}`;

const send = (method: string, path: string, secret: string, body?: unknown) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
type Answer = { field: string; fieldLabel: string; current: string; proposed: string | null; comment: string; decision: string | null; decidedBy: { name: string } | null; reason: string };
type Questionnaire = { id: string; title: string; status: string; recipient: { id: string; name: string }; processingActivity: { id: string; name: string }; answers: Answer[] };

async function createActivity(name: string) {
  const res = await send('POST', '/api/v1/data-privacy/processing-activities', officerToken, {
    name, legalBasis: 'contract', purposes: 'Paying suppliers', retention: 'Ten years', recipients: 'Tax office',
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}
async function sendOne(title = unique('Is payroll right?'), fields = ['retention', 'recipients', 'legalBasis'], extra: Record<string, unknown> = {}) {
  const res = await send('POST', PATH, officerToken, { title, processingActivityId: activity, recipientId: owner.id, fields, dueOn: '2030-01-31', ...extra });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}
const answer = (id: string, answers: unknown[], secret = ownerToken) => send('POST', `${PATH}/${id}/answers`, secret, { answers });
const auditActions = async (id: string) => (await env.ctx.db.select({ action: auditLog.action, details: auditLog.details }).from(auditLog)
  .where(and(eq(auditLog.recordType, 'privacyQuestionnaire'), eq(auditLog.recordId, id))).orderBy(auditLog.seq));

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  officerToken = await makeToken(env, admin, OFFICER);
  // The business owner and a bystander hold no data privacy right; a token needs some scope, so each may read their own risks (and make tokens).
  owner = await makeUser(env, { 'risks:read': 'own', 'apiTokens:create': 'own' }, unique('Olive Owner'));
  ownerToken = await makeToken(env, await owner.actor('api'), ['risks:read']);
  third = await makeUser(env, { 'risks:read': 'own', 'apiTokens:create': 'own' }, unique('Theo Third'));
  thirdToken = await makeToken(env, await third.actor('api'), ['risks:read']);
  activity = await createActivity(unique('Supplier payments'));
});

describe('sending a questionnaire', () => {
  test('the officer sends it about fields of a processing activity; the owner is told by mail with a link to answer, and the Audit Log records it', async () => {
    const title = unique('Supplier payments check');
    const id = await sendOne(title, ['retention'], { message: 'Please check the retention' });
    const [mail] = await env.ctx.db.select().from(outbox).where(and(eq(outbox.kind, 'privacy.questionnaire.sent'), sql`${outbox.subject} like ${`%${title}`}`));
    expect(mail.recipients).toEqual([owner.email]);
    expect(mail.subject).toBe(`Privacy questionnaire: ${title}`);
    expect(mail.body).toContain('- Retention');
    expect(mail.body).toContain('Please check the retention');
    expect(mail.body).toContain(`/data-privacy/my-questionnaires/${id}`);
    expect((await auditActions(id)).map((e) => e.action)).toEqual(['create']);
  });

  test('refused with the field named: an inactive or unknown person, a field not of the list, a processing activity the officer may not read', async () => {
    const unknown = await send('POST', PATH, officerToken, { title: 'x', processingActivityId: activity, recipientId: crypto.randomUUID(), fields: ['retention'] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ problems: [{ field: 'recipientId', message: 'no such active user' }] });
    const badField = await send('POST', PATH, officerToken, { title: 'x', processingActivityId: activity, recipientId: owner.id, fields: ['systemAssetIds'] });
    expect(badField.status).toBe(400);
    expect(await badField.text()).toContain('fields');
    // An officer at own level may not read the admin's processing activity: the same 404 as a missing one, the reason audited.
    const ownLevel = await makeUser(env, { 'dataPrivacy:read': 'own', 'dataPrivacy:create': 'own', 'apiTokens:create': 'own' });
    const ownToken = await makeToken(env, await ownLevel.actor('api'), ['dataPrivacy:read', 'dataPrivacy:create']);
    expect(await refusalOf(env, () => send('POST', PATH, ownToken, { title: 'x', processingActivityId: activity, recipientId: owner.id, fields: ['retention'] })))
      .toEqual(refusedWith(404, 'processingActivityId: Processing activity <id> not found', 'link to Processing activity <id>: not readable (dataPrivacy:read)'));
  });
});

describe('the owner answers, the officer decides', () => {
  let id: string;
  beforeAll(async () => {
    id = await sendOne();
  });

  test('the owner lists it as theirs and reads each field asked with its current value, by label', async () => {
    const mine = await json<Questionnaire[]>(await send('GET', `${PATH}/mine`, ownerToken));
    expect(mine.map((q) => q.id)).toContain(id);
    const q = await json<Questionnaire>(await send('GET', `${PATH}/${id}`, ownerToken));
    expect(q.status).toBe('sent');
    expect(q.answers.map((a) => [a.fieldLabel, a.current])).toEqual([['Retention', 'Ten years'], ['Recipients', 'Tax office'], ['Legal basis (Art. 6)', 'Contract']]);
  });

  test('a third user can neither read nor answer it: 404, the reason in the Audit Log', async () => {
    const reason = 'Questionnaire <id> is not addressed to you and you hold no dataPrivacy:read on it';
    expect(await refusalOf(env, () => send('GET', `${PATH}/${id}`, thirdToken))).toEqual(refusedWith(404, 'Questionnaire <id> not found', reason));
    expect(await refusalOf(env, () => answer(id, [{ field: 'retention', proposed: 'Forever' }], thirdToken)))
      .toEqual(refusedWith(404, 'Questionnaire <id> not found', reason));
    expect((await json<Questionnaire[]>(await send('GET', `${PATH}/mine`, thirdToken))).map((q) => q.id)).not.toContain(id);
  });

  test('answers are checked as a whole: every field asked once, a legal basis of Art. 6; nothing is kept from a refused answer', async () => {
    const missing = await answer(id, [{ field: 'retention', proposed: 'Seven years' }]);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ problems: [{ field: 'answers.recipients', message: 'Recipients needs an answer' }, { field: 'answers.legalBasis', message: 'Legal basis (Art. 6) needs an answer' }] });
    const badBasis = await answer(id, [
      { field: 'retention', proposed: 'Seven years' }, { field: 'recipients', proposed: null }, { field: 'legalBasis', proposed: 'because' },
    ]);
    expect(badBasis.status).toBe(400);
    expect(await badBasis.json()).toMatchObject({ problems: [{ field: 'answers.legalBasis', message: expect.stringContaining('must be one of the lawful bases of Art. 6(1)') }] });
    expect((await json<Questionnaire>(await send('GET', `${PATH}/${id}`, ownerToken))).status).toBe('sent');
  });

  test('the officer may read it but not answer it for the owner: 403 naming why', async () => {
    expect(await refusalOf(env, () => answer(id, [{ field: 'retention', proposed: 'x' }], officerToken)))
      .toEqual(refusedWith(403, 'forbidden', 'Questionnaire <id> is addressed to someone else; only the person asked answers it'));
  });

  test('the owner answers: two proposals and one confirmation; the officer is told by mail; answers are final', async () => {
    const res = await answer(id, [
      { field: 'retention', proposed: 'Seven years after the last payment', comment: 'Tax rules changed' },
      { field: 'recipients', proposed: 'Tax office; external auditor' },
      { field: 'legalBasis', proposed: 'contract' },
    ]);
    expect(res.status, await res.clone().text()).toBe(200);
    const q = await json<Questionnaire>(res);
    expect(q.status).toBe('answered');
    expect(q.answers.map((a) => [a.fieldLabel, a.current, a.proposed, a.decision])).toEqual([
      ['Retention', 'Ten years', 'Seven years after the last payment', 'pending'],
      ['Recipients', 'Tax office', 'Tax office; external auditor', 'pending'],
      ['Legal basis (Art. 6)', 'Contract', null, null],
    ]);
    const mails = await env.ctx.db.select().from(outbox).where(and(eq(outbox.kind, 'privacy.questionnaire.answered'), sql`${outbox.body} like ${`%${id}%`}`));
    expect(mails).toHaveLength(1);
    const again = await answer(id, [{ field: 'retention', proposed: 'x' }, { field: 'recipients', proposed: null }, { field: 'legalBasis', proposed: null }]);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: `Questionnaire ${id} was answered already; answers are final` });
  });

  test('the owner cannot accept a proposal: over REST the token lacks the scope, and the service names why', async () => {
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/proposals/retention/accept`, ownerToken)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:update missing'));
    const ownerActor = await owner.actor('screen');
    const refused = await env.ctx.db.transaction((tx) => decideProposal(tx, ownerActor, id, 'retention', 'accepted')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 403, deniedReason: `right dataPrivacy:update missing on Questionnaire ${id}: the person asked proposes changes, a privacy officer decides them` });
    const [row] = await env.ctx.db.select({ retention: processingActivities.retention }).from(processingActivities).where(eq(processingActivities.id, activity));
    expect(row.retention).toBe('Ten years');
  });

  test('the officer accepts one proposal: the processing activity changes through its register, its History and Audit Log show it', async () => {
    const res = await send('POST', `${PATH}/${id}/proposals/retention/accept`, officerToken);
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await json<Questionnaire>(res)).answers[0]).toMatchObject({ decision: 'accepted', current: 'Seven years after the last payment', decidedBy: { name: expect.any(String) } });
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(
      await send('GET', `/api/v1/data-privacy/processing-activities/${activity}/history`, officerToken));
    expect(history[0]).toMatchObject({ action: 'update', changes: { retention: { before: 'Ten years', after: 'Seven years after the last payment' } } });
    const activityAudit = await env.ctx.db.select({ action: auditLog.action }).from(auditLog)
      .where(and(eq(auditLog.recordType, 'processingActivity'), eq(auditLog.recordId, activity), eq(auditLog.action, 'update')));
    expect(activityAudit).toHaveLength(1);
  });

  test('the officer rejects the other with a reason: the processing activity keeps its value, the questionnaire is closed, each step audited', async () => {
    const res = await send('POST', `${PATH}/${id}/proposals/recipients/reject`, officerToken, { reason: 'The auditor sees no personal data' });
    expect(res.status, await res.clone().text()).toBe(200);
    const q = await json<Questionnaire>(res);
    expect(q.status).toBe('closed');
    expect(q.answers[1]).toMatchObject({ decision: 'rejected', reason: 'The auditor sees no personal data', current: 'Tax office' });
    const [row] = await env.ctx.db.select({ recipients: processingActivities.recipients }).from(processingActivities).where(eq(processingActivities.id, activity));
    expect(row.recipients).toBe('Tax office');
    expect((await auditActions(id)).map((e) => [e.action, (e.details as { field?: string }).field ?? null])).toEqual([
      ['create', null], ['answered', null], ['proposal.accepted', 'Retention'], ['proposal.rejected', 'Recipients'],
    ]);
    const again = await send('POST', `${PATH}/${id}/proposals/recipients/accept`, officerToken);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: 'The proposal for Recipients was rejected already' });
    // The owner reads the decisions on their questionnaire.
    const seen = await json<Questionnaire>(await send('GET', `${PATH}/${id}`, ownerToken));
    expect(seen.answers.map((a) => a.decision)).toEqual(['accepted', 'rejected', null]);
  });

  test('History of the questionnaire names its steps; the owner may not read it (no data privacy right)', async () => {
    const history = await json<{ action: string }[]>(await send('GET', `${PATH}/${id}/history`, officerToken));
    expect(history.map((h) => h.action)).toEqual(['proposal.rejected', 'proposal.accepted', 'answered', 'create']);
    expect(await refusalOf(env, () => send('GET', `${PATH}/${id}/history`, ownerToken)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:read missing'));
  });
});

describe('through the services', () => {
  test('accepting needs dataPrivacy:update on the processing activity too: refused, the questionnaire keeps its proposal (one transaction)', async () => {
    const officer = await adminActor(env);
    const ownerActor = await owner.actor('screen');
    // An own-level officer who sent it but does not own the processing activity is refused; nothing is written.
    const ownLevel = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:create': 'own', 'dataPrivacy:update': 'own' });
    const sender = await ownLevel.actor('screen');
    const { id } = await env.ctx.db.transaction((tx) => sendQuestionnaire(tx, sender, { title: unique('Scope'), processingActivityId: activity, recipientId: owner.id, fields: ['purposes'] }, link));
    await env.ctx.db.transaction((tx) => answerQuestionnaire(tx, ownerActor, id, { answers: [{ field: 'purposes', proposed: 'Paying suppliers and staff' }] }, link));
    const refused = await env.ctx.db.transaction((tx) => decideProposal(tx, sender, id, 'purposes', 'accepted')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, deniedReason: 'dataPrivacy:update is at level own and Processing activity ' + activity + ' is not owned' });
    expect((await auditActions(id)).map((e) => e.action)).toEqual(['create', 'answered']);
    // The admin (all level) may decide it.
    await env.ctx.db.transaction((tx) => decideProposal(tx, officer, id, 'purposes', 'accepted'));
    const [row] = await env.ctx.db.select({ purposes: processingActivities.purposes }).from(processingActivities).where(eq(processingActivities.id, activity));
    expect(row.purposes).toBe('Paying suppliers and staff');
  });

  test('an overdue questionnaire is in the owner\'s daily digest, though they hold no data privacy right; once answered it is not', async () => {
    const officer = await adminActor(env);
    const { id } = await env.ctx.db.transaction((tx) => sendQuestionnaire(tx, officer, { title: unique('Overdue check'), processingActivityId: activity, recipientId: owner.id, fields: ['retention'], dueOn: '2026-01-05' }, link));
    const window = { today: sql`'2026-02-01'::date`, since: sql`'2026-01-31'::date`, sinceAt: sql`'2026-01-31T06:00:00Z'::timestamptz` };
    const listed = async () => {
      const rows = await selectRows<{ user_id: string; items: { id: string; note: string }[] }>(env.ctx.db, remindersOf(questionnaireDueDates[0], window));
      return rows.find((r) => r.user_id === owner.id)?.items ?? [];
    };
    expect((await listed()).find((i) => i.id === id)).toMatchObject({ note: 'not answered yet' });
    // The actor is loaded before the transaction: on PGlite a read outside it would wait for it to end.
    const ownerActor = await owner.actor('screen');
    await env.ctx.db.transaction((tx) => answerQuestionnaire(tx, ownerActor, id, { answers: [{ field: 'retention', proposed: null }] }, link));
    expect((await listed()).find((i) => i.id === id)).toBeUndefined();
  });
});

describe('the assistant and "Include privacy records"', () => {
  let server: ReturnType<ReturnType<typeof createApp>['listen']>;
  let endpoint: string;
  const clients: Client[] = [];
  let marker: string;
  let id: string;
  const setPrivacy = (includePrivacy: boolean) => env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true, includePrivacy }));

  beforeAll(async () => {
    server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${server.server!.port}/api/mcp`;
    marker = unique('Vendorcheck').replace(/[^A-Za-z0-9]/g, '');
    const officer = await adminActor(env);
    ({ id } = await env.ctx.db.transaction((tx) => sendQuestionnaire(tx, officer, { title: `${marker} questionnaire`, processingActivityId: activity, recipientId: admin.userId!, fields: ['retention'] }, link)));
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, DEFAULT_ASSISTANT_SETTINGS));
    await server?.stop();
  });
  const connect = async (token: string) => {
    const client = await connectMcp(endpoint, token);
    clients.push(client);
    return client;
  };

  test('while off, a questionnaire is absent from search and my_open_items and refused by get_record, even with dataPrivacy:read', async () => {
    await setPrivacy(false);
    const client = await connect(await makeToken(env, admin, ['dataPrivacy:read', 'risks:read']));
    expect(toolData<{ id: string }[]>(await callTool(client, 'search', { q: marker }))).toEqual([]);
    const read = await callTool(client, 'get_record', { recordType: 'privacyQuestionnaire', id });
    expect(read).toMatchObject({ isError: true });
    expect(JSON.stringify(read)).not.toContain(marker);
    expect(JSON.stringify(await callTool(client, 'my_open_items'))).not.toContain(marker);
  });

  test('while on, a token with dataPrivacy:read finds it, reads it and sees it waiting on the person asked', async () => {
    await setPrivacy(true);
    const client = await connect(await makeToken(env, admin, ['dataPrivacy:read', 'risks:read']));
    expect(toolData<{ kind: string; id: string }[]>(await callTool(client, 'search', { q: marker }))).toContainEqual(expect.objectContaining({ kind: 'privacyQuestionnaire', id }));
    expect(toolData<{ title: string }>(await callTool(client, 'get_record', { recordType: 'privacyQuestionnaire', id }))).toMatchObject({ title: `${marker} questionnaire` });
    const open = toolData<Record<string, { id: string; waitingFor: string }[]>>(await callTool(client, 'my_open_items'));
    expect(open.privacyQuestionnaires).toContainEqual(expect.objectContaining({ id, waitingFor: 'your answers' }));
    // A token without dataPrivacy:read reaches none of it, on or off.
    const other = await connect(await makeToken(env, admin, ['risks:read']));
    expect(toolData<{ id: string }[]>(await callTool(other, 'search', { q: marker }))).toEqual([]);
  });
});

describe('the officer\'s list: the one filter bar, headers that sort, Export of what is shown', () => {
  const word = unique('Listed').replace(/\W/g, '');
  let early: string;
  let late: string;
  beforeAll(async () => {
    late = await sendOne(`${word} bravo`, ['retention'], { dueOn: '2031-06-01' });
    early = await sendOne(`${word} alpha`, ['retention'], { dueOn: '2030-06-01' });
  });
  const titles = async (query: string) => (await json<{ rows: Questionnaire[] }>(await send('GET', `${PATH}?q=${word}${query}`, officerToken))).rows.map((q) => q.id);

  test('the API narrows by words and owner and sorts by a column either way', async () => {
    expect(await titles('')).toEqual([early, late]);
    expect(await titles('&sort=title')).toEqual([early, late]);
    expect(await titles('&sort=-dueOn')).toEqual([late, early]);
    expect(await titles(`&ownerId=${admin.userId}`)).toEqual([early, late]);
    expect(await titles(`&ownerId=${owner.id}`)).toEqual([]);
    expect((await send('GET', `${PATH}?sort=colour`, officerToken)).status).toBe(400);
  });

  test('the screen has the filter bar with Owner and sorting headers; its Export follows the filters and sort', async () => {
    const person = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await person.get(`/data-privacy/questionnaires?q=${word}&sort=-dueOn`)).text();
    for (const label of ['Search titles', 'Status', 'Owner']) expect(html).toContain(`>${label}</label>`);
    expect(html).toContain('2 questionnaires match these filters');
    expect(html).toContain('aria-sort="descending"');
    expect(html).toContain(`href="/data-privacy/questionnaires?q=${word}&sort=dueOn"`);
    expect(html).toContain(`href="/data-privacy/questionnaires.csv?q=${word}&sort=-dueOn"`);
    const csv = await person.get(`/data-privacy/questionnaires.csv?q=${word}&sort=-dueOn`);
    const lines = (await csv.text()).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe('Title,Processing activity,Sent to,Due on,Status');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([`${word} bravo`, `${word} alpha`]);
    expect(lines[1]).toEndWith(',2031-06-01,Waiting for answers');
  });
});
