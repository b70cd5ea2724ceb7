import { describe, expect, test } from 'bun:test';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { systemActor, type Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { makeRisk, unique } from '../helpers/factories';
import { chromiumAvailable } from '../helpers/chromium';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations, screenshots } from '../helpers/axe';

const app = useBrowserApp('dashboard-as-of');
const at = (time: string): Actor => ({ ...systemActor('loader'), writtenAt: new Date(time) });

describe('posture at a past date in a browser', () => {
  test.skipIf(!chromiumAvailable)('pick an "as of" date on the dashboard and on a package page: a day to come is refused in words, a past day shows its posture; axe finds nothing', async () => {
    // The past, written through the services at chosen times: a High risk on 10 February, a package imported on 1 March.
    await makeRisk(app.env, at('2026-02-10T09:00:00Z'), { title: unique('Risk of February'), inherentLikelihood: 3, inherentImpact: 4 });
    const packageName = unique('Framework of March');
    const { id: packageId } = await app.env.ctx.db.transaction((tx) => importPackage(tx, at('2026-03-01T09:00:00Z'), {
      name: packageName, items: [{ code: 'A1', name: 'Access reviews' }, { code: 'A2', name: 'Backups' }],
    }));

    const context = await app.browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${app.base}/sign-in`);
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${app.base}/`);
      // The trend comes after the page (htmx): twelve month ends per posture.
      await page.locator('table.trend').first().waitFor();
      expect(await page.getByRole('heading', { name: 'The last twelve months' }).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);

      // A day to come: refused inside the app, the date kept, the reason beside the field.
      await page.getByLabel('As of').fill('2999-01-01');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL((url) => url.searchParams.get('asOf') === '2999-01-01');
      expect(await page.locator('#f-asOf-error').textContent()).toContain('The date must not be after today');
      expect(await page.getByLabel('As of').inputValue()).toBe('2999-01-01');
      expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'dashboard-as-of-refused');

      // A past day: the posture as it stood then.
      await page.getByLabel('As of').fill('2026-02-10');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL((url) => url.searchParams.get('asOf') === '2026-02-10');
      const bands = page.getByRole('region', { name: 'Open risks by band on 2026-02-10' });
      // A row per band, inherent and residual side by side: one High risk (inherent), none rated residual yet.
      expect(await bands.getByRole('row', { name: /^High/ }).locator('td').allTextContents()).toEqual(['1', '0']);
      expect(await page.getByRole('heading', { name: 'The twelve months to 2026-02-10' }).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'dashboard-as-of');

      // The package page: before its import is refused; a day after it shows the score then.
      await page.goto(`${app.base}/compliance/packages/${packageId}`);
      await page.getByLabel('As of').fill('2026-02-28');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL((url) => url.searchParams.get('asOf') === '2026-02-28');
      expect(await page.locator('#f-asOf-error').textContent()).toBe('History starts on 2026-03-01: choose that day or a later one.');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('As of').fill('2026-03-01');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL((url) => url.searchParams.get('asOf') === '2026-03-01');
      const past = page.locator('#score-as-of');
      expect(await past.locator('caption').textContent()).toContain('at the end of 2026-03-01');
      expect(await past.getByRole('row', { name: /Requirements/ }).textContent()).toContain('2');
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'package-score-as-of');
    } finally {
      await context.close();
    }
  }, 300_000);
});
