import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { useBrowserApp } from '../helpers/browser-app';
import { auditPages, axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, makeRisk, unique } from '../helpers/factories';

/**
 * axe-core (WCAG 2.1 A/AA and best practices, landmarks included) over every Settings page, signed in as an
 * administrator: no critical, serious or moderate violation; and the compliance package import on screen to its end.
 * (The registers: accessibility.test.ts; a file each, so the two run side by side in the suite's shards.)
 */

const app = useBrowserApp('accessibility-settings');
let context: BrowserContext;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  context = (await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).context();
}, 120_000);

const audit = (paths: string[]) => auditPages(context, app.base, paths);
const SETTINGS_PARTS = 4;

describe.skipIf(!chromiumAvailable)('accessibility of the Settings pages (axe-core)', () => {
  // The Settings pages are found from the navigation once, then audited in parts: one test over all of them ran for
  // minutes on a loaded machine and lost its tab with the whole list undone.
  let settingsPages: string[] = [];
  test('the Settings navigation lists every Settings page', async () => {
    const tab = await context.newPage();
    try {
      await tab.goto(`${app.base}/settings`);
      const links = await tab.locator('nav.sidenav section').filter({ hasText: 'Settings' }).locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
      expect(links.length).toBeGreaterThan(10);
      settingsPages = ['/settings', ...links, '/settings/password', '/settings/two-factor'];
    } finally {
      await tab.close();
    }
  }, 120_000);
  for (let part = 0; part < SETTINGS_PARTS; part++) {
    test(`Settings pages, part ${part + 1} of ${SETTINGS_PARTS}`, async () => {
      const size = Math.ceil(settingsPages.length / SETTINGS_PARTS);
      const pages = settingsPages.slice(part * size, (part + 1) * size);
      expect(pages.length).toBeGreaterThan(0);
      expect(await audit(pages)).toEqual({});
    }, 300_000);
  }
});

describe.skipIf(!chromiumAvailable)('accessibility of the Settings lists and the Audit Log with filters set (axe-core)', () => {
  test('Users and Groups filtered and sorted; the Audit Log filtered, with a chosen record, with suggestions, and verified', async () => {
    const title = unique('Audited risk');
    const riskId = await makeRisk(app.env, await adminActor(app.env), { title });
    expect(await audit([
      '/settings/users?q=a&status=active&sort=-name',
      '/settings/users?status=deactivated',
      '/settings/groups?q=Admin&sort=-members',
      '/settings/audit?q=Signed&module=security&action=Signed+in&from=2020-01-01&to=2100-01-01',
      `/settings/audit?record=${riskId}&module=risks`,
      `/settings/audit?recordName=${encodeURIComponent(title)}`,
      '/settings/audit?verify=1&history=1',
    ])).toEqual({});
  }, 300_000);
});

describe.skipIf(!chromiumAvailable)('compliance package import in the browser', () => {
  test('a custom CSV package is previewed, committed, and found in the list; JSON too', async () => {
    // A tab of its own, so a tab lost by an earlier test cannot take this one with it.
    const page = await context.newPage();
    const folder = mkdtempSync(join(tmpdir(), 'grc-package-'));
    const csvName = unique('Browser package CSV');
    const csvFile = join(folder, 'custom.csv');
    writeFileSync(csvFile, 'code,name,description,parent_code,kind\nA,Access,,,heading\nA.1,Accounts,"Manage accounts",A,\nA.2,Guidance,,A,additional\n');
    await page.goto(`${app.base}/compliance/packages/import`);
    await page.getByLabel('Package file (CSV or JSON)').setInputFiles(csvFile);
    await page.getByLabel('Package name').fill(csvName);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('3 items: 1 heading, 1 requirement, 1 additional').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'package-import-preview');
    await page.getByRole('button', { name: 'Commit import' }).click();
    await page.waitForURL((url) => url.pathname === '/compliance/packages' && url.searchParams.get('done') === 'imported');
    await page.getByText('Package imported').waitFor();
    expect(await page.getByRole('link', { name: csvName }).count()).toBe(1);

    const jsonName = unique('Browser package JSON');
    const jsonFile = join(folder, 'custom.json');
    writeFileSync(jsonFile, JSON.stringify({ name: jsonName, standard: 'Own', version: '1', description: '', items: [{ code: 'R1', name: 'Rule one' }] }));
    await page.goto(`${app.base}/compliance/packages/import`);
    await page.getByLabel('Package file (CSV or JSON)').setInputFiles(jsonFile);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Commit import' }).click();
    await page.waitForURL((url) => url.pathname === '/compliance/packages');
    expect(await page.getByRole('link', { name: jsonName }).count()).toBe(1);
    await screenshots(page, 'packages-list');
    await page.close();
  }, 120_000);
});
