import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv } from '../helpers/app';
import { axeViolations } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { unique } from '../helpers/factories';

/** Settings › Incident classifications (the name list kit) in a real browser, checked with axe after each step. */

if (!chromiumAvailable) console.warn('e2e/classifications: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  const env = await testEnv();
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

describe.skipIf(!chromiumAvailable)('incident classifications in the browser', () => {
  test('an administrator adds a classification, is told a taken name is taken, renames it and deletes it', async () => {
    const page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    page.on('dialog', (dialog) => void dialog.accept());
    try {
      await page.goto(`${base}/settings/incidents`);
      await expectAccessible(page, 'Settings › Incident classifications');

      const name = unique('Phishing');
      await page.getByLabel('New classification').fill(name);
      await page.getByLabel('Description', { exact: true }).fill('Mails that trick people');
      await page.getByRole('button', { name: 'Add classification' }).click();
      await page.getByText('Classification added.').waitFor();
      expect(await page.getByLabel(`Name of ${name}`).inputValue()).toBe(name);
      expect(await page.getByLabel(`Description of ${name}`).inputValue()).toBe('Mails that trick people');
      await expectAccessible(page, 'after adding');

      // The same name in other case: refused on the field, the typed values kept, inside the app.
      await page.getByLabel('New classification').fill(name.toUpperCase());
      await page.getByRole('button', { name: 'Add classification' }).click();
      await page.locator('#f-name-error').waitFor();
      expect(await page.locator('#f-name-error').textContent()).toBe(`An incident classification named "${name}" already exists`);
      expect(await page.getByLabel('New classification').inputValue()).toBe(name.toUpperCase());
      expect(await page.locator('nav[aria-label="Main"]').count()).toBe(1);
      await expectAccessible(page, 'after a refused name');

      const renamed = `${name} (renamed)`;
      await page.getByLabel(`Name of ${name}`).fill(renamed);
      await page.getByRole('button', { name: `Rename ${name}` }).click();
      await page.getByText('Classification renamed.').waitFor();
      expect(await page.getByLabel(`Name of ${renamed}`).inputValue()).toBe(renamed);
      await expectAccessible(page, 'after renaming');

      await page.getByRole('button', { name: `Delete ${renamed}` }).click();
      await page.getByText('Classification deleted.').waitFor();
      expect(await page.getByLabel(`Name of ${renamed}`).count()).toBe(0);
      await expectAccessible(page, 'after deleting');
    } finally {
      await page.context().close();
    }
  }, 120_000);
});
