import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright';
import { processingActivities } from '../../db/schema';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, bearer, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';

/**
 * Data Liaison questionnaires in a real browser, to the last step: the privacy officer sends one, the business owner
 * (no data privacy right) finds it in the navigation and answers it, the officer accepts one proposal and rejects the
 * other, and the processing activity's page shows the accepted value.
 */

if (!chromiumAvailable) console.warn('dataPrivacy/questionnaire-screens: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let owner: TestUser;
let ownerName: string;
let activityName: string;
let activityId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
  ownerName = unique('bea.business'); // the name makes the e-mail address: no spaces
  owner = await makeUser(env, {}, ownerName);
  activityName = unique('Customer newsletter');
  const token = await makeToken(env, await adminActor(env), ['dataPrivacy:create']);
  const res = await env.request('/api/v1/data-privacy/processing-activities', bearer(token, { method: 'POST', body: JSON.stringify({
    name: activityName, legalBasis: 'consent', purposes: 'Sending the monthly newsletter', retention: 'Until unsubscribed', recipients: 'Mailing service',
  }) }));
  expect(res.status, await res.clone().text()).toBe(201);
  activityId = ((await res.json()) as { data: { id: string } }).data.id;
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

const expectAccessible = async (page: Page, what: string) => expect(await axeViolations(page), what).toEqual([]);

describe.skipIf(!chromiumAvailable)('Data Liaison questionnaires in the browser', () => {
  test('sent by the officer, answered by the owner from their own screen, one proposal accepted and one rejected', async () => {
    const title = unique('Is the newsletter record right?');

    // The officer sends it; a form missing the fields asked is refused inline with what was typed kept.
    const officer = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await officer.getByRole('navigation').getByRole('link', { name: 'Liaison questionnaires' }).click();
    await officer.waitForURL(/\/data-privacy\/questionnaires$/);
    await expectAccessible(officer, 'the officer\'s list');
    await officer.getByRole('link', { name: 'New questionnaire' }).click();
    await officer.getByLabel('Title').fill(title);
    await officer.getByLabel('Processing activity').selectOption({ label: activityName });
    await officer.getByLabel('Person asked').selectOption({ label: ownerName });
    await officer.getByLabel('Answers due on').fill('2030-03-31');
    await expectAccessible(officer, 'the form');
    await officer.getByRole('button', { name: 'Send questionnaire' }).click();
    await officer.getByRole('alert').filter({ hasText: 'Please correct the fields marked below' }).waitFor();
    expect(await officer.getByLabel('Title').inputValue()).toBe(title);
    expect(await officer.getByLabel('Person asked').inputValue()).toBe(owner.id);
    await expectAccessible(officer, 'the refused form');
    const asked = officer.getByRole('group', { name: 'Fields asked about' });
    await asked.getByLabel('Retention').check();
    await asked.getByLabel('Recipients').check();
    await officer.getByRole('button', { name: 'Send questionnaire' }).click();
    await officer.getByText('Questionnaire sent.').waitFor();
    expect(await officer.locator('h1').textContent()).toBe(title);
    const questionnaireUrl = officer.url().replace(/\?.*$/, '');
    expect(await officer.locator('main').textContent()).toContain(`Waiting for ${ownerName} to answer`);
    await expectAccessible(officer, 'the sent questionnaire');

    // The owner, who holds no data privacy right, finds it in the navigation and answers it.
    const person = await openPage(browser, base, { email: owner.email, password: owner.password });
    expect(await person.getByRole('navigation').getByRole('link', { name: 'Processing activities' }).count()).toBe(0);
    await person.getByRole('navigation').getByRole('link', { name: 'My questionnaires' }).click();
    await person.waitForURL(/\/data-privacy\/my-questionnaires$/);
    expect(await person.locator('h1').textContent()).toBe('My privacy questionnaires');
    await expectAccessible(person, 'the owner\'s list');
    await person.getByRole('link', { name: title }).click();
    await person.getByText('Recorded now: Until unsubscribed').waitFor();
    await expectAccessible(person, 'the answer form');
    await screenshots(person, 'privacy-questionnaire-answer');
    await person.getByLabel('Retention: should be').fill('Two years after the last opened newsletter');
    await person.getByLabel('Retention: comment').fill('We prune inactive subscribers');
    await person.getByLabel('Recipients: should be').fill('Mailing service; analytics provider');
    await person.getByRole('button', { name: 'Send answers' }).click();
    await person.getByText('Thank you: your answers were sent to the privacy team.').waitFor();
    const answered = (await person.locator('main').textContent()) ?? '';
    expect(answered).toContain('Two years after the last opened newsletter');
    expect(answered).toContain('Waiting for a decision');
    await expectAccessible(person, 'the answered questionnaire');
    // The officer's page is not theirs.
    const refused = await person.goto(questionnaireUrl);
    expect(refused?.status()).toBe(403);
    await person.context().close();

    // The officer sees current → proposed by field label, accepts one and rejects the other with a reason.
    await officer.goto(questionnaireUrl);
    const retention = officer.getByRole('region', { name: 'Answers' }).getByRole('row', { name: /^Retention/ });
    expect(await retention.textContent()).toContain('Until unsubscribed');
    expect(await retention.textContent()).toContain('Two years after the last opened newsletter');
    await expectAccessible(officer, 'the answers to decide');
    await screenshots(officer, 'privacy-questionnaire-decide');
    await officer.getByRole('button', { name: 'Accept the proposal for Retention' }).click();
    await officer.getByText('Proposal accepted: the processing activity is changed.').waitFor();
    await officer.getByLabel('Reason for rejecting the proposal for Recipients').fill('Analytics sees no personal data');
    await officer.getByRole('button', { name: 'Reject the proposal for Recipients' }).click();
    await officer.getByText('Proposal rejected.').waitFor();
    const main = (await officer.locator('main').textContent()) ?? '';
    expect(main).toContain('Closed');
    expect(main).toContain('Rejected by');
    expect(main).toContain('Analytics sees no personal data');
    // History names the steps and the fields by label.
    const history = (await officer.locator('#record-history').textContent()) ?? '';
    expect(history).toContain('Proposal accepted');
    expect(history).toContain('Retention: proposed “Two years after the last opened newsletter” (accepted)');
    await expectAccessible(officer, 'the closed questionnaire');

    // The processing activity holds the accepted value, and its History says who changed it.
    await officer.locator('dl').getByRole('link', { name: activityName }).click();
    await officer.waitForURL(new RegExp(`/data-privacy/processing-activities/${activityId}$`));
    expect(await officer.locator('main').textContent()).toContain('Two years after the last opened newsletter');
    expect(await officer.getByRole('region', { name: 'Liaison questionnaires' }).textContent()).toContain(`${title} (to ${ownerName}; closed)`);
    const [stored] = await env.ctx.db.select({ retention: processingActivities.retention, recipients: processingActivities.recipients })
      .from(processingActivities).where(eq(processingActivities.id, activityId));
    expect(stored).toEqual({ retention: 'Two years after the last opened newsletter', recipients: 'Mailing service' });
    await expectAccessible(officer, 'the processing activity');
    await officer.context().close();
  }, 180_000);
});
