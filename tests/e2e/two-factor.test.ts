import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Browser } from 'playwright';
import { createApp } from '../../src/app';
import { testEnv } from '../helpers/app';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { makeUser } from '../helpers/factories';

/** Enrolling a second factor from its page in a real browser, then signing in with a code. */

if (!chromiumAvailable) console.warn('e2e/two-factor: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let person: { email: string; password: string };
const shots = join(tmpdir(), 'grc-e2e-two-factor');

beforeAll(async () => {
  if (!chromiumAvailable) return;
  const env = await testEnv();
  person = await makeUser(env, { 'risks:read': 'all' });
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
  mkdirSync(shots, { recursive: true });
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

/** The code the app shows `steps` 30-second steps from now (the next code is accepted one step early). */
const codeOf = (key: string, steps: number) => TOTP.generate({ secret: Secret.fromBase32(key), timestamp: Date.now() + steps * 30_000 });

describe('two-factor sign-in in the browser', () => {
  test.skipIf(!chromiumAvailable)('enrol from the page with the QR code shown, sign out, sign in again with a code', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    // A step that never comes fails at that step, naming it, rather than at the test's own timeout.
    page.setDefaultTimeout(20_000);
    try {
      await page.goto(`${base}/sign-in`);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname !== '/sign-in');

      await page.getByRole('link', { name: 'Two-factor', exact: true }).click();
      await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
      await expect(qr.isVisible()).resolves.toBe(true);
      const box = await qr.boundingBox();
      expect(box!.width).toBeGreaterThan(100);
      await page.screenshot({ path: join(shots, 'enrol-1366.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: join(shots, 'enrol-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1366, height: 900 });

      const key = (await page.locator('#two-factor-key').textContent())!.replaceAll(' ', '');
      await page.getByRole('textbox', { name: 'Code' }).fill(codeOf(key, 0));
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      await expect(page.getByRole('heading', { name: 'Your recovery codes' }).isVisible()).resolves.toBe(true);
      expect(await page.locator('ul.recovery-codes li').count()).toBe(10);
      await page.getByRole('link', { name: 'Continue' }).click();
      await expect(page.getByText('Two-factor sign-in is on.').isVisible()).resolves.toBe(true);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL((url) => url.pathname === '/sign-in');
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/sign-in/two-factor');
      await page.screenshot({ path: join(shots, 'code-step-1366.png'), fullPage: true });
      await page.getByRole('textbox', { name: 'Code' }).fill(codeOf(key, 1));
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
      await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
    } finally {
      await page.close();
    }
  }, 60_000);
});
