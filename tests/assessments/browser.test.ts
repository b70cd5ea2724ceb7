import { describe, expect, test } from 'bun:test';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { axeViolations, screenshots } from '../helpers/axe';
import { assessmentClient, pathOf } from './helpers';

const app = useBrowserApp('assessments/browser');

describe('a questionnaire in a browser', () => {
  test.skipIf(!chromiumAvailable)('a respondent without an account answers on a phone, is told what is missing, submits; a reviewer scores and accepts', async () => {
    const { env, browser, base } = app;
    const api = assessmentClient(env, await makeToken(env, await adminActor(env), ['assessments:read', 'assessments:create', 'thirdParties:read', 'thirdParties:create']));
    const vendorName = unique('Acme Hosting');
    const vendor = await api.thirdParty(vendorName);
    const sent = await api.sendRequest({ templateId: await api.shipped('vendor-security'), thirdPartyId: vendor, respondentName: 'Ada' });

    // The respondent: no session, a phone-sized window.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}${pathOf(sent.url)}`);
    await page.getByRole('heading', { name: `Vendor security questionnaire: ${vendorName}` }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).toBeLessThanOrEqual(390);

    await page.locator('input[name="a-hasCertification"][value="yes"]').check();
    await page.getByLabel('1.3. Who do we contact about security').fill('Ada Lovelace, security@acme.example');
    await page.locator('input[name="a-mfa"][value="yes"]').check();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Your draft was saved').waitFor();

    // Submitting without the certificate and the other required answers: a summary linking to each, nothing lost.
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    expect(await page.getByRole('link', { name: 'Question 1.2: attach a file: this question needs an answer' }).count()).toBe(1);
    expect(await page.getByLabel('1.3. Who do we contact about security').inputValue()).toBe('Ada Lovelace, security@acme.example');
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'assessment-respondent-errors');

    await page.getByLabel('1.2. Attach the certificate').setInputFiles({ name: 'iso27001.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') });
    await page.locator('input[name="a-encryption"][value="atRest"]').check();
    await page.locator('input[name="a-encryption"][value="inTransit"]').check();
    await page.locator('input[name="a-dataLocation"][value="eea"]').check();
    await page.locator('input[name="a-incident"][value="no"]').check();
    await page.getByLabel('3.3. Within how many hours').fill('24');
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.getByText('Thank you: your answers were submitted.').waitFor();
    expect(await page.getByText('iso27001.pdf').count()).toBe(1);
    expect(await page.locator('form').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'assessment-respondent-submitted');
    await context.close();

    // The reviewer: scores the backup date, sees the weights, accepts; the third party's page shows the score.
    const reviewer = await makeUser(env, { 'assessments:read': 'all', 'assessments:update': 'all', 'thirdParties:read': 'all' }, unique('reviewer'));
    const staff = await openPage(browser, base, { email: reviewer.email, password: reviewer.password });
    await staff.getByRole('link', { name: 'Questionnaires', exact: true }).click();
    expect(await axeViolations(staff)).toEqual([]);
    await staff.getByRole('link', { name: `Vendor security questionnaire: ${vendorName}` }).click();
    await staff.getByRole('heading', { name: 'Answers' }).waitFor();
    expect(await staff.getByText('Template: 100%').count()).toBeGreaterThan(0);
    await staff.getByLabel('Comment on the answer to: Where is our data stored and processed?').fill('Confirmed in the contract.');
    await staff.getByRole('button', { name: 'Save scores and comments' }).click();
    await staff.getByText('Scores and comments saved.').waitFor();
    expect(await axeViolations(staff)).toEqual([]);
    await screenshots(staff, 'assessment-review');
    await staff.getByRole('button', { name: 'Accept the answers' }).click();
    await staff.getByText('The answers were accepted; the link is closed.').waitFor();
    expect(await staff.locator('.tag', { hasText: 'Accepted' }).count()).toBe(1);
    await staff.goto(`${base}/third-parties/${vendor}`);
    await staff.getByRole('heading', { name: 'Assessments' }).waitFor();
    expect(await staff.getByRole('link', { name: `Vendor security questionnaire: ${vendorName}` }).count()).toBe(1);
    expect(await axeViolations(staff)).toEqual([]);
    await staff.close();

    // The link is closed now: the same 404 as any unknown address.
    const closed = await env.request(pathOf(sent.url));
    expect(closed.status).toBe(404);
  }, 400_000);
});
