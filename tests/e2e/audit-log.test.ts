import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/**
 * Settings › Audit log in a real browser, in a time zone other than UTC: an administrator filters by module, person and
 * record, reads the entries in their own zone, pages, and downloads what they filtered; axe finds nothing on the way.
 */

if (!chromiumAvailable) console.warn('e2e/audit-log: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let controlId: string;
const NAME = unique('Browser audited control');

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  const token = await makeToken(env, await adminActor(env), ['controls:read', 'controls:create', 'controls:update']);
  const res = await env.request('/api/v1/controls', bearer(token, { method: 'POST', body: JSON.stringify({ name: NAME, type: 'technical' }) }));
  expect(res.status).toBe(201);
  controlId = ((await res.json()) as { data: { id: string } }).data.id;
  const edit = await env.request(`/api/v1/controls/${controlId}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ status: 'retired' }) }));
  expect(edit.status).toBe(200);
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

async function expectAccessible(page: Page, what: string) {
  expect(await axeViolations(page), what).toEqual([]);
}

describe.skipIf(!chromiumAvailable)('the Audit Log screen in a browser', () => {
  test('filter by module, person and record, read times in the reader\'s zone, download the filtered entries', async () => {
    // Tokyo has no daylight saving time: UTC+9 all year.
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-US', acceptDownloads: true, viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${base}/sign-in`);
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname !== '/sign-in');

      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Entries' }).waitFor();
      await expectAccessible(page, 'the Audit Log');

      const filters = page.getByRole('search', { name: 'Filter the Audit Log' });
      await filters.getByLabel('Module').selectOption({ label: 'Controls' });
      await filters.getByLabel('Person').selectOption({ label: `Administrator <${ADMIN_EMAIL}>` });
      // The record is picked by its name: typing suggests the records named so, each a link that sets the filter.
      await filters.getByLabel('Record', { exact: true }).pressSequentially(NAME.slice(0, 30));
      const suggestion = filters.locator('#record-choices').getByRole('link', { name: NAME });
      await suggestion.waitFor();
      expect(await filters.locator('#record-choices').textContent()).toContain('Control');
      await expectAccessible(page, 'the record suggestions');
      await screenshots(page, 'audit-log-record-suggestions');
      await suggestion.click();
      await page.waitForURL((url) => url.searchParams.get('record') === controlId);
      expect(new URL(page.url()).searchParams.get('module')).toBe('controls');
      expect(new URL(page.url()).searchParams.get('actor')).not.toBeNull();
      // The chosen record is shown by name and type; its id is in the address only.
      expect(await filters.locator('#filter-record-chosen').textContent()).toContain(`${NAME} (Control)`);

      await expect(page.locator('#audit-entries .actions .muted').textContent()).resolves.toBe('2 entries');
      const rows = page.locator('#audit-table tbody tr');
      expect(await rows.count()).toBe(2);
      const newest = rows.first();
      expect(await newest.textContent()).toContain('Status: Active → Retired');
      expect(await newest.getByRole('link', { name: NAME }).getAttribute('href')).toBe(`/controls/${controlId}`);

      // The time is written in the reader's zone, the zone named; the UTC instant stays in datetime.
      const time = newest.locator('time').first();
      const iso = (await time.getAttribute('datetime'))!;
      const tokyo = new Date(Date.parse(iso) + 9 * 3_600_000).toISOString();
      expect(await time.textContent()).toBe(`${tokyo.slice(0, 10)} ${tokyo.slice(11, 16)} GMT+9`);
      await expectAccessible(page, 'the filtered Audit Log');
      await screenshots(page, 'audit-log-record-chosen');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
      const bytes = readFileSync((await download.path())!);
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const lines = bytes.subarray(3).toString('utf8').split('\r\n').filter(Boolean);
      expect(lines).toHaveLength(3);
      // The browser's zone went with the link: the times are Tokyo's, the header says so.
      expect(lines[0]).toStartWith('Entry,At (Asia/Tokyo),Who,');
      expect(lines[1].split(',')[1]).toBe(`${tokyo.slice(0, 10)} ${tokyo.slice(11, 19)}`);
      expect(lines.slice(1).every((line) => line.includes(controlId))).toBe(true);
      expect(lines[1]).toContain('Status: Active → Retired');
    } finally {
      await context.close();
    }
  }, 90_000);
});
