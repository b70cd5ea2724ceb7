import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/** Records of processing in a real browser: recorded on the form, then read in the Article 30 register. */

if (!chromiumAvailable) console.warn('dataPrivacy/screens: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let systemName: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
  systemName = unique('Loyalty CRM');
  const token = await makeToken(env, await adminActor(env), ['assets:create', 'dataPrivacy:create']);
  const res = await env.request('/api/v1/assets', bearer(token, { method: 'POST', body: JSON.stringify({ name: systemName }) }));
  expect(res.status, await res.clone().text()).toBe(201);
  // The register then has a table in each role's section.
  const processing = await env.request('/api/v1/data-privacy/processing-activities', bearer(token, { method: 'POST', body: JSON.stringify({
    name: unique('Hosting for clients'), role: 'processor', status: 'active', legalBasis: 'contract', purposes: 'Running our clients\' shops on our platform',
  }) }));
  expect(processing.status, await processing.clone().text()).toBe(201);
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

const expectAccessible = async (page: Page, what: string) => expect(await axeViolations(page), what).toEqual([]);

describe.skipIf(!chromiumAvailable)('processing activities in the browser', () => {
  test('a processing activity recorded on the form shows in the Article 30 register, its printable page and its download', async () => {
    const page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const name = unique('Loyalty programme');

    await page.getByRole('navigation').getByRole('link', { name: 'Processing activities' }).click();
    await page.waitForURL(/\/data-privacy\/processing-activities$/);
    await expectAccessible(page, 'the list');
    await page.getByRole('link', { name: 'New processing activity' }).click();
    await expectAccessible(page, 'the empty form');

    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Purposes', { exact: true }).fill('Rewarding returning customers');
    await page.getByLabel('Legal basis (Art. 6)', { exact: true }).selectOption('legitimate_interests');
    await page.getByRole('group', { name: 'Categories of data subjects' }).getByLabel('Customers').check();
    const data = page.getByRole('group', { name: 'Categories of personal data' });
    await data.getByLabel('Contact details').check();
    await data.getByLabel('Health data').check();
    await page.getByRole('group', { name: 'Systems' }).getByLabel(systemName).check();
    await page.getByRole('button', { name: 'Create processing activity' }).click();

    // Health data is a special category: refused inline, naming the Art. 9 condition, with what was typed kept.
    await page.locator('#f-specialCategoryCondition-error').getByText('an Art. 9(2) condition is required').waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(name);
    expect(await data.getByLabel('Health data').isChecked()).toBe(true);
    expect(await page.getByRole('group', { name: 'Systems' }).getByLabel(systemName).isChecked()).toBe(true);
    await expectAccessible(page, 'the refused form');
    await screenshots(page, 'processing-activity-form');

    await page.getByLabel('Art. 9 condition', { exact: true }).selectOption('explicit_consent');
    await page.getByRole('button', { name: 'Create processing activity' }).click();
    await page.getByText('Processing activity recorded.').waitFor();
    expect(await page.locator('h1').textContent()).toBe(name);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain('Legitimate interests');
    expect(main).toContain('Contact details, Health data');
    expect(main).toContain(systemName);
    await expectAccessible(page, 'the record page');
    await screenshots(page, 'processing-activity');

    await page.getByRole('navigation').getByRole('link', { name: 'Article 30 register' }).click();
    await page.waitForURL(/\/data-privacy\/register$/);
    const controller = page.getByRole('region', { name: /As controller \(Art\. 30\(1\)\)/ });
    await controller.getByRole('link', { name }).waitFor();
    expect(await controller.getByRole('row', { name: new RegExp(name) }).textContent()).toContain(systemName);
    await expectAccessible(page, 'the register');
    await screenshots(page, 'article-30-register');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^article-30-register-\d{4}-\d{2}-\d{2}\.csv$/);

    await page.goto(`${base}/data-privacy/register`);
    await page.getByRole('link', { name: 'Printable page' }).click();
    await page.getByRole('heading', { name: 'Records of processing activities (GDPR Article 30)' }).waitFor();
    expect(await page.locator('main').textContent()).toContain(name);
    await expectAccessible(page, 'the printable register');
    await screenshots(page, 'article-30-register-print');
    await page.context().close();
  }, 300_000);
});
