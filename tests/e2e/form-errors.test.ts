import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright';
import { programKind } from '../../src/modules/awareness/service';
import { createRecord } from '../../src/platform/records/records';
import { ErrorSummary, fieldProblems } from '../../views/components/form';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, unique } from '../helpers/factories';

/**
 * The error summary of a refused form is one component (views/components/form.tsx): the notifications rule form, the
 * scheduled-report form and the awareness question editor list their problems with it, each problem linking to a
 * field that is on the page, in Chromium.
 */

const app = useBrowserApp('form-errors');
const root = join(import.meta.dir, '..', '..');

/** Every .ts and .tsx file under a folder. */
const sources = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
});

describe('one error summary component', () => {
  test('no screen writes its own summary markup', () => {
    const own = [...sources(join(root, 'src')), ...sources(join(root, 'views'))]
      .filter((path) => !path.endsWith(join('views', 'components', 'form.tsx')) && readFileSync(path, 'utf8').includes('class="error-summary"'));
    expect(own.map((path) => path.slice(root.length + 1))).toEqual([]);
  });

  test('it lists each problem as a link to its field, escaped, and renders nothing without problems', async () => {
    const html = await ErrorSummary({ problems: fieldProblems({ name: 'is required', to: 'no <b>such</b> address' }) });
    expect(html).toBe('<div class="error-summary" role="alert" aria-labelledby="error-summary-title" id="error-summary"><h2 id="error-summary-title">There is a problem</h2>'
      + '<ul><li><a href="#f-name">is required</a></li><li><a href="#f-to">no &lt;b&gt;such&lt;/b&gt; address</a></li></ul></div>');
    expect(await ErrorSummary({ problems: [] })).toBe('');
  });
});

/** The summary on the page: its heading, its problems, and every link pointing at an element of the page. */
async function summaryOf(page: Page, heading: string): Promise<string[]> {
  const summary = page.locator('.error-summary');
  await summary.getByRole('heading', { name: heading }).waitFor();
  const targets = await summary.locator('a').evaluateAll((links) => links.map((a) => {
    const target = document.getElementById((a.getAttribute('href') ?? '').slice(1));
    return target ? '' : `${a.textContent} → ${a.getAttribute('href')} (missing)`;
  }));
  expect(targets.filter(Boolean)).toEqual([]);
  return summary.locator('li').allInnerTexts();
}

describe.skipIf(!chromiumAvailable)('refused forms in the browser', () => {
  test('the rule form, the scheduled-report form and the question editor show the same summary, linked to their fields', async () => {
    const admin = await adminActor(app.env);
    const { id: programId } = await app.env.ctx.db.transaction((tx) => createRecord(tx, programKind, admin, { title: unique('Phishing basics') }));
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });

    await page.goto(`${app.base}/settings/notifications/rules/new`);
    await page.getByRole('button', { name: 'Save rule' }).click();
    expect((await summaryOf(page, 'There is a problem')).length).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${app.base}/reports/schedules/new`);
    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    expect(await summaryOf(page, 'There is a problem')).toContain(await page.locator('#f-name-error').innerText());
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${app.base}/awareness/programs/${programId}/questions`);
    await page.getByLabel('Questions').fill('Which is right?\n- (x) a\n- (x) b');
    await page.getByRole('button', { name: 'Save the test' }).click();
    expect(await summaryOf(page, 'The test was not saved')).toEqual(['question 1 (line 1) has ( ) choices, so exactly one is marked (x); 2 are']);
    expect(await page.getByLabel('Questions').inputValue()).toBe('Which is right?\n- (x) a\n- (x) b');
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'question-editor-refused');
  }, 300_000);

  test("a register's form (New risk) refused: the summary names and links each field, inside the app, with what was typed kept", async () => {
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${app.base}/risks/new`);
    await page.getByLabel('Description').fill('Kept as typed');
    await page.getByRole('button', { name: 'Create risk' }).click();
    expect(await summaryOf(page, 'There is a problem')).toEqual([
      'Title: is required', 'Classification: is required', 'Inherent likelihood: is required', 'Inherent impact: is required',
    ]);
    await page.locator('.error-summary').getByRole('link', { name: 'Title: is required' }).click();
    expect(await page.evaluate(() => location.hash)).toBe('#f-title');
    expect(await page.getByLabel('Description').inputValue()).toBe('Kept as typed');
    expect(await page.locator('nav.sidenav').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'register-form-refused');
  }, 300_000);
});
