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
    ownerId: null, owner: null,
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
    expect(lines[0]).toBe('Incident,Aware on,72-hour deadline,Authority notified on,72-hour clock,Data subjects told on,Approx. subjects,Incident status,Owner');
    expect(lines.find((l) => l.startsWith(`${late.title},`))).toBe(`${late.title},2026-03-01,2026-03-04 00:00 UTC,2026-03-06,Notified late,,1200,Open,Administrator`);
    const user = await makeUser(env, { 'dataPrivacy:read': 'all' });
    const reader = await signedInBrowser(env, user.email, 'a long enough password');
    expect((await (await reader.get('/data-privacy/breaches.csv')).text()).trim().split('\r\n')).toHaveLength(1);
  });
});

describe('the breaches list: one filter bar, sorting from the headers, paging, Export of what is shown', () => {
  /** A breach with its own words, subjects, owner and status, recorded through the incidents API. */
  async function recorded(words: string, p: { detectedAt: string; subjects: number; ownerId?: string; closed?: boolean; notifiedOn?: string }) {
    const title = unique(words);
    const res = await send('POST', '/api/v1/incidents', { title, openedAt: '2026-01-01', ...(p.ownerId ? { ownerId: p.ownerId } : {}) });
    await ok(res, 201);
    const id = (await json<{ id: string }>(res)).id;
    await ok(await send('PUT', `/api/v1/incidents/${id}/breach`, { categories: ['email addresses'], approximateSubjects: p.subjects, detectedAt: p.detectedAt }));
    if (p.notifiedOn) await ok(await send('POST', `/api/v1/incidents/${id}/breach/notifications`, { recipient: 'authority', notifiedOn: p.notifiedOn }), 201);
    if (p.closed) await ok(await send('PATCH', `/api/v1/incidents/${id}`, { status: 'closed', resolution: 'Contained.' }));
    return { id, title };
  }

  let owner: { id: string; name: string };
  let overdue: { id: string; title: string };
  let closed: { id: string; title: string };
  let running: { id: string; title: string };
  const word = unique('Sortcase').replace(/\W/g, '');
  beforeAll(async () => {
    const name = unique('Breach owner');
    owner = { id: (await makeUser(env, {}, name)).id, name };
    overdue = await recorded(`${word} lost laptop`, { detectedAt: '2026-01-10', subjects: 40, ownerId: owner.id });
    closed = await recorded(`${word} misdirected mail`, { detectedAt: '2026-01-12', subjects: 3, closed: true, notifiedOn: '2026-01-13' });
    running = await recorded(`${word} open bucket`, { detectedAt: new Date().toISOString().slice(0, 10), subjects: 900 });
  });
  const titles = async (query: string) => (await json<BreachEntryView[]>(await send('GET', `${BREACHES}?q=${word}&${query}`))).map((b) => b.incidentId);

  test('the API narrows by words, incident status, the 72-hour clock and owner, and names the owner', async () => {
    expect(await titles('')).toHaveLength(3);
    expect(await titles('status=closed')).toEqual([closed.id]);
    expect(await titles('clock=overdue')).toEqual([overdue.id]);
    expect(await titles(`ownerId=${owner.id}`)).toEqual([overdue.id]);
    const rows = await json<BreachEntryView[]>(await send('GET', `${BREACHES}?ownerId=${owner.id}`));
    expect(rows.map((r) => r.owner)).toEqual([owner.name]);
  });

  test('the API sorts by a column either way; newest awareness first without a sort', async () => {
    expect(await titles('')).toEqual([running.id, closed.id, overdue.id]);
    expect(await titles('sort=approximateSubjects')).toEqual([closed.id, overdue.id, running.id]);
    expect(await titles('sort=-approximateSubjects')).toEqual([running.id, overdue.id, closed.id]);
    expect(await titles('sort=clock')).toEqual([overdue.id, running.id, closed.id]);
  });

  test('a filter naming nothing the list knows is refused by the API, naming it and the values it takes', async () => {
    const res = await send('GET', `${BREACHES}?clock=late`);
    expect(res.status, await res.clone().text()).toBe(400);
    expect(await res.json()).toMatchObject({
      problems: [{ field: 'clock', message: 'must be one of running, overdue, notified_in_time, notified_late, no_awareness_date' }],
    });
    const sorted = await send('GET', `${BREACHES}?sort=__proto__`);
    expect(sorted.status).toBe(400);
    expect(((await sorted.json()) as { problems: { message: string }[] }).problems[0].message).toStartWith('must be one of title, -title, awareOn');
  });

  test('the screen has the one filter bar with Owner, headers that sort (the sort in the address) and the total', async () => {
    const person = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await person.get(`/data-privacy/breaches?q=${word}&sort=-approximateSubjects`)).text();
    expect(html).toContain('class="filter-bar card"');
    expect(html).toContain('aria-label="Filter personal-data breaches"');
    for (const label of ['Search incidents', 'Incident status', 'Notification', 'Owner']) expect(html).toContain(`>${label}</label>`);
    expect(html).toContain('3 breaches match these filters');
    expect(html).toContain('aria-sort="descending"');
    // Clicking the sorted header again sorts the other way, the filters kept.
    expect(html).toContain(`href="/data-privacy/breaches?q=${word}&sort=approximateSubjects"`);
    expect(html.indexOf(running.title)).toBeLessThan(html.indexOf(closed.title));
    expect(html).toContain(`href="/data-privacy/breaches.csv?q=${word}&sort=-approximateSubjects"`);
    // One breach "matches"; more "match".
    expect(await (await person.get(`/data-privacy/breaches?q=${word}&clock=overdue`)).text()).toContain('1 breach matches these filters');
  });

  test('the screen pages by 25 with the total, the filters kept in the page links', async () => {
    const many = unique('Pagecase').replace(/\W/g, '');
    for (let i = 0; i < 26; i++) await recorded(`${many} ${String(i).padStart(2, '0')}`, { detectedAt: '2026-02-01', subjects: i });
    const person = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const first = await (await person.get(`/data-privacy/breaches?q=${many}&sort=title`)).text();
    expect(first).toContain('1–25 of 26');
    expect(first).toContain(`href="/data-privacy/breaches?q=${many}&sort=title&page=2"`);
    const second = await (await person.get(`/data-privacy/breaches?q=${many}&sort=title&page=2`)).text();
    expect(second).toContain('26–26 of 26');
    expect(second).toContain(`${many} 25`);
    expect(second).not.toContain(`${many} 00`);
  });

  test('Export writes what the filters and sort show, and nothing else', async () => {
    const person = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const lines = async (query: string) => (await (await person.get(`/data-privacy/breaches.csv?q=${word}&${query}`)).text()).replace(/^\uFEFF/, '').trim().split('\r\n').slice(1);
    expect(await lines('clock=overdue')).toEqual([expect.stringMatching(new RegExp(`^${overdue.title},2026-01-10,.*,Overdue by \\d+ hours: not notified,,40,Open,${owner.name}$`))]);
    expect((await lines('status=closed')).map((l) => l.split(',')[0])).toEqual([closed.title]);
    // "lost laptop", "misdirected mail", "open bucket": by title.
    expect((await lines('sort=title')).map((l) => l.split(',')[0])).toEqual([overdue.title, closed.title, running.title]);
  });
});
