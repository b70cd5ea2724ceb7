import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';

/** Evidence in a real browser: files chosen on the page are uploaded by its script, with their SHA-256 shown. */

if (!chromiumAvailable) console.warn('e2e/evidence: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

describe.skipIf(!chromiumAvailable)('evidence in the browser', () => {
  test('evidence is created, two files are uploaded with progress, and the page lists them with their SHA-256', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/sign-in');

    await page.goto(`${base}/evidence/new`);
    await page.getByLabel('Title').fill('Backup restore test, Q3');
    await page.getByRole('button', { name: 'Create evidence' }).click();
    await page.waitForURL(/\/evidence\/[0-9a-f-]{36}\?done=created/);

    const folder = mkdtempSync(join(tmpdir(), 'grc-e2e-evidence-'));
    writeFileSync(join(folder, 'restore-log.txt'), 'restore completed in 14 minutes\n');
    writeFileSync(join(folder, 'Prüfbericht.pdf'), '%PDF-1.4 restore report');
    await page.locator('#evidence-upload input[type=file]').setInputFiles([join(folder, 'restore-log.txt'), join(folder, 'Prüfbericht.pdf')]);
    await page.getByRole('button', { name: 'Upload' }).click();
    // Every file stored: the page reloads and lists them.
    await page.locator('#files table', { hasText: 'Prüfbericht.pdf' }).waitFor({ timeout: 15_000 });
    const text = await page.locator('#files table').innerText();
    expect(text).toContain('restore-log.txt');
    expect(text).toContain(new Bun.CryptoHasher('sha256').update('restore completed in 14 minutes\n').digest('hex'));
    expect(text).toContain('application/pdf');
  }, 60_000);
});
