import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/** A transfer impact assessment recorded on a third party's page, then a transfer relying on it from a processing activity's page. */

if (!chromiumAvailable) console.warn('dataPrivacy/transfer-screens: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let vendorName: string;
let vendorId: string;
let activityName: string;
let activityId: string;
let assetName: string;
let assetId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
  const token = await makeToken(env, await adminActor(env), ['thirdParties:create', 'dataPrivacy:create', 'assets:create']);
  const post = async (path: string, body: unknown) => {
    const res = await env.request(path, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  vendorName = unique('Payroll bureau');
  vendorId = await post('/api/v1/third-parties', { name: vendorName });
  activityName = unique('Payroll');
  activityId = await post('/api/v1/data-privacy/processing-activities', { name: activityName, legalBasis: 'legal_obligation', status: 'active' });
  assetName = unique('HR system');
  assetId = await post('/api/v1/assets', { name: assetName });
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

const expectAccessible = async (page: Page, what: string) => expect(await axeViolations(page), what).toEqual([]);

describe.skipIf(!chromiumAvailable)('transfers and transfer impact assessments in the browser', () => {
  test('a TIA added from the third party page, then a transfer relying on it added from the processing activity page', async () => {
    const page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const tiaName = unique('India transfers');
    const transferName = unique('Payroll data to the bureau');

    // The third party's page: its TIAs section, data privacy's, offers a new one.
    await page.goto(`${base}/third-parties/${vendorId}`);
    const tias = page.getByRole('region', { name: 'Transfer impact assessments' });
    await tias.getByText('No transfer impact assessments kept on this third party.').waitFor();
    await expectAccessible(page, 'the third party page');
    await tias.getByRole('link', { name: 'New transfer impact assessment' }).click();
    expect(await page.getByLabel('Third party', { exact: true }).locator('option:checked').textContent()).toBe(vendorName);
    await page.getByLabel('Name', { exact: true }).fill(tiaName);
    await page.getByLabel('Laws assessed', { exact: true }).fill('IT Act 2000 s. 69 interception; DPDP Act 2023');
    await page.getByLabel('Risk found', { exact: true }).selectOption({ label: 'Medium' });
    await page.getByLabel('Conclusion', { exact: true }).selectOption({ label: 'Proceed with measures' });
    await page.getByLabel('Assessed on', { exact: true }).fill('2026-03-01');
    await page.getByLabel('Next review', { exact: true }).fill('2027-03-01');
    await page.getByRole('button', { name: 'Create transfer impact assessment' }).click();
    // Proceeding with measures needs the measures named: refused inside the form, what was typed kept.
    await page.locator('#f-supplementaryMeasures-error').getByText('name the supplementary measures the conclusion relies on').waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(tiaName);
    await expectAccessible(page, 'the refused TIA form');
    await page.getByLabel('Supplementary measures', { exact: true }).fill('Encryption with keys held in the EU');
    await page.getByRole('button', { name: 'Create transfer impact assessment' }).click();
    await page.getByText('Transfer impact assessment recorded.').waitFor();
    expect(await page.locator('h1').textContent()).toBe(tiaName);
    expect((await page.locator('main').textContent()) ?? '').toContain(vendorName);
    await expectAccessible(page, 'the TIA page');

    // The processing activity's page: its transfers section offers a new one with the activity chosen.
    await page.goto(`${base}/data-privacy/processing-activities/${activityId}`);
    const transfers = page.getByRole('region', { name: 'Transfers outside the EEA' });
    await transfers.getByText('No transfers outside the EEA recorded').waitFor();
    await transfers.getByRole('link', { name: 'New transfer' }).click();
    expect(await page.getByLabel('Processing activity', { exact: true }).locator('option:checked').textContent()).toBe(activityName);
    await page.getByLabel('Name', { exact: true }).fill(transferName);
    await page.getByLabel('Destination country', { exact: true }).selectOption({ label: 'India' });
    await page.getByLabel('Recipient', { exact: true }).selectOption({ label: vendorName });
    await page.getByLabel('Transfer impact assessment', { exact: true }).selectOption({ label: tiaName });
    await page.getByRole('button', { name: 'Create transfer' }).click();
    // Without a safeguard: refused inside the app, naming the field, the form kept.
    await page.locator('#f-safeguard-error, .field.invalid').first().waitFor();
    expect(((await page.locator('main').textContent()) ?? '').toLowerCase()).toContain('safeguard');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(transferName);
    await expectAccessible(page, 'the refused transfer form');
    await screenshots(page, 'transfer-form');
    await page.getByLabel('Safeguard', { exact: true }).selectOption({ label: 'Standard contractual clauses (Art. 46(2)(c))' });
    await page.getByLabel('SCC module', { exact: true }).selectOption({ label: 'Module 2: controller to processor' });
    await page.getByRole('button', { name: 'Create transfer' }).click();
    await page.getByText('Transfer recorded.').waitFor();
    const shown = (await page.locator('main').textContent()) ?? '';
    expect(shown).toContain('India');
    expect(shown).toContain(vendorName);
    expect(shown).toContain(tiaName);
    await expectAccessible(page, 'the transfer page');

    // Back on the processing activity's page, the transfer is listed by country name, with its TIA linked.
    await page.goto(`${base}/data-privacy/processing-activities/${activityId}`);
    const row = transfers.getByRole('row', { name: new RegExp(transferName) });
    expect(await row.textContent()).toContain('India');
    expect(await row.textContent()).toContain('Standard contractual clauses (module 2)');
    await row.getByRole('link', { name: tiaName }).waitFor();
    await expectAccessible(page, 'the processing activity page with its transfer');

    // And the third party's page lists the TIA.
    await page.goto(`${base}/third-parties/${vendorId}`);
    await tias.getByRole('link', { name: tiaName }).waitFor();
    await page.close();
  }, 300_000);

  test('data-map fields edited in the asset page\'s Privacy section; the Breaches list', async () => {
    const page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${base}/assets/${assetId}`);
    const privacy = page.getByRole('region', { name: 'Privacy' });
    expect(await privacy.textContent()).toContain('Personal data held');
    await privacy.getByText('Edit privacy fields').click();
    // Categories while no personal data is held: refused in the form, what was chosen kept.
    await privacy.getByLabel('Health data').check();
    await privacy.getByLabel('Location country', { exact: true }).selectOption({ label: 'Germany' });
    await privacy.getByRole('button', { name: 'Save privacy fields' }).click();
    await page.getByText('must be empty unless the asset holds personal data').waitFor();
    expect(await page.getByLabel('Health data').isChecked()).toBe(true);
    expect(await page.getByLabel('Location country', { exact: true }).locator('option:checked').textContent()).toBe('Germany');
    await expectAccessible(page, 'the refused privacy form');
    await page.getByLabel('Personal data held', { exact: true }).selectOption({ label: 'Yes' });
    await page.getByLabel('Retention', { exact: true }).fill('7 years after leaving');
    await page.getByLabel('Hosting', { exact: true }).selectOption({ label: 'Public cloud' });
    await page.getByRole('button', { name: 'Save privacy fields' }).click();
    await page.waitForURL(new RegExp(`/assets/${assetId}`));
    const saved = (await page.getByRole('region', { name: 'Privacy' }).textContent()) ?? '';
    for (const shown of ['Yes', 'Health data', 'Germany', '7 years after leaving', 'Public cloud']) expect(saved).toContain(shown);
    await expectAccessible(page, 'the asset page with its Privacy section');

    await page.getByRole('navigation').getByRole('link', { name: 'Breaches' }).click();
    await page.waitForURL(/\/data-privacy\/breaches$/);
    expect(await page.locator('h1').textContent()).toBe('Personal-data breaches');
    await expectAccessible(page, 'the breaches list');
    await page.close();
  }, 300_000);
});
