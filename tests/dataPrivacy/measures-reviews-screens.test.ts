import { describe, expect, test } from 'bun:test';
import type { Page } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { axeViolations } from '../helpers/axe';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/** A processing activity given controls as its measures and a label, reviewed from its page; the control's page lists it. */

const app = useBrowserApp('dataPrivacy/measures-reviews-screens');
const expectAccessible = async (page: Page, what: string) => expect(await axeViolations(page), what).toEqual([]);

describe.skipIf(!chromiumAvailable)('measures, reviews and labels of a processing activity in the browser', () => {
  test('controls and a label picked on the form, a review refused then recorded on the page, the control page linking back', async () => {
    const { env, base, browser } = app;
    const token = await makeToken(env, await adminActor(env), ['dataPrivacy:create', 'controls:create', 'settings:create']);
    const post = async (path: string, body: unknown) => {
      const res = await env.request(path, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    const controlName = unique('Encryption at rest');
    const controlId = await post('/api/v1/controls', { name: controlName });
    const labelName = unique('GDPR core');
    const labelId = await post('/api/v1/labels', { name: labelName });
    const activityName = unique('Payroll');
    const activityId = await post('/api/v1/data-privacy/processing-activities', { name: activityName, legalBasis: 'legal_obligation', status: 'active' });

    const page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    // The form: the controls the viewer may read and the labels, each a box by name.
    await page.goto(`${base}/data-privacy/processing-activities/${activityId}/edit`);
    await page.getByLabel(controlName, { exact: true }).check();
    await page.getByLabel(labelName, { exact: true }).check();
    await expectAccessible(page, 'the processing activity form');
    await page.getByRole('button', { name: /Save/ }).click();
    await page.waitForURL(new RegExp(`/data-privacy/processing-activities/${activityId}(\\?|$)`));
    const shown = (await page.locator('main').textContent()) ?? '';
    expect(shown).toContain(controlName);
    expect(shown).toContain(labelName);

    // The reviews section: changes needed without saying which is refused inside the app, what was chosen kept.
    const reviews = page.getByRole('region', { name: 'Periodic reviews' });
    await reviews.getByText('No reviews recorded yet.').waitFor();
    await reviews.getByLabel('Outcome', { exact: true }).selectOption({ label: 'Changes needed' });
    await reviews.getByLabel('Next review on', { exact: true }).fill('2027-06-01');
    await reviews.getByRole('button', { name: 'Record review' }).click();
    await page.getByText('say which changes are needed').waitFor();
    expect(await page.getByLabel('Outcome', { exact: true }).locator('option:checked').textContent()).toBe('Changes needed');
    expect(await page.getByLabel('Next review on', { exact: true }).inputValue()).toBe('2027-06-01');
    await expectAccessible(page, 'the refused review form');
    await page.getByLabel('Notes', { exact: true }).fill('Retention to be shortened to 7 years');
    await page.getByRole('button', { name: 'Record review' }).click();
    await page.waitForURL(new RegExp(`/data-privacy/processing-activities/${activityId}\\?done=updated`));
    const row = reviews.getByRole('row', { name: /Retention to be shortened/ });
    expect(await row.textContent()).toContain('Changes needed');
    expect(await reviews.textContent()).toContain('Next review on 2027-06-01');
    // History names the controls and labels (never their ids) and shows the review and the next review day it set.
    const historyText = (await page.locator('#record-history').textContent()) ?? '';
    expect(historyText).toContain(controlName);
    expect(historyText).toContain(labelName);
    expect(historyText).not.toContain(controlId);
    expect(historyText).not.toContain(labelId);
    expect(historyText).toContain('Processing activity review');
    expect(historyText).toContain('Changes needed');
    await expectAccessible(page, 'the processing activity page with its review');

    // The control's page: the processing activities naming it.
    await page.goto(`${base}/controls/${controlId}`);
    const linked = page.getByRole('region', { name: 'Processing activities' });
    await linked.getByRole('link', { name: activityName }).waitFor();
    await expectAccessible(page, 'the control page');

    // The list filtered by the label, with its Labels column; the register names the control.
    await page.goto(`${base}/data-privacy/processing-activities?label=${labelId}`);
    const listed = page.getByRole('row', { name: new RegExp(activityName) });
    expect(await listed.textContent()).toContain(labelName);
    await expectAccessible(page, 'the processing activities list filtered by label');
    await page.goto(`${base}/data-privacy/register`);
    expect(await page.getByRole('row', { name: new RegExp(activityName) }).textContent()).toContain(controlName);
    await page.close();
  }, 300_000);
});
