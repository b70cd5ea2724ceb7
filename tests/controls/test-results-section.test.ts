import { beforeAll, describe, expect, test } from 'bun:test';
import { controlKind, recordControlTest } from '../../src/modules/controls/service';
import { createRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

/**
 * A control's test results on its page: newest first by date, the result in words and the tester by name; headers that
 * sort the section in place, paging with the total, and an Export CSV of every test in the order chosen.
 */

let env: TestEnv;
let admin: Actor;
let adminBrowser: Browser;
let control: string;
let testerName: string;
const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}`;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  adminBrowser = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  testerName = unique('Tess Tester');
  const tester = await makeUser(env, { 'controls:read': 'all' }, testerName);
  control = (await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: unique('Restore drill') }))).id as string;
  for (let n = 1; n <= 27; n++) {
    const result = n === 1 ? 'fail' : n === 2 ? 'partial' : 'pass';
    await env.ctx.db.transaction((tx) => recordControlTest(tx, admin, control, { testedOn: day(n), result, notes: `note ${n}`, testerId: tester.id }));
  }
});

const text = async (b: Browser, path: string, headers: Record<string, string> = {}) => {
  const res = await b.get(path, headers);
  expect(res.status, path).toBe(200);
  return res.text();
};

const sectionOf = (html: string) => {
  const start = html.indexOf('<section id="linked-tests"');
  expect(start, 'the test results section').toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
};

const rowsOf = (csv: string) => csv.replace(/^\uFEFF/, '').trim().split('\r\n');

describe("a control's test results", () => {
  test('open newest first with the total, results in words and the tester by name, the headers sorting in place', async () => {
    const section = sectionOf(await text(adminBrowser, `/controls/${control}`));
    expect(section).toContain('Test results');
    expect(section).toContain('27 control tests');
    expect(section.indexOf(day(27))).toBeLessThan(section.indexOf(day(26)));
    expect(section).not.toContain(`>${day(2)}<`);
    expect(section).toContain('<td data-label="Result"><span>Passed</span></td>');
    expect(section).not.toContain('<span>pass</span>');
    expect(section).toContain(`<td data-label="Tester"><span>${testerName}</span></td>`);
    expect(section).toContain('<td data-label="Notes"><span>note 27</span></td>');
    expect(section).toContain('aria-sort="descending"');
    // A test has no page of its own: its date is not a link back to the control.
    expect(section).not.toContain(`href="/controls/${control}"`);
    expect(section).toContain(`hx-get="/linked/control/${control}/tests?sort=title" hx-target="#linked-tests" hx-select="#linked-tests" hx-swap="outerHTML"`);
    expect(section).toContain('1–25 of 27');
    expect(section).toContain(`hx-get="/linked/control/${control}/tests?page=2"`);
  });

  test('sorted oldest first, and by result either way, the pager keeping the order', async () => {
    const oldest = sectionOf(await text(adminBrowser, `/linked/control/${control}/tests?sort=title`, { 'HX-Request': 'true' }));
    expect(oldest.indexOf(day(1))).toBeLessThan(oldest.indexOf(day(2)));
    expect(oldest).not.toContain(`>${day(27)}<`);
    expect(oldest).toContain('aria-sort="ascending"');
    expect(oldest).toContain(`hx-get="/linked/control/${control}/tests?page=2&sort=title"`);
    const second = sectionOf(await text(adminBrowser, `/linked/control/${control}/tests?page=2&sort=title`, { 'HX-Request': 'true' }));
    expect(second).toContain('26–27 of 27');
    expect(second.indexOf(day(26))).toBeLessThan(second.indexOf(day(27)));

    const byResult = sectionOf(await text(adminBrowser, `/linked/control/${control}/tests?sort=detail`, { 'HX-Request': 'true' }));
    expect(byResult.indexOf('Failed')).toBeGreaterThanOrEqual(0);
    expect(byResult.indexOf(day(1))).toBeLessThan(byResult.indexOf(day(2)));
    const byResultDown = sectionOf(await text(adminBrowser, `/linked/control/${control}/tests?sort=-detail`, { 'HX-Request': 'true' }));
    expect(byResultDown).not.toContain(`>${day(1)}<`);
    expect(byResultDown).not.toContain('Failed');
  });

  test('its Export CSV holds every test, dates, results in words, tester names and notes, in the order chosen', async () => {
    const section = sectionOf(await text(adminBrowser, `/linked/control/${control}/tests?sort=title`, { 'HX-Request': 'true' }));
    expect(section).toContain(`href="/linked/control/${control}/tests/export.csv?sort=title" download=""`);
    const res = await adminBrowser.get(`/linked/control/${control}/tests/export.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const [header, ...lines] = rowsOf(await res.text());
    expect(header).toBe('Date,Result,Tester,Notes');
    expect(lines).toHaveLength(27);
    expect(lines[0]).toBe(`${day(27)},Passed,${testerName},note 27`);
    expect(lines[25]).toBe(`${day(2)},Partly passed,${testerName},note 2`);
    expect(lines[26]).toBe(`${day(1)},Failed,${testerName},note 1`);
    const ascending = rowsOf(await text(adminBrowser, `/linked/control/${control}/tests/export.csv?sort=title`));
    expect(ascending[1]).toBe(`${day(1)},Failed,${testerName},note 1`);
  });

  test('a reader who may not read the control gets neither the section nor its CSV', async () => {
    const stranger = await makeUser(env, { 'controls:read': 'own' });
    const s = browser(env);
    expect((await s.post('/sign-in', { email: stranger.email, password: stranger.password, next: '/' })).status).toBe(303);
    const refused = await refusalOf(env, async () => s.get(`/linked/control/${control}/tests/export.csv`));
    expect(refused).toEqual(refusedWith(404, undefined, 'link to Control <id>: not readable (controls:read)'));
    const page = await s.get(`/linked/control/${control}/tests`);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain('note 27');
  });
});
