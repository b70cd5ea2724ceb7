import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/**
 * In the browser: an administrator adds categories in Settings › Privacy categories and uses them on a processing
 * activity and on an asset's data-map fields; the DPA fields of a third party edited on its page.
 */

if (!chromiumAvailable) console.warn('dataPrivacy/privacy-fields-screens: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let vendorId: string;
let assetId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
  const token = await makeToken(env, await adminActor(env), ['thirdParties:create', 'assets:create']);
  const post = async (path: string, body: unknown) => {
    const res = await env.request(path, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  vendorId = await post('/api/v1/third-parties', { name: unique('Cloud payroll') });
  assetId = await post('/api/v1/assets', { name: unique('Fleet system') });
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

const expectAccessible = async (page: Page, what: string) => expect(await axeViolations(page), what).toEqual([]);

describe.skipIf(!chromiumAvailable)('privacy categories and privacy fields in the browser', () => {
  test('categories added in Settings › Privacy categories are offered on a processing activity and on an asset\'s data-map fields', async () => {
    const page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const subject = unique('Loyalty members');
    const dataCategory = unique('Vehicle telemetry');

    await page.getByRole('navigation').getByRole('link', { name: 'Privacy categories' }).click();
    await page.waitForURL(/\/settings\/data-privacy$/);
    expect(await page.locator('h1').textContent()).toBe('Privacy categories');
    const subjects = page.getByRole('region', { name: 'Categories of data subjects' });
    // The seeded entries, by name, with how many records use each.
    await subjects.getByRole('textbox', { name: 'Name of Job applicants' }).waitFor();
    await expectAccessible(page, 'the Privacy categories screen');
    await subjects.getByLabel('New category of data subjects').fill(subject);
    await subjects.getByLabel('Description', { exact: true }).fill('Members of the rewards scheme');
    await subjects.getByRole('button', { name: 'Add category of data subjects' }).click();
    await page.getByText('Category of data subjects added.').waitFor();
    await subjects.getByRole('textbox', { name: `Name of ${subject}` }).waitFor();
    // A name already taken: refused inside the screen, what was typed kept.
    await subjects.getByLabel('New category of data subjects').fill('employees');
    await subjects.getByRole('button', { name: 'Add category of data subjects' }).click();
    await page.getByText('A category of data subjects named "Employees" already exists').waitFor();
    expect(await page.getByRole('region', { name: 'Categories of data subjects' }).getByLabel('New category of data subjects').inputValue()).toBe('employees');
    await expectAccessible(page, 'the refused category');
    const personal = page.getByRole('region', { name: 'Categories of personal data' });
    await personal.getByLabel('New category of personal data').fill(dataCategory);
    await personal.getByRole('button', { name: 'Add category of personal data' }).click();
    await page.getByText('Category of personal data added.').waitFor();
    await screenshots(page, 'privacy-categories');

    // The processing activity form offers the new category; the record page names it.
    const activity = unique('Rewards programme');
    await page.goto(`${base}/data-privacy/processing-activities/new`);
    await page.getByLabel('Name', { exact: true }).fill(activity);
    await page.getByLabel('Legal basis (Art. 6)', { exact: true }).selectOption({ label: 'Consent' });
    await page.getByLabel(subject, { exact: true }).check();
    await page.getByLabel(dataCategory, { exact: true }).check();
    await page.getByRole('button', { name: 'Create processing activity' }).click();
    await page.getByText('Processing activity recorded.').waitFor();
    const shown = (await page.locator('main').textContent()) ?? '';
    expect(shown).toContain(subject);
    expect(shown).toContain(dataCategory);
    await expectAccessible(page, 'the processing activity with the new categories');

    // The asset's Privacy section offers the new category of personal data too.
    await page.goto(`${base}/assets/${assetId}`);
    const privacy = page.getByRole('region', { name: 'Privacy' });
    await privacy.getByText('Edit privacy fields').click();
    await privacy.getByLabel('Personal data held', { exact: true }).selectOption({ label: 'Yes' });
    await privacy.getByLabel(dataCategory, { exact: true }).check();
    await privacy.getByRole('button', { name: 'Save privacy fields' }).click();
    await page.waitForURL(new RegExp(`/assets/${assetId}`));
    expect(await page.getByRole('region', { name: 'Privacy' }).textContent()).toContain(dataCategory);
    await expectAccessible(page, 'the asset page with the new category');

    // Used now, neither entry offers Delete; each says what uses it.
    await page.goto(`${base}/settings/data-privacy`);
    expect(await page.getByRole('region', { name: 'Categories of personal data' }).textContent()).toContain('In use by 2 processing activities or assets');
    await page.close();
  }, 300_000);

  test('the DPA fields of a third party edited in its Privacy section: a future date refused in the form, then saved', async () => {
    const page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${base}/third-parties/${vendorId}`);
    const dpa = page.getByRole('region', { name: 'Privacy: data processing agreement' });
    expect(await dpa.textContent()).toContain('Not signed');
    await expectAccessible(page, 'the third party page');
    await dpa.getByText('Edit DPA fields').click();
    await dpa.getByLabel('DPA signed on', { exact: true }).fill('2099-01-31');
    await dpa.getByLabel('DPA version', { exact: true }).fill('v3.2');
    await dpa.getByLabel('Sub-processors\' locations', { exact: true }).selectOption([{ label: 'India' }, { label: 'United States' }]);
    await dpa.getByRole('button', { name: 'Save DPA fields' }).click();
    await page.getByText('must not be in the future').waitFor();
    expect(await page.getByLabel('DPA version', { exact: true }).inputValue()).toBe('v3.2');
    expect(await page.getByLabel('Sub-processors\' locations', { exact: true }).locator('option:checked').allTextContents()).toEqual(['India', 'United States']);
    await expectAccessible(page, 'the refused DPA form');
    await page.getByLabel('DPA signed on', { exact: true }).fill('2026-02-01');
    await page.getByRole('button', { name: 'Save DPA fields' }).click();
    await page.waitForURL(new RegExp(`/third-parties/${vendorId}`));
    const saved = (await page.getByRole('region', { name: 'Privacy: data processing agreement' }).textContent()) ?? '';
    for (const shown of ['2026-02-01', 'v3.2', 'India', 'United States']) expect(saved).toContain(shown);
    await expectAccessible(page, 'the third party page with its DPA');
    await screenshots(page, 'third-party-dpa');
    await page.close();
  }, 300_000);
});
