import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { awarenessResults } from '../../db/schema';
import { createRecord } from '../../src/platform/records/records';
import { listMyTraining, programKind, publishProgram, submitAttempt } from '../../src/modules/awareness/service';
import { testEnv, type TestEnv } from '../helpers/app';
import { browser, type Browser } from '../helpers/browser';
import { makeUser, unique, type TestUser } from '../helpers/factories';

/**
 * "My training" has the lists' one look: the filter bar (words of the title, status in words), headers that sort with
 * the sort in the address, paging with the total, and an Export of exactly what the filters hold, in words, times in
 * the reader's zone.
 */

let env: TestEnv;
let person: TestUser;
let other: TestUser;
let b: Browser;
const word = unique('Cyber');
const titles = { alpha: `${word} alpha hygiene`, beta: `${word} beta phishing`, gamma: `${word} gamma passwords` };

async function assign(title: string, to: TestUser, endsOn: string | null = null): Promise<string> {
  const manager = await makeUser(env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own' });
  const actor = await manager.actor();
  const programId = await env.ctx.db.transaction(async (tx) => {
    const { id } = await createRecord(tx, programKind, actor, { title, content: 'Read this.', audienceUserIds: [to.id], endsOn });
    await publishProgram(tx, actor, id);
    return id as string;
  });
  const [result] = await env.ctx.db.select({ id: awarenessResults.id }).from(awarenessResults)
    .where(and(eq(awarenessResults.programId, programId), eq(awarenessResults.personId, to.id)));
  return result.id;
}

const page = async (path: string) => {
  const res = await b.get(path);
  expect(res.status, path).toBe(200);
  return res.text();
};

beforeAll(async () => {
  env = await testEnv();
  person = await makeUser(env, {}, unique('robin'));
  other = await makeUser(env, {}, unique('sam'));
  await assign(titles.beta, person, '2031-03-01');
  const passed = await assign(titles.alpha, person, '2030-06-30');
  await assign(titles.gamma, person);
  await assign(`${word} someone else's`, other);
  // A program without questions is passed by reading it.
  // The actor is read before the transaction: PGlite has one connection, which the open transaction holds.
  const personActor = await person.actor();
  await env.ctx.db.transaction(async (tx) => submitAttempt(tx, personActor, passed, { answers: [] }));
  b = browser(env);
  expect((await b.post('/sign-in', { email: person.email, password: person.password, next: '/' })).status).toBe(303);
});

describe('My training: filters, sort and paging', () => {
  test('the filter bar searches the titles and filters by status in words, the count saying how many match', async () => {
    const html = await page(`/awareness/my?q=${encodeURIComponent(`${word} beta`)}`);
    expect(html).toContain('role="search"');
    expect(html).toContain('Search program titles');
    expect(html).toContain('<option value="assigned">Not started</option>');
    expect(html).toContain(titles.beta);
    expect(html).not.toContain(titles.alpha);
    expect(html).toContain('1 assigned program matches these filters');

    const passed = await page(`/awareness/my?q=${encodeURIComponent(word)}&status=passed`);
    expect(passed).toContain(titles.alpha);
    expect(passed).not.toContain(titles.beta);
    expect(passed).toContain('<option value="passed" selected>Passed</option>');
  });

  test('only the person’s own programs are listed, whatever the filters', async () => {
    const html = await page(`/awareness/my?q=${encodeURIComponent(word)}`);
    expect(html).not.toContain("someone else's");
    expect(html).toContain('3 assigned programs match these filters');
  });

  test('headers sort on click, the sort in the address and kept by the filter bar', async () => {
    const q = encodeURIComponent(word);
    const ascending = await page(`/awareness/my?q=${q}&sort=program`);
    expect(ascending.indexOf(titles.alpha)).toBeLessThan(ascending.indexOf(titles.gamma));
    const descending = await page(`/awareness/my?q=${q}&sort=-program`);
    expect(descending.indexOf(titles.gamma)).toBeLessThan(descending.indexOf(titles.alpha));
    expect(descending).toContain('aria-sort="descending"');
    // The header's link sorts the other way; the current sort rides with the filter bar's form.
    expect(descending).toContain(`href="/awareness/my?q=${q}&sort=program"`);
    expect(descending).toContain('<input type="hidden" name="sort" value="-program" form="results-awareness-my-filters"/>');
    // By due date: blanks last.
    const due = await page(`/awareness/my?q=${q}&sort=due`);
    expect(due.indexOf(titles.alpha)).toBeLessThan(due.indexOf(titles.beta));
    expect(due.indexOf(titles.beta)).toBeLessThan(due.indexOf(titles.gamma));
  });

  test('a sort the list does not offer reads as the default order, not an error', async () => {
    const html = await page(`/awareness/my?q=${encodeURIComponent(word)}&sort=password`);
    expect(html).toContain(titles.alpha);
  });

  test('a long list is paged with its total', async () => {
    const many = unique('Module');
    for (let i = 1; i <= 11; i++) await assign(`${many} ${String(i).padStart(2, '0')}`, person);
    const second = await page(`/awareness/my?q=${encodeURIComponent(many)}&sort=program&pageSize=10&page=2`);
    expect(second).toContain('11–11 of 11');
    expect(second).toContain(`${many} 11`);
    expect(second).not.toContain(`${many} 01<`);
    const { rows, total } = await listMyTraining(env.ctx.db, await person.actor(), { q: many, sort: 'program', page: 1, pageSize: 10 });
    expect(total).toBe(11);
    expect(rows.map((r) => r.programTitle)[0]).toBe(`${many} 01`);
  });
});

describe('My training: Export', () => {
  test('the Export link carries the filters and sort and asks for the reader’s zone', async () => {
    const q = encodeURIComponent(word);
    const html = await page(`/awareness/my?q=${q}&status=passed&sort=-program`);
    expect(html).toContain(`href="/awareness/my/export.csv?q=${q}&status=passed&sort=-program" download="" data-reader-zone=""`);
  });

  test('the CSV holds what the filters hold, statuses in words, times in the zone asked for', async () => {
    const res = await b.get(`/awareness/my/export.csv?q=${encodeURIComponent(word)}&status=passed&tz=Europe/Paris`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const csv = await res.text();
    const [header, ...lines] = csv.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(header).toBe('Program,Status,Score,Attempts,Due,Assigned (Europe/Paris),Completed (Europe/Paris)');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${titles.alpha},Passed,100%,1,2030-06-30,\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d,\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d$`));
    expect(csv).not.toContain(titles.beta);
  });

  test('in the list’s order; without a known zone the file is in UTC; another person’s programs never appear', async () => {
    const csv = await (await b.get(`/awareness/my/export.csv?q=${encodeURIComponent(word)}&sort=-program&tz=Mars/Olympus`)).text();
    expect(csv).toContain('Assigned (UTC)');
    expect(csv.indexOf(titles.gamma)).toBeLessThan(csv.indexOf(titles.beta));
    expect(csv.indexOf(titles.beta)).toBeLessThan(csv.indexOf(titles.alpha));
    expect(csv).toContain(`${titles.gamma},Not started,,0,,`);
    expect(csv).not.toContain("someone else's");
  });
});
