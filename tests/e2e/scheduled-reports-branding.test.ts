import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { reportSchedules } from '../../db/schema';
import { runWrite } from '../../src/platform/http/context';
import { saveBranding } from '../../src/platform/branding/branding';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { chromiumAvailable } from '../helpers/chromium';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations, screenshots } from '../helpers/axe';

const app = useBrowserApp('scheduled-reports-branding');

describe('scheduled reports and branding in a browser', () => {
  test.skipIf(!chromiumAvailable)('an administrator schedules the risk register for a person and a group, then sets the branding; axe finds nothing', async () => {
    const reader = await makeUser(app.env, { 'risks:read': 'own' });
    const noRight = await makeUser(app.env, { 'controls:read': 'all' });
    const name = unique('Open risks weekly');
    const context = await app.browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${app.base}/sign-in`);
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${app.base}/`);

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scheduled reports' }).click();
      await page.waitForURL(`${app.base}/reports/schedules`);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Schedule a report' }).click();
      await page.waitForURL(`${app.base}/reports/schedules/new`);
      await page.getByLabel('Name').fill(name);
      // Choosing the report reloads its filters (htmx): wait for them before choosing one.
      await Promise.all([page.waitForResponse((r) => r.url().includes('/reports/schedules/filters')), page.getByLabel('Report').selectOption({ label: 'Risk register' })]);
      await page.getByLabel('Status').selectOption({ label: 'Open' });
      await page.getByLabel('Frequency').selectOption({ label: 'Weekly' });
      await page.getByLabel('Day of the week (weekly)').selectOption({ label: 'Monday' });
      // No recipient yet: refused inside the app, the form kept.
      await page.getByRole('button', { name: 'Save schedule' }).click();
      await page.getByText('choose at least one person or group to send the report to').first().waitFor();
      expect(await page.getByLabel('Name').inputValue()).toBe(name);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('These people').selectOption([{ label: `${reader.email.split('@')[0]} <${reader.email}>` }, { label: `${noRight.email.split('@')[0]} <${noRight.email}>` }]);
      await page.getByLabel('The members of these groups').selectOption({ value: reader.groupId });
      await page.getByRole('button', { name: 'Save schedule' }).click();
      await page.waitForURL(/\/reports\/schedules\/[0-9a-f-]{36}\?done=created$/);
      expect(await page.locator('h1').textContent()).toBe(`Scheduled report: ${name}`);
      expect(await page.locator('dl.summary').textContent()).toContain('Status: Open');
      expect(await page.locator('dl.summary').textContent()).toContain('Every Monday at');
      // The person without the report's right is named as skipped, with why.
      expect(await page.locator('section.card').textContent()).toContain(`${noRight.email.split('@')[0]}: no longer holds risks:read (the report's right)`);
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'scheduled-report');
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.waitForURL(/done=paused$/);
      const [stored] = await app.env.ctx.db.select().from(reportSchedules).where(eq(reportSchedules.name, name));
      expect(stored.paused).toBe(true);
      expect(stored.filters).toEqual({ status: 'open' });
      expect(stored.weekday).toBe(1);

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Branding' }).click();
      await page.waitForURL(`${app.base}/settings/branding`);
      await page.getByLabel('Organisation name').fill('Acme Browser Co');
      await page.getByLabel('Accent colour').fill('#ffee55');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByText('WCAG AA needs at least 4.5:1').first().waitFor();
      expect(await page.getByLabel('Organisation name').inputValue()).toBe('Acme Browser Co');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('Accent colour').fill('#1d4f91');
      await page.getByLabel('Logo').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><script>alert(1)</script><circle cx="10" cy="10" r="9" fill="#1d4f91"/></svg>') });
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByText('Branding saved. Removed from the SVG logo: scripts.').waitFor();
      expect((await page.locator('header .brand').textContent())?.trim()).toBe('Acme Browser Co');
      expect(await page.locator('header .brand img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      expect(await page.locator('header.topbar').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(29, 79, 145)');
      expect(await axeViolations(page)).toEqual([]);
      await screenshots(page, 'branding');
    } finally {
      await context.close();
      const admin = await adminActor(app.env);
      await runWrite(app.env.ctx, async (tx) => saveBranding(app.env.ctx, tx, admin, { name: 'GRC', accentColour: '' }, { remove: true }));
    }
  }, 400_000);
});
