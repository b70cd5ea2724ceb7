import { beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Download, Page } from 'playwright';
import { createLabel } from '../../src/modules/labels/service';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { apiSender, createdId } from '../helpers/api';
import { axeViolations, screenshots } from '../helpers/axe';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable } from '../helpers/chromium';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';

/**
 * The lists brought to the one standard, in Chromium at 1366 × 768: personal-data breaches, the POA&M and the Article 30
 * register. On each a person filters with the one filter bar, sorts by clicking a header (the sort lands in the address),
 * pages, and exports: the downloaded file is read and holds what the list showed. axe finds nothing on the way, and the
 * breaches list fits the window without scrolling sideways.
 */

const app = useBrowserApp('lists');
let token: string;
let owner: { id: string; name: string };
const send = apiSender(() => app.env, () => token);
const ok = async (res: Response, status = 200) => expect(res.status, await res.clone().text()).toBe(status);

beforeAll(async () => {
  if (!chromiumAvailable) return;
  const admin = await adminActor(app.env);
  token = await makeToken(app.env, admin, [
    'incidents:read', 'incidents:create', 'incidents:update', 'dataPrivacy:read', 'dataPrivacy:create',
    'audits:read', 'audits:create', 'audits:update', 'compliance:read', 'assessments:read', 'assessments:create',
  ]);
  const name = unique('List owner');
  owner = { id: (await makeUser(app.env, {}, name)).id, name };
}, 60_000);

async function signedIn(): Promise<Page> {
  const context = await app.browser.newContext({ viewport: { width: 1366, height: 768 }, acceptDownloads: true, locale: 'en-GB' });
  const page = await context.newPage();
  await page.goto(`${app.base}/sign-in`);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in');
  return page;
}

async function expectAccessible(page: Page, what: string) {
  expect(await axeViolations(page), what).toEqual([]);
}

/** The page's own width against the window's, and each table's against its frame: nothing clipped or scrolled sideways. */
const fitsWindow = (page: Page) => page.evaluate(() => {
  const fits = (e: Element) => e.scrollWidth <= e.clientWidth;
  return fits(document.documentElement) && Array.from(document.querySelectorAll('main .table-wrap')).every(fits);
});

/** The rows of a downloaded CSV file after its header, its byte order mark checked. */
async function downloaded(download: Download): Promise<{ header: string; rows: string[] }> {
  const bytes = readFileSync((await download.path())!);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const [header, ...rows] = bytes.subarray(3).toString('utf8').trimEnd().split('\r\n');
  return { header, rows };
}

/** Clicks a column header's sort link and waits for the address to hold that sort. */
async function sortBy(page: Page, results: string, header: string, sort: string) {
  await page.locator(`${results} thead`).getByRole('link', { name: new RegExp(`^${header}`) }).click();
  await page.waitForURL((url) => url.searchParams.get('sort') === sort);
  if (process.env.DEBUG_LISTS) console.log(page.url(), await page.locator(`${results} thead`).innerHTML());
  await page.locator(`${results} th[aria-sort] a[href*="sort=${sort.startsWith('-') ? sort.slice(1) : `-${sort}`}"]`).waitFor();
}

describe.skipIf(!chromiumAvailable)('lists in the browser: filter, sort, page, export', () => {
  test('personal-data breaches: search, notification state and Owner, a header sorts, pages, Export follows; fits 1366 px', async () => {
    const word = unique('Laptop').replace(/\W/g, '');
    /** A breach recorded through the incidents API. */
    const breach = async (n: number, detectedAt: string, ownerId?: string) => {
      const id = await createdId(await send('POST', '/api/v1/incidents', { title: `${word} breach ${String(n).padStart(2, '0')}`, openedAt: '2026-01-01', ...(ownerId ? { ownerId } : {}) }));
      await ok(await send('PUT', `/api/v1/incidents/${id}/breach`, { categories: ['email addresses'], approximateSubjects: n * 10, detectedAt }));
      return id;
    };
    const today = new Date().toISOString().slice(0, 10);
    for (let n = 1; n <= 26; n++) await breach(n, today);
    await breach(27, '2026-01-05', owner.id);

    const page = await signedIn();
    try {
      await page.goto(`${app.base}/data-privacy/breaches`);
      await expectAccessible(page, 'the breaches list');
      expect(await fitsWindow(page), 'the breaches list scrolls sideways at 1366 px').toBe(true);

      const bar = page.getByRole('search', { name: 'Filter personal-data breaches' });
      await bar.getByLabel('Search incidents').fill(word);
      await page.waitForURL((url) => url.searchParams.get('q') === word);
      const results = page.locator('#breach-results');
      await results.getByText('27 breaches match these filters').waitFor();
      await page.locator('nav.pager').getByText('1–25 of 27').waitFor();

      await sortBy(page, '#breach-results', 'Approx. subjects', 'approximateSubjects');
      expect(await results.locator('tbody tr').first().textContent()).toContain(`${word} breach 01`);
      await sortBy(page, '#breach-results', 'Approx. subjects', '-approximateSubjects');
      expect(await results.locator('tbody tr').first().textContent()).toContain(`${word} breach 27`);

      await page.locator('nav.pager').getByRole('link', { name: 'Next →' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === '2');
      await page.locator('nav.pager').getByText('26–27 of 27').waitFor();
      expect(await results.locator('tbody tr').first().textContent()).toContain(`${word} breach 02`);
      expect(new URL(page.url()).searchParams.get('sort')).toBe('-approximateSubjects');
      expect(await fitsWindow(page), 'the breaches list scrolls sideways at 1366 px').toBe(true);

      await bar.getByLabel('Notification').selectOption({ label: 'Overdue: not notified in 72 hours' });
      await page.waitForURL((url) => url.searchParams.get('clock') === 'overdue');
      // The sort chosen from a header stays when a filter changes afterwards.
      expect(new URL(page.url()).searchParams.get('sort')).toBe('-approximateSubjects');
      await results.getByText('1 breach matches these filters').waitFor();
      await bar.getByLabel('Owner').selectOption({ label: owner.name });
      await page.waitForURL((url) => url.searchParams.get('ownerId') === owner.id);
      await results.getByText('1 breach matches these filters').waitFor();
      expect(await results.locator('tbody tr').textContent()).toContain(owner.name);
      await expectAccessible(page, 'the filtered breaches list');
      await screenshots(page, 'breaches-list');

      const [download] = await Promise.all([page.waitForEvent('download'), results.getByRole('link', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^personal-data-breaches-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = await downloaded(download);
      expect(csv.header).toBe('Incident,Aware on,72-hour deadline,Authority notified on,72-hour clock,Data subjects told on,Approx. subjects,Incident status,Owner');
      expect(csv.rows).toEqual([expect.stringMatching(new RegExp(`^${word} breach 27,2026-01-05,2026-01-08 00:00 UTC,Not notified,Overdue by \\d+ hours: not notified,,270,Open,${owner.name}$`))]);
    } finally {
      await page.context().close();
    }
  }, 180_000);

  test('POA&M: source and Owner, a header sorts, pages, Export follows', async () => {
    const word = unique('Finding').replace(/\W/g, '');
    const plan = await createdId(await send('POST', '/api/v1/audits', { title: unique('Audit') }));
    // 51 findings: one page of 50 and a second; the owner's with the latest deadline.
    for (let n = 1; n <= 51; n++) {
      await createdId(await send('POST', '/api/v1/audit-findings', {
        auditPlanId: plan, title: `${word} ${String(n).padStart(2, '0')}`, deadline: `2030-01-${String(Math.min(n, 28)).padStart(2, '0')}`,
        ...(n === 51 ? { ownerId: owner.id } : {}),
      }));
    }
    const page = await signedIn();
    try {
      await page.goto(`${app.base}/compliance/poam`);
      await expectAccessible(page, 'the POA&M');
      const bar = page.getByRole('search', { name: 'Filter weaknesses' });
      await bar.getByLabel('Search weaknesses').fill(word);
      await page.waitForURL((url) => url.searchParams.get('q') === word);
      await bar.getByLabel('Source').selectOption({ label: 'Audit finding' });
      await page.waitForURL((url) => url.searchParams.get('source') === 'audit');
      const results = page.locator('#poam-results');
      await results.getByText('51 weaknesses match these filters').waitFor();

      await sortBy(page, '#poam-results', 'Weakness', 'title');
      expect(await results.locator('tbody tr').first().textContent()).toContain(`${word} 01`);
      await sortBy(page, '#poam-results', 'Weakness', '-title');
      expect(await results.locator('tbody tr').first().textContent()).toContain(`${word} 51`);
      await page.locator('nav.pager').getByRole('link', { name: 'Next →' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === '2');
      await page.locator('nav.pager').getByText('51–51 of 51').waitFor();
      expect(await results.locator('tbody tr').textContent()).toContain(`${word} 01`);

      await bar.getByLabel('Owner').selectOption({ label: owner.name });
      await page.waitForURL((url) => url.searchParams.get('ownerId') === owner.id);
      await results.getByText('1 weakness matches these filters').waitFor();
      await expectAccessible(page, 'the filtered POA&M');
      expect(await fitsWindow(page), 'the POA&M scrolls sideways at 1366 px').toBe(true);

      const [download] = await Promise.all([page.waitForEvent('download'), results.getByRole('link', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^poam-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = await downloaded(download);
      expect(csv.header).toBe('Source,Weakness,Reference,Finding,Severity,Status,Due,Overdue,Owner,Source record id');
      expect(csv.rows).toEqual([expect.stringMatching(new RegExp(`^Audit finding,${word} 51,.*,Audit finding,Medium,Open,2030-01-28,No,${owner.name},`))]);
    } finally {
      await page.context().close();
    }
  }, 180_000);

  test('Article 30 register: label, role and Owner filter it, Export downloads what it shows', async () => {
    const word = unique('Payroll').replace(/\W/g, '');
    const labelName = unique('HR');
    const actor = await adminActor(app.env); // read before the transaction: PGlite's one connection is the transaction's
    const labelId = (await app.env.ctx.db.transaction(async (tx) => createLabel(tx, actor, { name: labelName }))).id;
    const activity = (name: string, extra: Record<string, unknown>) =>
      send('POST', '/api/v1/data-privacy/processing-activities', { name: `${word} ${name}`, legalBasis: 'contract', ...extra }).then(createdId);
    await activity('salaries', { role: 'controller', status: 'active', labelIds: [labelId], ownerId: owner.id });
    await activity('hosting', { role: 'processor', status: 'active', labelIds: [labelId] });
    await activity('newsletter', { role: 'controller', status: 'active' });

    const page = await signedIn();
    try {
      await page.goto(`${app.base}/data-privacy/register`);
      await expectAccessible(page, 'the register');
      const bar = page.getByRole('search', { name: 'Filter the Article 30 register' });
      await bar.getByLabel('Search names').fill(word);
      await page.waitForURL((url) => url.searchParams.get('q') === word);
      const results = page.locator('#register-results');
      await results.getByText('3 activities match these filters').waitFor();
      await bar.getByLabel('Label').selectOption({ label: labelName });
      await page.waitForURL((url) => url.searchParams.get('label') === labelId);
      await results.getByText('2 activities match these filters').waitFor();
      await bar.getByLabel('Role').selectOption({ label: 'Controller' });
      await page.waitForURL((url) => url.searchParams.get('role') === 'controller');
      await results.getByText('1 activity matches these filters').waitFor();
      await bar.getByLabel('Owner').selectOption({ label: owner.name });
      await page.waitForURL((url) => url.searchParams.get('ownerId') === owner.id);
      await results.getByRole('link', { name: `${word} salaries` }).waitFor();
      await expectAccessible(page, 'the filtered register');

      const [download] = await Promise.all([page.waitForEvent('download'), results.getByRole('link', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^article-30-register-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = await downloaded(download);
      expect(csv.header.startsWith('Processing activity,Role,Status,')).toBe(true);
      expect(csv.rows).toEqual([expect.stringMatching(new RegExp(`^${word} salaries,Controller,Active,.*,${owner.name}$`))]);
    } finally {
      await page.context().close();
    }
  }, 180_000);

  test('questionnaires (liaison and third-party): a header sorts, Owner narrows, Export follows', async () => {
    const word = unique('Retention').replace(/\W/g, '');
    const activity = await createdId(await send('POST', '/api/v1/data-privacy/processing-activities', { name: unique('Payroll'), legalBasis: 'contract' }));
    for (const [n, dueOn] of [[1, '2031-01-01'], [2, '2030-01-01']] as const) {
      await createdId(await send('POST', '/api/v1/data-privacy/questionnaires',
        { title: `${word} check ${n}`, processingActivityId: activity, recipientId: owner.id, fields: ['retention'], dueOn }));
    }
    const templates = await send('GET', '/api/v1/assessments/templates?pageSize=200');
    const templateId = ((await templates.json()) as { data: { rows: { id: string; shippedKey: string | null }[] } }).data.rows.find((r) => r.shippedKey === 'dpia-screening')!.id;
    for (const dueOn of ['2097-01-01', '2096-01-01']) {
      await createdId(await send('POST', '/api/v1/assessments/requests', { templateId, title: `${word} vendor check ${dueOn}`, respondentEmail: 'dpo@vendor.example', dueOn }));
    }

    const page = await signedIn();
    try {
      await page.goto(`${app.base}/data-privacy/questionnaires`);
      await expectAccessible(page, 'the liaison questionnaires');
      const bar = page.getByRole('search', { name: 'Filter questionnaires' });
      await bar.getByLabel('Search titles').fill(word);
      await page.waitForURL((url) => url.searchParams.get('q') === word);
      const results = page.locator('#questionnaire-results');
      await results.getByText('2 questionnaires match these filters').waitFor();
      await sortBy(page, '#questionnaire-results', 'Due on', 'dueOn');
      expect(await results.locator('tbody tr').first().textContent()).toContain(`${word} check 2`);
      await expectAccessible(page, 'the sorted liaison questionnaires');
      const [liaison] = await Promise.all([page.waitForEvent('download'), results.getByRole('link', { name: 'Export CSV' }).click()]);
      const liaisonCsv = await downloaded(liaison);
      expect(liaisonCsv.header).toBe('Title,Processing activity,Sent to,Due on,Status');
      expect(liaisonCsv.rows.map((r) => r.split(',')[0])).toEqual([`${word} check 2`, `${word} check 1`]);

      await page.goto(`${app.base}/assessments/requests`);
      await expectAccessible(page, 'the questionnaires sent');
      const sent = page.getByRole('search', { name: 'Filter questionnaires' });
      await sent.getByLabel('Search titles').fill(`${word} vendor`);
      await page.waitForURL((url) => url.searchParams.get('q') === `${word} vendor`);
      await sent.getByLabel('Owner').selectOption({ label: 'Administrator' });
      await page.waitForURL((url) => url.searchParams.has('ownerId'));
      const requests = page.locator('#request-results');
      // The results Owner narrowed are in (a busy machine may push the address first): their headers sort within them.
      await requests.locator('thead a[href*="ownerId="]').first().waitFor();
      await sortBy(page, '#request-results', 'Due', 'dueOn');
      expect(await requests.locator('tbody tr').first().textContent()).toContain('2096-01-01');
      expect(new URL(page.url()).searchParams.has('ownerId')).toBe(true);
      expect(new URL(page.url()).searchParams.get('q')).toBe(`${word} vendor`);
      await expectAccessible(page, 'the sorted questionnaires sent');
      expect(await fitsWindow(page), 'the questionnaires sent scroll sideways at 1366 px').toBe(true);
      const [requestFile] = await Promise.all([page.waitForEvent('download'), requests.getByRole('link', { name: 'Export CSV' }).click()]);
      const requestCsv = await downloaded(requestFile);
      expect(requestCsv.header).toBe('Questionnaire,Third party,Sent to,Due,Status,Score');
      expect(requestCsv.rows.map((r) => r.split(',')[3])).toEqual(['2096-01-01', '2097-01-01']);

      await page.goto(`${app.base}/assessments/templates`);
      await expectAccessible(page, 'the questionnaire templates');
      const templateRows = page.locator('#template-results tbody tr');
      await sortBy(page, '#template-results', 'Template', 'title');
      const first = await templateRows.first().locator('a').textContent();
      await sortBy(page, '#template-results', 'Template', '-title');
      // The other way round: what came first now does not (the shipped templates alone are more than one).
      expect(await templateRows.first().locator('a').textContent()).not.toBe(first);
      await expectAccessible(page, 'the sorted questionnaire templates');
    } finally {
      await page.context().close();
    }
  }, 180_000);
});
