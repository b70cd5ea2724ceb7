import { beforeAll, describe, expect, test } from 'bun:test';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { breachClock } from '../../src/modules/dataPrivacy/breaches';
import type { BreachEntryView } from '../../src/modules/dataPrivacy/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, dataOf } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { signedInBrowser } from '../helpers/browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';

const INCIDENTS: Permission[] = ['incidents:read', 'incidents:create', 'incidents:update'];
const BREACHES = '/api/v1/data-privacy/breaches';

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...INCIDENTS, 'dataPrivacy:read']);
});

const send = apiSender(() => env, () => token);
const json = dataOf;
const ok = async (res: Response, status = 200) => expect(res.status, await res.clone().text()).toBe(status);

/** An incident recorded as a breach through the incidents API, with its notifications to the authority. */
async function breach(detectedAt: string | null, notifiedOn: string[] = [], secret = token): Promise<{ id: string; title: string }> {
  const title = unique('Mailbox compromise');
  const res = await send('POST', '/api/v1/incidents', { title, openedAt: '2026-01-01' }, secret);
  await ok(res, 201);
  const id = (await json<{ id: string }>(res)).id;
  await ok(await send('PUT', `/api/v1/incidents/${id}/breach`, { categories: ['email addresses'], approximateSubjects: 1200, ...(detectedAt ? { detectedAt } : {}) }, secret));
  for (const on of notifiedOn) await ok(await send('POST', `/api/v1/incidents/${id}/breach/notifications`, { recipient: 'authority', notifiedOn: on }, secret), 201);
  return { id, title };
}

const listed = async (secret = token) => json<BreachEntryView[]>(await send('GET', BREACHES, undefined, secret));

describe('the 72-hour clock (GDPR Art. 33(1))', () => {
  const entry = (detectedAt: string | null, authorityNotifiedOn: string | null = null) => ({
    incidentId: 'x', title: 'x', status: 'open' as const, categories: [], approximateSubjects: null, detectedAt, authorityNotifiedOn, subjectsNotifiedOn: null,
  });
  test('runs from the start of the day of awareness: hours left, then hours overdue', () => {
    expect(breachClock(entry('2026-03-01'), new Date('2026-03-02T10:30:00Z'))).toMatchObject({ clock: 'running', hoursLeft: 37, deadline: '2026-03-04T00:00:00.000Z' });
    expect(breachClock(entry('2026-03-01'), new Date('2026-03-04T05:00:00Z'))).toMatchObject({ clock: 'overdue', hoursOverdue: 5 });
  });
  test('a notification on the second day after awareness is in time; on the third, late', () => {
    expect(breachClock(entry('2026-03-01', '2026-03-03'), new Date('2026-04-01T00:00:00Z')).clock).toBe('notified_in_time');
    expect(breachClock(entry('2026-03-01', '2026-03-04'), new Date('2026-04-01T00:00:00Z')).clock).toBe('notified_late');
  });
  test('without an awareness date there is no clock', () => {
    expect(breachClock(entry(null), new Date())).toMatchObject({ clock: 'no_awareness_date', deadline: null });
  });
});

describe('breaches in data privacy\'s views', () => {
  test('the breach details incidents hold, with the first notification to the authority and the clock', async () => {
    const late = await breach('2026-03-01', ['2026-03-06', '2026-03-09']);
    const inTime = await breach('2026-03-01', ['2026-03-02']);
    const today = new Date().toISOString().slice(0, 10);
    const open = await breach(today);
    const rows = await listed();
    const byId = new Map(rows.map((r) => [r.incidentId, r]));
    expect(byId.get(late.id)).toMatchObject({ title: late.title, awareOn: '2026-03-01', authorityNotifiedOn: '2026-03-06', clock: 'notified_late', approximateSubjects: 1200, categories: ['email addresses'] });
    expect(byId.get(inTime.id)).toMatchObject({ clock: 'notified_in_time', authorityNotifiedOn: '2026-03-02' });
    expect(byId.get(open.id)).toMatchObject({ clock: 'running', authorityNotifiedOn: null });
    expect(byId.get(open.id)!.hoursLeft).toBeGreaterThan(47);
  });

  test('the level of incidents is respected: at own level only one\'s own incidents\' breaches', async () => {
    const user = await makeUser(env, { 'incidents:read': 'own', 'incidents:create': 'own', 'incidents:update': 'own', 'dataPrivacy:read': 'all', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), [...INCIDENTS, 'dataPrivacy:read']);
    const mine = await breach('2026-02-01', [], own);
    const theirs = await breach('2026-02-01');
    const ids = (await listed(own)).map((r) => r.incidentId);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
  });

  test('without incidents:read the list is refused, naming the missing scope', async () => {
    const privacyOnly = await makeToken(env, admin, ['dataPrivacy:read']);
    expect(await refusalOf(env, () => send('GET', BREACHES, undefined, privacyOnly))).toEqual(refusedWith(403, 'forbidden', 'token scope incidents:read missing'));
  });

  test('the Breaches screen lists them with the clock in words; without incidents:read it says why nothing is listed', async () => {
    const late = await breach('2026-03-01', ['2026-03-06']);
    const person = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await person.get('/data-privacy/breaches');
    const html = await page.text();
    expect(page.status, html.slice(0, 300)).toBe(200);
    expect(html).toContain(late.title);
    expect(html).toContain('Notified late');
    const user = await makeUser(env, { 'dataPrivacy:read': 'all' });
    const reader = await signedInBrowser(env, user.email, 'a long enough password');
    const refused = await (await reader.get('/data-privacy/breaches')).text();
    expect(refused).toContain('reading them needs read access to incidents');
    expect(refused).not.toContain(late.title);
  });

  test('the Breaches screen exports what it lists as CSV, in its words; a reader without incidents gets the header alone', async () => {
    const late = await breach('2026-03-01', ['2026-03-06']);
    const person = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(await (await person.get('/data-privacy/breaches')).text()).toContain('href="/data-privacy/breaches.csv"');
    const csv = await person.get('/data-privacy/breaches.csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Incident,Aware on,72-hour deadline,Authority notified on,72-hour clock,Data subjects told on,Approx. subjects,Incident status');
    expect(lines.find((l) => l.startsWith(`${late.title},`))).toBe(`${late.title},2026-03-01,2026-03-04 00:00 UTC,2026-03-06,Notified late,,1200,Open`);
    const user = await makeUser(env, { 'dataPrivacy:read': 'all' });
    const reader = await signedInBrowser(env, user.email, 'a long enough password');
    expect((await (await reader.get('/data-privacy/breaches.csv')).text()).trim().split('\r\n')).toHaveLength(1);
  });
});
