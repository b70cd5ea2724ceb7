import { beforeAll, describe, expect, test } from 'bun:test';
import { answerQuestionnaire, sendQuestionnaire } from '../../src/modules/dataPrivacy/questionnaire-service';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { createRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique, type TestUser } from '../helpers/factories';

/**
 * "My privacy questionnaires" has the lists' one look: the filter bar (words of the title, status in the list's words),
 * headers that sort with the sort in the address, paging with the total, and an Export of exactly what the filters
 * hold, names and words, times in the reader's zone. Only questionnaires addressed to the reader appear.
 */

let env: TestEnv;
let admin: Actor;
let owner: TestUser;
let b: Browser;
let activityName: string;
let activityId: string;
const word = unique('Payroll');
const titles = { a: `${word} a retention`, b: `${word} b recipients`, c: `${word} c purposes` };
const link = (path: string) => `https://grc.example${path}`;

async function send(title: string, to: TestUser, activity: string, dueOn: string | null): Promise<string> {
  return env.ctx.db.transaction(async (tx) =>
    (await sendQuestionnaire(tx, admin, { title, processingActivityId: activity, recipientId: to.id, fields: ['retention'], dueOn }, link)).id);
}

const page = async (path: string) => {
  const res = await b.get(path);
  expect(res.status, path).toBe(200);
  return res.text();
};

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  owner = await makeUser(env, {}, unique('casey'));
  const someone = await makeUser(env, {}, unique('drew'));
  activityName = unique('Supplier payments');
  const activity = await env.ctx.db.transaction(async (tx) =>
    (await createRecord(tx, processingActivityKind, admin, { name: activityName, legalBasis: 'contract', retention: 'Ten years' })).id as string);
  activityId = activity;
  await send(titles.b, owner, activity, '2030-05-01');
  const answered = await send(titles.a, owner, activity, '2030-09-01');
  await send(titles.c, owner, activity, null);
  await send(`${word} for someone else`, someone, activity, '2030-01-01');
  // Confirmed as it is: closed at once.
  const actor = await owner.actor(); // read before the transaction: PGlite's one connection is the transaction's
  await env.ctx.db.transaction(async (tx) => answerQuestionnaire(tx, actor, answered, { answers: [{ field: 'retention', proposed: null }] }, link));
  b = browser(env);
  expect((await b.post('/sign-in', { email: owner.email, password: owner.password, next: '/' })).status).toBe(303);
});

describe('My privacy questionnaires: filters, sort and paging', () => {
  test('waiting ones first by default; the filter bar searches titles and filters by status in the list’s words', async () => {
    const all = await page(`/data-privacy/my-questionnaires?q=${encodeURIComponent(word)}`);
    expect(all).toContain('role="search"');
    expect(all).toContain('<option value="sent">Waiting for answers</option>');
    expect(all).toContain('3 questionnaires match these filters');
    expect(all.indexOf(titles.b)).toBeLessThan(all.indexOf(titles.a));
    expect(all).not.toContain('for someone else');

    const closed = await page(`/data-privacy/my-questionnaires?q=${encodeURIComponent(word)}&status=closed`);
    expect(closed).toContain(titles.a);
    expect(closed).not.toContain(titles.b);
    expect(closed).toContain('1 questionnaire matches these filters');
  });

  test('headers sort on click, the sort in the address and kept by the filter bar', async () => {
    const q = encodeURIComponent(word);
    const byTitle = await page(`/data-privacy/my-questionnaires?q=${q}&sort=-title`);
    expect(byTitle.indexOf(titles.c)).toBeLessThan(byTitle.indexOf(titles.b));
    expect(byTitle.indexOf(titles.b)).toBeLessThan(byTitle.indexOf(titles.a));
    expect(byTitle).toContain(`href="/data-privacy/my-questionnaires?q=${q}&sort=title"`);
    expect(byTitle).toContain('<input type="hidden" name="sort" value="-title" form="results-data-privacy-my-questionnaires-filters"/>');
    const byDue = await page(`/data-privacy/my-questionnaires?q=${q}&sort=dueOn`);
    expect(byDue.indexOf(titles.b)).toBeLessThan(byDue.indexOf(titles.a));
    expect(byDue.indexOf(titles.a)).toBeLessThan(byDue.indexOf(titles.c));
  });

  test('paged with the total', async () => {
    const second = await page(`/data-privacy/my-questionnaires?q=${encodeURIComponent(word)}&sort=title&pageSize=10&page=1`);
    expect(second).toContain('1–3 of 3');
    expect(second).toContain(`${activityName}`);
  });
});

describe('My privacy questionnaires: Export', () => {
  test('the Export link carries the filters and sort and asks for the reader’s zone', async () => {
    const q = encodeURIComponent(word);
    const html = await page(`/data-privacy/my-questionnaires?q=${q}&status=sent&sort=dueOn`);
    expect(html).toContain(`href="/data-privacy/my-questionnaires/export.csv?q=${q}&status=sent&sort=dueOn" download="" data-reader-zone=""`);
  });

  test('the CSV holds what the filters hold: names, statuses in words, sent and answered times in the zone asked for', async () => {
    const res = await b.get(`/data-privacy/my-questionnaires/export.csv?q=${encodeURIComponent(word)}&sort=title&tz=America/New_York`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('my-privacy-questionnaires-');
    const [header, ...lines] = (await res.text()).replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(header).toBe('Title,Processing activity,Sent by,Answers due on,Status,Sent at (America/New_York),Answered at (America/New_York)');
    expect(lines).toHaveLength(3);
    const time = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d';
    expect(lines[0]).toMatch(new RegExp(`^${titles.a},${activityName},[^,]+,2030-09-01,Closed,${time},${time}$`));
    expect(lines[1]).toMatch(new RegExp(`^${titles.b},${activityName},[^,]+,2030-05-01,Waiting for answers,${time},$`));
    expect(lines[2]).toContain(`${titles.c},${activityName},`);
  });

  test('the status filter narrows the file as it narrows the screen', async () => {
    const csv = await (await b.get(`/data-privacy/my-questionnaires/export.csv?q=${encodeURIComponent(word)}&status=closed`)).text();
    expect(csv).toContain(titles.a);
    expect(csv).not.toContain(titles.b);
    expect(csv).toContain('Sent at (UTC)');
  });
});

describe("a processing activity's questionnaires, for the privacy officer", () => {
  test('counted on its page with an Export, and filtered to it in Liaison questionnaires', async () => {
    const officer = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const elsewhere = await env.ctx.db.transaction(async (tx) =>
      (await createRecord(tx, processingActivityKind, admin, { name: unique('Hiring'), legalBasis: 'contract' })).id as string);
    const otherTitle = unique('About hiring');
    await send(otherTitle, owner, elsewhere, null);

    const page = await (await officer.get(`/data-privacy/processing-activities/${activityId}`)).text();
    expect(page).toContain('4 questionnaires.');
    expect(page).toContain(`href="/data-privacy/questionnaires?processingActivityId=${activityId}"`);
    expect(page).toContain(`href="/data-privacy/questionnaires.csv?processingActivityId=${activityId}"`);

    const list = await (await officer.get(`/data-privacy/questionnaires?processingActivityId=${activityId}&sort=title`)).text();
    expect(list).toContain('<label for="filter-processingActivityId">Processing activity</label>');
    expect(list).toMatch(new RegExp(`<option value="${activityId}" selected>`));
    expect(list).toContain('4 questionnaires match these filters');
    expect(list).not.toContain(otherTitle);
    expect(list.indexOf(titles.a)).toBeLessThan(list.indexOf(titles.b));

    const csv = await (await officer.get(`/data-privacy/questionnaires.csv?processingActivityId=${activityId}`)).text();
    expect(csv).toContain(titles.c);
    expect(csv).not.toContain(otherTitle);
  });
});
