import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { saveMailSettings, DEFAULT_MAIL_SETTINGS } from '../../src/platform/notifications/settings';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { adminActor } from '../helpers/factories';

/** Settings › Notifications, Settings › Mail and My notifications in a real browser, each page checked with axe. */

if (!chromiumAvailable) console.warn('e2e/notifications: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

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
}, 120_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  const admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => saveMailSettings(tx, admin, env.ctx.config, DEFAULT_MAIL_SETTINGS));
  await browser?.close();
  await server?.stop();
}, 60_000);

/** No critical, serious or moderate axe violation on the page as it is now. */
async function expectAccessible(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => ['critical', 'serious', 'moderate'].includes(v.impact ?? ''));
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), what).toEqual([]);
}

async function signIn(page: Page) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in');
}

describe.skipIf(!chromiumAvailable)('notifications in the browser', () => {
  test('an administrator lists the organisation\'s mail domains, sets up a rule (an outside address refused first), saves the settings, pauses and resumes reminders and previews the digests', async () => {
    // axe-core's Playwright binding needs a page of an explicit context.
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await signIn(page);

    await page.goto(`${base}/settings/mail`);
    await expectAccessible(page, 'Settings › Mail');
    await page.getByLabel("The organisation's mail domains").fill('test.example');
    await page.getByRole('button', { name: 'Save mail settings' }).click();
    await page.getByText('Mail settings saved.').waitFor();
    await page.getByRole('button', { name: 'Send a test message' }).click();
    await page.getByText('Not sent: No SMTP server is configured.').waitFor();
    await expectAccessible(page, 'Settings › Mail after a test message');

    await page.goto(`${base}/settings/notifications`);
    await expectAccessible(page, 'Settings › Notifications');
    await page.getByRole('link', { name: 'New rule' }).click();
    await page.getByLabel('Name').fill('Closed risks to the committee');
    await page.getByLabel('Records', { exact: true }).selectOption({ label: 'Risk' });
    await page.getByLabel('When').selectOption('status_changed');
    // htmx brings the risk's statuses into the form.
    await page.locator('#f-value option[value="closed"]').waitFor({ state: 'attached' });
    await page.getByLabel('Status (for “Status changed to a value”)').selectOption('closed');
    await page.getByLabel("The record's owner").check();
    await page.getByLabel('These addresses').fill('committee@gmail.com');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('There is a problem').waitFor();
    expect(await page.locator('.error-summary').innerText()).toContain("committee@gmail.com is outside the organisation's mail domains (test.example)");
    expect(await page.getByLabel('Name').inputValue()).toBe('Closed risks to the committee');
    await expectAccessible(page, 'rule form with an error');
    await page.getByLabel('These addresses').fill('committee@test.example');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Rule created.').waitFor();
    const row = page.locator('table.data tr', { hasText: 'Closed risks to the committee' });
    expect(await row.innerText()).toContain('Status changed to Closed');
    expect(await row.innerText()).toContain('owner, committee@test.example');

    await page.getByLabel('Notify on API changes and CSV imports').check();
    await page.getByLabel('Daily reminders at').selectOption('6');
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Notification settings saved.').waitFor();
    expect(await page.getByLabel('Notify on API changes and CSV imports').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Pause reminders' }).click();
    await page.getByText('Reminders paused: no digest goes out until they are resumed.').waitFor();
    await page.getByRole('button', { name: 'Resume reminders' }).click();
    await page.getByText('Reminders resumed.').waitFor();
    await page.screenshot({ path: '/tmp/notifications-1366.png', fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: '/tmp/notifications-390.png', fullPage: true });
    await page.setViewportSize({ width: 1366, height: 900 });

    await page.getByRole('link', { name: 'Preview the next digests' }).click();
    await page.getByRole('heading', { name: 'Next reminder digests' }).waitFor();
    await expectAccessible(page, 'digest preview');

    // The switch back off and the rule deleted, as a person would.
    await page.goto(`${base}/settings/notifications`);
    await page.getByLabel('Notify on API changes and CSV imports').uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Notification settings saved.').waitFor();
    await page.getByRole('link', { name: 'Closed risks to the committee' }).click();
    await page.getByRole('link', { name: 'Delete this rule' }).click();
    await expectAccessible(page, 'delete rule');
    await page.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByText('Rule deleted.').waitFor();
    await page.context().close();
  }, 180_000);

  test('a person turns their digests off from the header', async () => {
    // axe-core's Playwright binding needs a page of an explicit context.
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Notifications', exact: true }).first().click();
    await page.waitForURL(/\/settings\/(my-)?notifications/);
    await page.goto(`${base}/settings/my-notifications`);
    await expectAccessible(page, 'My notifications');
    await page.getByLabel('Daily digest of what is due or overdue for me').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Your mail preferences are saved.').waitFor();
    expect(await page.getByLabel('Daily digest of what is due or overdue for me').isChecked()).toBe(false);
    expect(await page.getByLabel('Mails from notification rules').isChecked()).toBe(true);
    await page.getByLabel('Daily digest of what is due or overdue for me').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Your mail preferences are saved.').waitFor();
    await page.context().close();
  }, 120_000);
});
