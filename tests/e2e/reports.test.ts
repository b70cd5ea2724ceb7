import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';
import { createRecord } from '../../src/platform/records/records';
import { incidentKind } from '../../src/modules/incidents/service';
import { chromiumAvailable } from '../helpers/chromium';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations, screenshots } from '../helpers/axe';

const app = useBrowserApp('reports');

describe('the Report Center in a browser', () => {
  test.skipIf(!chromiumAvailable)('open Reports from the menu, a printable report, then download its CSV; axe finds nothing', async () => {
    const admin = await adminActor(app.env);
    const reader = await makeUser(app.env, { 'risks:read': 'own' });
    const mine = unique('Reported risk');
    const theirs = unique('Not reported to me');
    await makeRisk(app.env, admin, { title: mine, ownerId: reader.id, inherentLikelihood: 4, inherentImpact: 2, residualLikelihood: 2, residualImpact: 2 });
    await makeRisk(app.env, admin, { title: theirs, inherentLikelihood: 4, inherentImpact: 2 });

    const context = await app.browser.newContext({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    try {
      await page.goto(`${app.base}/sign-in`);
      await page.getByLabel('Email').fill(reader.email);
      await page.getByLabel('Password').fill(reader.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${app.base}/`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
      await page.waitForURL(`${app.base}/reports`);
      expect(await page.locator('h1').textContent()).toBe('Reports');
      const listed = await page.locator('table.reports tbody th').allTextContents();
      expect(listed).toContain('Risk register');
      expect(listed).not.toContain('Control test status');
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'reports');

      await page.getByRole('link', { name: 'Risk register, printable' }).click();
      await page.waitForURL(`${app.base}/reports/riskRegister`);
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

  test.skipIf(!chromiumAvailable)('narrow a report by a date range and download the same rows; a range ending before it starts is refused in the app; axe finds nothing', async () => {
    const admin = await adminActor(app.env);
    const reader = await makeUser(app.env, { 'incidents:read': 'all' });
    const january = unique('January incident');
    const march = unique('March incident');
    await app.env.ctx.db.transaction((tx) => createRecord(tx, incidentKind, admin, { title: january, openedAt: '2026-01-15' }));
    await app.env.ctx.db.transaction((tx) => createRecord(tx, incidentKind, admin, { title: march, openedAt: '2026-03-15' }));

    const context = await app.browser.newContext({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    try {
      await page.goto(`${app.base}/sign-in`);
      await page.getByLabel('Email').fill(reader.email);
      await page.getByLabel('Password').fill(reader.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${app.base}/`);
      await page.goto(`${app.base}/reports`);
      await page.getByRole('link', { name: 'Incidents, printable' }).click();
      await page.waitForURL(`${app.base}/reports/incidents`);
      const filters = page.getByRole('search', { name: 'Filter Incidents' });
      await filters.getByLabel('Opened from').fill('2026-03-01');
      await filters.getByLabel('Opened to').fill('2026-03-31');
      await filters.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/openedAtTo=2026-03-31/);
      await page.getByText('Filtered by Opened from: 2026-03-01; Opened to: 2026-03-31.').waitFor();
      const rows = await page.locator('table.report tbody tr').allTextContents();
      expect(rows.some((r) => r.includes(march))).toBe(true);
      expect(rows.some((r) => r.includes(january))).toBe(false);
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'report-incidents-filtered');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      const csv = readFileSync((await download.path())!, 'utf8');
      expect(csv).toContain(march);
      expect(csv).not.toContain(january);

      // The range backwards: refused inside the app, the dates kept, the problem named.
      await page.goto(`${app.base}/reports/incidents?openedAtFrom=2026-03-01&openedAtTo=2026-02-01`);
      await page.getByText('Opened to must not be before Opened from (2026-03-01)').first().waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);
});
