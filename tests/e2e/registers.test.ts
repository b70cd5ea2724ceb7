import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv } from '../helpers/app';
import { unique } from '../helpers/factories';

/** The system Chromium; browsers are never downloaded. */
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`e2e/registers: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)`);

let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;

beforeAll(async () => {
  if (!available) return;
  const env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await server?.stop();
});

/** Opens "New …" from a register's list, fills the fields given by label, submits, and waits for the record's page. */
async function createFromList(page: Page, path: string, newLabel: string, fields: Record<string, string>, selects: Record<string, string> = {}) {
  await page.goto(`${base}${path}`);
  await page.getByRole('link', { name: newLabel }).click();
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  for (const [label, value] of Object.entries(selects)) await page.getByLabel(label, { exact: true }).selectOption(value);
  await page.getByRole('button', { name: /^Create / }).click();
  await page.getByText('Created.').waitFor();
}

describe('register journey in a browser', () => {
  test.skipIf(!available)('control, policy with content, third party, incident closed only with a resolution', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${base}/sign-in`);
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname !== '/sign-in');

      const control = unique('Browser control');
      await createFromList(page, '/controls', 'New control', { Name: control }, { Type: 'technical' });
      expect(await page.locator('h1').textContent()).toBe(control);

      const policy = unique('Browser policy');
      await createFromList(page, '/policies', 'New policy', { Title: policy });
      await page.getByRole('link', { name: 'Edit content' }).click();
      await page.getByLabel('Content (Markdown)').fill('# Purpose\n\nKeep **access** tight.\n\n<script>alert(1)</script>');
      await page.getByRole('button', { name: /save/i }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/policies/') && !url.pathname.endsWith('/content'));
      expect(await page.locator('main strong', { hasText: 'access' }).count()).toBeGreaterThan(0);
      expect(await page.locator('main script').count()).toBe(0);

      const vendor = unique('Browser vendor');
      await createFromList(page, '/third-parties', 'New third party', { Name: vendor, Website: 'https://vendor.example' });
      expect(await page.locator('h1').textContent()).toBe(vendor);

      const incident = unique('Browser incident');
      await createFromList(page, '/incidents', 'New incident', { Title: incident });
      const incidentUrl = page.url().split('?')[0];

      // Closing without a resolution is refused inline, with what was typed kept.
      await page.getByRole('link', { name: 'Edit' }).click();
      await page.getByLabel('Status', { exact: true }).selectOption('closed');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#f-resolution-error').waitFor();
      expect(await page.locator('#f-resolution-error').textContent()).toContain('resolution');
      expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe(incident);

      // With a resolution it closes, and the History shows it.
      await page.getByLabel('Resolution', { exact: true }).fill('Credentials rotated; access reviewed.');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved.').waitFor();
      expect(page.url().split('?')[0]).toBe(incidentUrl);
      expect(await page.locator('dl').textContent()).toContain('Closed');
      expect(await page.locator('main').textContent()).toContain('Credentials rotated; access reviewed.');
    } finally {
      await page.close();
    }
  }, 90_000);
});
