import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { awarenessResults } from '../../db/schema';
import { programKind, publishProgram, submitAttempt } from '../../src/modules/awareness/service';
import { createRecord } from '../../src/platform/records/records';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { makeUser, unique, type TestUser } from '../helpers/factories';

/** "My training" in a real browser: the filter bar, a header sort kept when a filter changes, and an Export of what is shown. */

const app = useBrowserApp('my-training');

async function assign(title: string, to: TestUser): Promise<string> {
  const manager = await makeUser(app.env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own' });
  const actor = await manager.actor();
  const programId = await app.env.ctx.db.transaction(async (tx) => {
    const { id } = await createRecord(tx, programKind, actor, { title, content: 'Read this.', audienceUserIds: [to.id] });
    await publishProgram(tx, actor, id);
    return id as string;
  });
  const [result] = await app.env.ctx.db.select({ id: awarenessResults.id }).from(awarenessResults)
    .where(and(eq(awarenessResults.programId, programId), eq(awarenessResults.personId, to.id)));
  return result.id;
}

describe.skipIf(!chromiumAvailable)('My training in the browser', () => {
  test('a person filters by words, sorts by a header, narrows by status keeping the sort, and exports exactly that; no accessibility violations', async () => {
    const person = await makeUser(app.env, {}, unique('robin'));
    const word = unique('Safety');
    for (const name of ['alpha', 'beta', 'gamma']) await assign(`${word} ${name}`, person);
    const passed = await assign(`${word} delta`, person);
    const actor = await person.actor(); // read before the transaction: PGlite's one connection is the transaction's
    await app.env.ctx.db.transaction(async (tx) => submitAttempt(tx, actor, passed, { answers: [] }));
    await assign(unique('Unrelated course'), person);

    const page = await openPage(app.browser, app.base, { email: person.email, password: person.password });
    await page.getByRole('link', { name: 'My training' }).click();
    await page.locator('#results-awareness-my').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // Words: the results alone are re-read, the address keeps them.
    await page.getByLabel('Search program titles').fill(word);
    await page.waitForURL((url) => url.searchParams.get('q') === word);
    const results = page.locator('#results-awareness-my');
    await results.getByText('4 assigned programs match these filters').waitFor();
    expect(await results.innerText()).not.toContain('Unrelated course');

    // A header sorts, the other way on a second click.
    await results.locator('thead').getByRole('link', { name: /^Program/ }).click();
    await page.waitForURL((url) => url.searchParams.get('sort') === 'program');
    await page.locator('#results-awareness-my thead').getByRole('link', { name: /^Program/ }).click();
    await page.waitForURL((url) => url.searchParams.get('sort') === '-program');
    const rows = page.locator('#results-awareness-my tbody tr');
    await expect(rows.first().innerText()).resolves.toContain(`${word} gamma`);

    // A filter applied after the header keeps its sort.
    await page.getByLabel('Status').selectOption({ label: 'Not started' });
    await page.waitForURL((url) => url.searchParams.get('status') === 'assigned' && url.searchParams.get('sort') === '-program');
    await page.locator('#results-awareness-my').getByText('3 assigned programs match these filters').waitFor();
    expect(await page.locator('#results-awareness-my').innerText()).not.toContain(`${word} delta`);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'my-training-filtered');

    // Export carries the filters, the sort and the browser's zone.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const asked = new URL(download.url());
    expect(asked.pathname).toBe('/awareness/my/export.csv');
    expect(asked.searchParams.get('q')).toBe(word);
    expect(asked.searchParams.get('status')).toBe('assigned');
    expect(asked.searchParams.get('sort')).toBe('-program');
    expect(asked.searchParams.get('tz')).toBeTruthy();
    const lines = readFileSync(await download.path()).toString('utf8').replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toStartWith('Program,Status,Score,Attempts,Due,Assigned (');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([`${word} gamma`, `${word} beta`, `${word} alpha`]);
    expect(lines[1]).toContain(',Not started,');
  }, 120_000);
});
