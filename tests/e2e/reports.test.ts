import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';
import { chromiumAvailable, CHROMIUM, launchChromium } from '../helpers/chromium';
import { axeViolations, screenshots } from '../helpers/axe';

if (!chromiumAvailable) console.warn(`e2e/reports: skipped, ${CHROMIUM} is not installed`);

let env: TestEnv;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  env.app.listen(0);
  base = `http://127.0.0.1:${env.app.server?.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await env?.app.stop();
});

describe('the Report Center in a browser', () => {
  test.skipIf(!chromiumAvailable)('open Reports from the menu, a printable report, then download its CSV; axe finds nothing', async () => {
    const admin = await adminActor(env);
    const reader = await makeUser(env, { 'risks:read': 'own' });
    const mine = unique('Reported risk');
    const theirs = unique('Not reported to me');
    await makeRisk(env, admin, { title: mine, ownerId: reader.id, inherentLikelihood: 4, inherentImpact: 2, residualLikelihood: 2, residualImpact: 2 });
    await makeRisk(env, admin, { title: theirs, inherentLikelihood: 4, inherentImpact: 2 });

    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    try {
      await page.goto(`${base}/sign-in`);
      await page.getByLabel('Email').fill(reader.email);
      await page.getByLabel('Password').fill(reader.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
      await page.waitForURL(`${base}/reports`);
      expect(await page.locator('h1').textContent()).toBe('Reports');
      const listed = await page.locator('table.reports tbody th').allTextContents();
      expect(listed).toContain('Risk register');
      expect(listed).not.toContain('Control test status');
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'reports');

      await page.getByRole('link', { name: 'Risk register, printable' }).click();
      await page.waitForURL(`${base}/reports/riskRegister`);
      expect(await page.locator('h1').textContent()).toBe('Risk register');
      const rows = page.locator('table.report tbody tr');
      expect(await rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain(mine);
      expect(await axeViolations(page)).toEqual([]);
      // Printed, the menus are left out and the report's table stays.
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('.sidenav').isVisible()).toBe(false);
      expect(await page.locator('table.report').isVisible()).toBe(true);
      await page.emulateMedia({ media: 'screen' });
      await screenshots(page, 'report-risk-register');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^riskRegister-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = readFileSync((await download.path())!, 'utf8');
      expect(csv.startsWith('\uFEFFTitle,Classification,Inherent likelihood')).toBe(true);
      expect(csv).toContain(mine);
      expect(csv).not.toContain(theirs);
    } finally {
      await context.close();
    }
  }, 120_000);
});
