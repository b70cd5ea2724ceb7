import { describe, expect, test } from 'bun:test';
import { makeUser, unique } from '../helpers/factories';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { axeViolations, screenshots } from '../helpers/axe';

const app = useBrowserApp('assessments/template-browser');

const FIRST = [
  'Section: Hosting',
  'Question selfHosted (yes or no, required, weight 2)',
  'Do you host our data in your own data centres?',
  '- yes: Yes = 100%',
  '- no: No = 50%',
].join('\n');
const CONDITIONAL = [
  '',
  'Question provider (text, required, when selfHosted is No)',
  'Which cloud provider hosts our data?',
  'Hint: The company and the region.',
].join('\n');

describe('templates in a browser', () => {
  test.skipIf(!chromiumAvailable)('a template is written, refused with its problem shown, created, given a conditional question, published as version 2 and sent', async () => {
    const { env, browser, base } = app;
    const person = await makeUser(env, { 'assessments:read': 'own', 'assessments:create': 'own', 'assessments:update': 'own', 'thirdParties:read': 'all' }, unique('tess.templates'));
    const page = await openPage(browser, base, { email: person.email, password: person.password });
    const title = unique('Hosting questionnaire');

    await page.getByRole('link', { name: 'Questionnaires', exact: true }).click();
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    await page.getByRole('heading', { name: 'Questionnaire templates' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'New questionnaire template' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // A question without its kind: told with its line, the text kept.
    await page.getByLabel('Title').fill(title);
    await page.getByLabel('Questions').fill(FIRST.replace('(yes or no, required, weight 2)', '(required, weight 2)'));
    await page.getByRole('button', { name: 'Create the template' }).click();
    await page.getByRole('heading', { name: 'The template was not created' }).waitFor();
    expect(await page.getByRole('link', { name: 'Questions: line 2: say the question\'s kind in its brackets, such as (yes or no, required, weight 2)' }).count()).toBe(1);
    expect(await page.getByLabel('Title').inputValue()).toBe(title);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'assessment-template-refused');

    await page.getByLabel('Questions').fill(FIRST);
    await page.getByRole('button', { name: 'Create the template' }).click();
    await page.getByText('The template was created as version 1.').waitFor();
    await page.getByRole('heading', { name: title }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // The conditional question, added and published as version 2.
    await page.getByRole('link', { name: 'Edit the questions' }).click();
    const questions = page.getByLabel('Questions');
    await questions.fill(`${await questions.inputValue()}\n${CONDITIONAL}`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Publish version 2' }).click();
    await page.getByText('Version 2 was published.').waitFor();
    expect(await page.getByText('Which cloud provider hosts our data?').count()).toBe(1);
    expect(await page.getByText('asked when the answer to 1.1 is "No"').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'assessment-template-published');

    // Sent from the template's page: the template is chosen already.
    await page.getByRole('link', { name: 'Send a questionnaire' }).click();
    await page.getByRole('heading', { name: 'Send a questionnaire' }).waitFor();
    expect(await page.getByLabel('Template').locator('option:checked').textContent()).toBe(title);
    await page.getByLabel('Respondent\'s name').fill('Rita');
    await page.getByLabel('Respondent\'s e-mail address').fill('rita@cloud.example');
    await page.getByLabel('Due on').fill('2099-06-30');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('The questionnaire was sent.').waitFor();
    expect(await page.getByText('Version 2', { exact: true }).count()).toBe(1);
    const link = (await page.locator('.secret').textContent())!.trim();
    expect(await axeViolations(page)).toEqual([]);
    await page.close();

    // The respondent gets version 2 with its condition told beside the question.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const respondent = await context.newPage();
    await respondent.goto(`${base}${new URL(link).pathname}`);
    await respondent.getByRole('heading', { name: title }).waitFor();
    expect(await respondent.getByText('Answer only if your answer to question 1.1 is "No".').count()).toBe(1);
    expect(await axeViolations(respondent)).toEqual([]);
    await context.close();
  }, 400_000);
});
