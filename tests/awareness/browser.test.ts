import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright';
import { createApp } from '../../src/app';
import { createRecord } from '../../src/platform/records/records';
import { programKind, publishProgram } from '../../src/modules/awareness/service';
import type { ProgramCreate } from '../../src/modules/awareness/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { makeUser, unique, type TestUser } from '../helpers/factories';
import { chromiumAvailable, CHROMIUM, launchChromium, openPage } from '../helpers/chromium';
import { axeViolations } from '../helpers/axe';

if (!chromiumAvailable) console.warn(`awareness/browser: skipped, ${CHROMIUM} is not installed`);

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let person: TestUser;
let manager: TestUser;
let programId: string;
const title = unique('Phishing basics');

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  // The person holds no awareness right: being in the audience is what lets them take the program.
  person = await makeUser(env, {}, unique('robin'));
  manager = await makeUser(env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own' }, unique('morgan'));
  const managerActor = await manager.actor();
  const input: ProgramCreate = {
    title, content: '# Spotting phishing\nCheck the **sender** before you click.', passMark: 100, audienceGroupIds: [person.groupId],
    questions: [
      { text: 'A message asks for your password at a link. What do you do?', kind: 'single', choices: ['Sign in at the link', 'Report it as phishing'], correct: [1] },
      { text: 'Which signs point to phishing?', kind: 'multiple', choices: ['Urgency', 'Your colleague’s usual signature', 'A look-alike sender address'], correct: [0, 2] },
    ],
  };
  programId = await env.ctx.db.transaction(async (tx) => {
    const { id } = await createRecord(tx, programKind, managerActor, input);
    await publishProgram(tx, managerActor, id);
    return id;
  });
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

describe('awareness in a browser', () => {
  test.skipIf(!chromiumAvailable)('a person reads their program, fails the test, retries and passes; the manager sees the completion page', async () => {
    const page = await openPage(browser, base, { email: person.email, password: person.password });
    await page.getByRole('link', { name: 'My training' }).click();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: title }).click();
    await page.getByRole('heading', { name: 'Spotting phishing' }).waitFor();
    expect(await page.getByText('Started').count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);

    // First attempt: the multiple-choice question half answered.
    await page.getByLabel('Report it as phishing').check();
    await page.getByLabel('Urgency').check();
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.getByText('Not passed: 50%, the pass mark is 100%.').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // Second attempt: every right choice.
    await page.getByLabel('Report it as phishing').check();
    await page.getByLabel('Urgency').check();
    await page.getByLabel('A look-alike sender address').check();
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.getByText('Passed with 100%. Well done.').waitFor();
    expect(await page.getByText('You have passed this program.').count()).toBe(1);
    await page.context().close();

    const managerPage = await openPage(browser, base, { email: manager.email, password: manager.password });
    await managerPage.getByRole('link', { name: 'Awareness programs' }).click();
    await managerPage.getByRole('link', { name: title }).click();
    await managerPage.getByRole('link', { name: 'Completion' }).click();
    await managerPage.waitForURL(`${base}/awareness/programs/${programId}/completion`);
    await managerPage.getByText('Completion rate: 100% passed.').waitFor();
    const people = managerPage.getByRole('table', { name: 'Results by person' });
    const row = people.getByRole('row', { name: new RegExp(person.email.split('@')[0]) });
    expect(await row.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['Passed', '100%', '2']));
    const groups = managerPage.getByRole('table', { name: 'Results by audience group' });
    expect(await groups.getByRole('row').count()).toBe(2);
    expect(await axeViolations(managerPage)).toEqual([]);

    // The whole list of results downloads as a CSV.
    const [download] = await Promise.all([
      managerPage.waitForEvent('download'),
      managerPage.getByRole('link', { name: 'Download every result (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^awareness-results-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await Bun.file((await download.path())!).text();
    expect(csv).toContain(`${title},`);
    expect(csv).toContain(',Passed,100,2,');
    await managerPage.context().close();
  }, 120_000);

  test.skipIf(!chromiumAvailable)('a manager writes a program’s test on its screen: a mistake is shown with the text kept, then the test is saved', async () => {
    // The actor is read before the transaction: on PGlite (one connection) a read outside it would wait for it forever.
    const managerActor = await manager.actor();
    const draft = await env.ctx.db.transaction(async (tx) => (await createRecord(tx, programKind, managerActor, { title: unique('Clean desk') })).id);
    const page = await openPage(browser, base, { email: manager.email, password: manager.password });
    await page.goto(`${base}/awareness/programs/${draft}`);
    await page.getByRole('link', { name: 'Write a test' }).click();
    const box = page.getByLabel('Questions');
    await box.fill('Where do papers go at night?\n- ( ) On the desk\n- ( ) In a locked drawer');
    await page.getByRole('button', { name: 'Save the test' }).click();
    await page.getByText('question 1 (line 1) has ( ) choices, so exactly one is marked (x); 0 are').waitFor();
    expect(await box.inputValue()).toBe('Where do papers go at night?\n- ( ) On the desk\n- ( ) In a locked drawer');
    expect(await axeViolations(page)).toEqual([]);
    await box.fill('Where do papers go at night?\n- ( ) On the desk\n- (x) In a locked drawer');
    await page.getByRole('button', { name: 'Save the test' }).click();
    await page.waitForURL(`${base}/awareness/programs/${draft}?done=updated`);
    await page.getByText('1 question, pass mark 80%.').waitFor();
    await page.getByRole('link', { name: 'Edit the test' }).waitFor();
    await page.context().close();
  }, 120_000);
});
