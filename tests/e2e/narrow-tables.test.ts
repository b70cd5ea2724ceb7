import { beforeAll, describe, expect, test } from 'bun:test';
import type { Page } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { apiSender, createdId } from '../helpers/api';
import { axeViolations, screenshots } from '../helpers/axe';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable } from '../helpers/chromium';
import { adminActor, classificationId, makeToken, unique } from '../helpers/factories';

/**
 * Register lists and the breaches list on a phone (390 × 844, UI.md's narrow screens): each row reads as a card, each
 * value after its column's header, so nothing scrolls sideways, neither the page nor the table in its frame; the
 * headers that sort still sort (the sort lands in the address), and axe finds nothing.
 */

const app = useBrowserApp('narrow-tables');
let token: string;
let word: string;
const send = apiSender(() => app.env, () => token);

beforeAll(async () => {
  if (!chromiumAvailable) return;
  token = await makeToken(app.env, await adminActor(app.env), [
    'risks:read', 'risks:create', 'controls:read', 'controls:create', 'incidents:read', 'incidents:create', 'incidents:update', 'dataPrivacy:read',
  ]);
  word = unique('Narrow').replace(/\W/g, '');
  const classification = await classificationId(app.env);
  for (const n of [1, 2, 3]) {
    await createdId(await send('POST', '/api/v1/risks', {
      title: `${word} risk ${n}: supplier outage leaves the customer portal without its identity provider for days`,
      classificationId: classification, inherentLikelihood: n, inherentImpact: 4,
    }));
    await createdId(await send('POST', '/api/v1/controls', { name: `${word} control ${n}: quarterly access recertification of privileged accounts`, type: 'process' }));
    const incident = await createdId(await send('POST', '/api/v1/incidents', { title: `${word} breach ${n}: mislaid laptop with unencrypted exports`, openedAt: '2026-01-01' }));
    const res = await send('PUT', `/api/v1/incidents/${incident}/breach`, { categories: ['email addresses'], approximateSubjects: n * 100, detectedAt: '2026-01-02' });
    expect(res.status, await res.clone().text()).toBe(200);
  }
}, 120_000);

async function phone(): Promise<Page> {
  const context = await app.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
  const page = await context.newPage();
  await page.goto(`${app.base}/sign-in`);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in');
  return page;
}

/** Widths that overflow: the page against the window, each table (and its frame) against its own box. */
const overflowing = (page: Page) => page.evaluate(() => {
  const wide: string[] = [];
  if (document.documentElement.scrollWidth > window.innerWidth) wide.push(`page ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
  for (const e of Array.from(document.querySelectorAll('main .table-wrap, main table'))) {
    if (e.scrollWidth > e.clientWidth) wide.push(`${e.tagName.toLowerCase()}#${e.id} ${e.scrollWidth} > ${e.clientWidth}`);
  }
  return wide;
});

/** Each cell of the first row as a person reads it on a phone: the header shown before it, then its text. */
const firstCard = (page: Page) => page.evaluate(() => Array.from(document.querySelectorAll('main table tbody tr:first-child td')).map((td) => ({
  label: getComputedStyle(td, '::before').content.replace(/^"|"$/g, ''),
  text: (td.textContent ?? '').trim(),
})));

async function expectReadable(page: Page, what: string) {
  expect(await overflowing(page), `${what} scrolls sideways at 390 px`).toEqual([]);
  expect(await axeViolations(page), what).toEqual([]);
}

/** Clicks a sortable header's link and waits for the address to hold that sort and the header to say so. */
async function sortBy(page: Page, header: string, sort: string) {
  await page.locator('main thead').getByRole('link', { name: new RegExp(`^${header}`) }).click();
  await page.waitForURL((url) => url.searchParams.get('sort') === sort);
  await page.locator(`main th[aria-sort="${sort.startsWith('-') ? 'descending' : 'ascending'}"]`).getByText(header).waitFor();
}

describe.skipIf(!chromiumAvailable)('tables on a phone: rows as cards, nothing scrolling sideways', () => {
  test('risks: each value after its header; a header sorts both ways; fits 390 px and axe is clean', async () => {
    const page = await phone();
    try {
      await page.goto(`${app.base}/risks?q=${word}`);
      await page.getByText('3 risks match these filters').waitFor();
      await expectReadable(page, 'the risk register');
      const card = await firstCard(page);
      expect(card.map((c) => c.label)).toEqual(expect.arrayContaining(['Title', 'Classification', 'Inherent', 'Owner', 'Status']));
      expect(card.find((c) => c.label === 'Title')?.text).toContain(word);
      // The headers that sort stay above the cards as links; Title sorts ascending, then descending, the sort in the address.
      await sortBy(page, 'Title', 'title');
      expect(await page.locator('main tbody tr').first().textContent()).toContain(`${word} risk 1`);
      await sortBy(page, 'Title', '-title');
      expect(await page.locator('main tbody tr').first().textContent()).toContain(`${word} risk 3`);
      await sortBy(page, 'Owner', 'owner');
      await expectReadable(page, 'the risk register sorted by owner');
      await screenshots(page, 'risks-list-narrow');
    } finally {
      await page.context().close();
    }
  }, 120_000);

  test('controls: cards with their headers; sorting by status keeps the cards; fits 390 px and axe is clean', async () => {
    const page = await phone();
    try {
      await page.goto(`${app.base}/controls?q=${word}`);
      await page.getByText('3 controls match these filters').waitFor();
      await expectReadable(page, 'the controls register');
      expect((await firstCard(page)).map((c) => c.label)).toEqual(expect.arrayContaining(['Name', 'Type', 'Status', 'Owner']));
      await sortBy(page, 'Name', 'name');
      await sortBy(page, 'Name', '-name');
      expect(await page.locator('main tbody tr').first().textContent()).toContain(`${word} control 3`);
      await expectReadable(page, 'the controls register sorted by name');
    } finally {
      await page.context().close();
    }
  }, 120_000);

  test('personal-data breaches: cards with their headers, the sort headers still sort; fits 390 px and axe is clean', async () => {
    const page = await phone();
    try {
      await page.goto(`${app.base}/data-privacy/breaches?q=${word}`);
      await page.getByText('3 breaches match these filters').waitFor();
      await expectReadable(page, 'the breaches list');
      const card = await firstCard(page);
      expect(card.map((c) => c.label)).toEqual(expect.arrayContaining(['Incident', 'Aware on', 'Approx. subjects', 'Owner']));
      await sortBy(page, 'Approx. subjects', 'approximateSubjects');
      expect(await page.locator('main tbody tr').first().textContent()).toContain(`${word} breach 1`);
      await sortBy(page, 'Approx. subjects', '-approximateSubjects');
      expect(await page.locator('main tbody tr').first().textContent()).toContain(`${word} breach 3`);
      await expectReadable(page, 'the sorted breaches list');
      await screenshots(page, 'breaches-list-narrow');
    } finally {
      await page.context().close();
    }
  }, 120_000);
});
