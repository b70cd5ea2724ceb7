import { describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';
import { chromiumAvailable } from '../helpers/chromium';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations, screenshots } from '../helpers/axe';

const app = useBrowserApp('dashboard');

describe('the Dashboard in a browser', () => {
  test.skipIf(!chromiumAvailable)('sign in, land on the dashboard, follow a heat-map cell to the risks in it; axe finds nothing', async () => {
    const admin = await adminActor(app.env);
    const reader = await makeUser(app.env, { 'risks:read': 'own', 'controls:read': 'own' });
    const mine = unique('Cell risk');
    const theirs = unique('Not in my cell');
    await makeRisk(app.env, admin, { title: mine, ownerId: reader.id, inherentLikelihood: 4, inherentImpact: 2, residualLikelihood: 2, residualImpact: 2 });
    await makeRisk(app.env, admin, { title: theirs, inherentLikelihood: 4, inherentImpact: 2 });

    const context = await app.browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${app.base}/sign-in`);
      await page.getByLabel('Email').fill(reader.email);
      await page.getByLabel('Password').fill(reader.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${app.base}/`);
      expect(await page.locator('h1').textContent()).toBe('Dashboard');
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'dashboard');

      // The inherent map is a table: its cell at likelihood 4 and impact 2 counts the reader's one risk (not the other).
      const inherent = page.getByRole('table', { name: /Inherent/ });
      const cell = inherent.getByRole('link', { name: /risk at likelihood 4 Likely and impact 2 Minor/ });
      expect((await cell.textContent())?.startsWith('1')).toBe(true);
      await cell.click();
      await page.waitForURL((url) => url.pathname === '/risks' && url.searchParams.get('inherentLikelihood') === '4' && url.searchParams.get('inherentImpact') === '2');
      const rows = page.locator('#results-risks tbody tr');
      expect(await rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain(mine);
      expect(await page.locator('#filter-inherentLikelihood').inputValue()).toBe('4');
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'risks-filtered-to-a-cell');

      // A cell that does not exist: refused inside the app shell, which still offers the way back.
      const refused = await page.goto(`${app.base}/risks?inherentLikelihood=9`);
      expect(refused?.status()).toBe(400);
      expect(await page.locator('main').textContent()).toContain('"9" is not a likelihood level of the risk scale');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
      await page.waitForURL(`${app.base}/`);
    } finally {
      await context.close();
    }
  }, 120_000);

  test.skipIf(!chromiumAvailable)('the administrator\'s dashboard with every widget passes axe', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${app.base}/sign-in`);
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${app.base}/`);
      expect(await page.getByRole('heading', { name: 'Compliance by package', level: 2 }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'Overdue and due in the next 30 days' }).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'dashboard-admin');
    } finally {
      await context.close();
    }
  }, 120_000);
});
