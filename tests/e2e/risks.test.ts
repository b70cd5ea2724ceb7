import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { unique } from '../helpers/factories';

/** The system Chromium; browsers are never downloaded. */
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`e2e/risks: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)`);

let env: TestEnv;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!available) return;
  env = await testEnv();
  env.app.listen(0);
  base = `http://127.0.0.1:${env.app.server?.port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await env?.app.stop();
});

describe('risk journey in a browser', () => {
  test.skipIf(!available)('sign in, create a risk, find it in the list, edit it, see the change in its History', async () => {
    const page = await browser.newPage();
    try {
      // Signed out, the list sends us to sign-in and back again afterwards.
      await page.goto(`${base}/risks`);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/risks`);

      // Create
      const title = unique('Browser risk');
      await page.getByRole('link', { name: 'New risk' }).click();
      await page.waitForURL(`${base}/risks/new`);
      await page.getByLabel('Title').fill(title);
      await page.getByLabel('Classification').selectOption({ label: 'Operational' });
      await page.locator('#f-inherentLikelihood').selectOption('3');
      await page.locator('#f-inherentImpact').selectOption('2');
      await page.getByRole('button', { name: 'Create risk' }).click();
      await page.getByText('Risk created.').waitFor();
      expect(await page.locator('h1').textContent()).toBe(title);
      const detailUrl = new URL(page.url()).pathname;

      // Find it in the list: the search box filters by htmx and keeps the filter in the address bar.
      await page.goto(`${base}/risks`);
      await page.getByLabel('Search titles').fill(title);
      await page.waitForURL((url) => url.searchParams.get('q') === title);
      await page.waitForFunction(
        (wanted) => {
          const rows = document.querySelectorAll('#results-risks tbody tr');
          return rows.length === 1 && (rows[0].textContent ?? '').includes(wanted);
        },
        title,
      );
      const row = page.locator('#results-risks tbody tr');
      expect(await row.textContent()).toContain('Operational');
      await row.getByRole('link', { name: title }).click();
      await page.waitForURL(`${base}${detailUrl}`);

      // Edit: a wrong residual rating is refused inline, then a good change is saved.
      await page.getByRole('link', { name: 'Edit' }).click();
      await page.locator('#f-residualLikelihood').selectOption('5');
      await page.locator('#f-residualImpact').selectOption('1');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#f-residualLikelihood-error').waitFor();
      expect(await page.locator('#f-residualLikelihood-error').textContent()).toBe('must not be above the inherent likelihood');
      expect(await page.getByLabel('Title').inputValue()).toBe(title);
      await page.locator('#f-residualLikelihood').selectOption('2');
      await page.locator('#f-inherentImpact').selectOption('5');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Risk updated.').waitFor();

      // History shows the change with the level names.
      const latest = page.locator('#record-history tbody tr').first();
      const text = await latest.textContent();
      expect(text).toContain('Changed');
      expect(text).toContain('Inherent impact: 2 Minor → 5 Severe');
      expect(text).toContain('Administrator');
      expect(await page.locator('dl').textContent()).toContain('15 High');
    } finally {
      await page.close();
    }
  }, 60_000);
});
