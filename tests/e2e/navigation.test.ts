import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { navigation } from '../../src/platform/http/installed';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv } from '../helpers/app';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { makeUser } from '../helpers/factories';

/**
 * The grouped side navigation, built from the modules' manifests: every group and entry the viewer may open, none
 * clipped off the page at a desktop width, and behind a Menu toggle (no script) on a phone.
 */

if (!chromiumAvailable) console.warn('e2e/navigation: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let reader: { email: string; password: string };

beforeAll(async () => {
  if (!chromiumAvailable) return;
  const env = await testEnv();
  reader = await makeUser(env, { 'risks:read': 'own', 'incidents:read': 'own' });
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

async function signIn(width: number, email: string, password: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in');
  await page.goto(`${base}/risks`);
  return page;
}

/** Entries of the side navigation that lie (even partly) outside the page's width. */
const clippedEntries = (page: Page) => page.locator('nav.sidenav a').evaluateAll((links) =>
  links.filter((a) => {
    const box = a.getBoundingClientRect();
    return box.width === 0 || box.left < 0 || box.right > document.documentElement.clientWidth;
  }).map((a) => a.textContent));

/** The outermost elements reaching past the viewport's right edge (for a failure message to name them). */
const widerThanViewport = (page: Page) => page.evaluate(() => {
  const width = document.documentElement.clientWidth;
  const wide = Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > width + 1);
  return wide.filter((e) => !wide.includes(e.parentElement!)).map((e) => `<${e.tagName.toLowerCase()} class="${e.className}"> ${e.textContent?.slice(0, 60)}`).join('; ');
});

describe('side navigation', () => {
  test.skipIf(!chromiumAvailable)('at 1366 px an administrator sees every group, nothing clipped, the current page marked', async () => {
    const page = await signIn(1366, ADMIN_EMAIL, ADMIN_PASSWORD);
    try {
      const nav = page.getByRole('navigation', { name: 'Main' });
      await expect(nav.isVisible()).resolves.toBe(true);
      const groups = await nav.locator('h2').allTextContents();
      // Every group an installed module has entries in, in their order; Overview holds the Dashboard, the start page.
      expect(groups).toEqual(navigation().map((g) => g.group));
      expect(groups[0]).toBe('Overview');
      for (const label of ['Risks', 'Risk exceptions', 'Controls', 'Packages', 'POA&M', 'Policies', 'Assets', 'Third parties', 'Incidents', 'Audit log']) {
        await expect(nav.getByRole('link', { name: label, exact: true }).isVisible()).resolves.toBe(true);
      }
      expect(await clippedEntries(page)).toEqual([]);
      expect(await nav.getByRole('link', { name: 'Risks', exact: true }).getAttribute('aria-current')).toBe('page');
      await expect(page.getByText('Menu', { exact: true }).isVisible()).resolves.toBe(false);
    } finally {
      await page.close();
    }
  });

  test.skipIf(!chromiumAvailable)('a reader sees only what they may open', async () => {
    const page = await signIn(1366, reader.email, reader.password);
    try {
      const links = await page.getByRole('navigation', { name: 'Main' }).locator('a').allTextContents();
      // The Dashboard and the Report Center are everyone's (each shows what the reader may read), My questionnaires the
      // privacy questionnaires addressed to them, My training everyone's assigned awareness programs; the rest are the
      // registers the reader's rights open.
      expect(links).toEqual(['Dashboard', 'Reports', 'My questionnaires', 'My training', 'Risks', 'Risk exceptions', 'Incidents']);
    } finally {
      await page.close();
    }
  });

  test.skipIf(!chromiumAvailable)('at 390 px the navigation is behind the Menu toggle and opens full width without script', async () => {
    const page = await signIn(390, ADMIN_EMAIL, ADMIN_PASSWORD);
    try {
      const nav = page.getByRole('navigation', { name: 'Main' });
      await expect(nav.isVisible()).resolves.toBe(false);
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(pageWidth, `wider than the phone: ${await widerThanViewport(page)}`).toBeLessThanOrEqual(390);
      await page.getByText('Menu', { exact: true }).click();
      await expect(nav.isVisible()).resolves.toBe(true);
      expect(await clippedEntries(page)).toEqual([]);
      await nav.getByRole('link', { name: 'Incidents', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/incidents');
      expect(await page.locator('h1').textContent()).toBe('Incidents');
    } finally {
      await page.close();
    }
  });
});
