import { describe, expect, test } from 'bun:test';
import { assetKind } from '../../src/modules/assets/service';
import { controlKind, recordControlTest } from '../../src/modules/controls/service';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations } from '../helpers/axe';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, makeRisk, unique } from '../helpers/factories';

/** What links here in a real browser: an asset's risks, paged in place by htmx, the page staying where it is. */

const app = useBrowserApp('linked-records');

describe.skipIf(!chromiumAvailable)('what links here in the browser', () => {
  test("an asset's risks page in place with Next and Previous, and the page has no accessibility violations", async () => {
    const admin = await adminActor(app.env);
    const asset = (await app.env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name: unique('Core switch') }))).id as string;
    for (let i = 1; i <= 27; i++) await makeRisk(app.env, admin, { title: `Switch risk ${String(i).padStart(2, '0')}`, assetId: asset });
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${app.base}/assets/${asset}`);
    const section = page.locator('#linked-risks');
    await expect(section.getByRole('link', { name: 'Switch risk 01' }).count()).resolves.toBe(1);
    expect(await section.innerText()).toContain('1–25 of 27');
    expect(await axeViolations(page)).toEqual([]);

    await section.getByRole('link', { name: 'Next →' }).click();
    await page.locator('#linked-risks', { hasText: 'Switch risk 27' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#linked-risks').innerText()).not.toContain('Switch risk 01');
    expect(new URL(page.url()).pathname).toBe(`/assets/${asset}`);
    await page.locator('#linked-risks').getByRole('link', { name: '← Previous' }).click();
    await page.locator('#linked-risks', { hasText: 'Switch risk 01' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#linked-risks').innerText()).not.toContain('Switch risk 27');
    await page.locator('#linked-risks').getByRole('link', { name: 'Next →' }).click();
    await page.locator('#linked-risks', { hasText: 'Switch risk 26' }).waitFor({ timeout: 15_000 });

    await page.locator('#linked-risks').getByRole('link', { name: 'Switch risk 26' }).click();
    await page.waitForURL(/\/risks\/[0-9a-f-]{36}$/);
    expect(await page.locator('h1').innerText()).toBe('Switch risk 26');
  }, 90_000);

  test("a control's test results sort by a header click in place, newest first to oldest first; no accessibility violations", async () => {
    const admin = await adminActor(app.env);
    const control = (await app.env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: unique('Failover drill') }))).id as string;
    for (const [testedOn, result] of [['2026-01-05', 'fail'], ['2026-02-05', 'partial'], ['2026-03-05', 'pass']] as const) {
      await app.env.ctx.db.transaction((tx) => recordControlTest(tx, admin, control, { testedOn, result, notes: `drill of ${testedOn}` }));
    }
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${app.base}/controls/${control}`);
    const section = page.locator('#linked-tests');
    const firstCell = () => page.locator('#linked-tests tbody tr').first().locator('td').first().innerText();
    expect(await firstCell()).toBe('2026-03-05');
    expect(await section.innerText()).toContain('3 control tests');
    expect(await axeViolations(page)).toEqual([]);

    await section.getByRole('link', { name: /^Date/ }).click();
    await page.locator('#linked-tests th[aria-sort="ascending"]').waitFor({ timeout: 15_000 });
    expect(await firstCell()).toBe('2026-01-05');
    expect(await page.locator('#linked-tests tbody tr').first().innerText()).toContain('Failed');
    expect(new URL(page.url()).pathname).toBe(`/controls/${control}`);
    expect(await axeViolations(page)).toEqual([]);
  }, 90_000);

  test('a treatment is given a control found by the search above its form; the page has no accessibility violations', async () => {
    const admin = await adminActor(app.env);
    const risk = await makeRisk(app.env, admin, { title: unique('Lost laptop') });
    const controlName = unique('Disk encryption');
    const control = (await app.env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: controlName }))).id as string;
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${app.base}/risks/${risk}/treatments?controls=${encodeURIComponent('Disk encryption')}`);
    await page.getByLabel('Find controls', { exact: true }).fill(controlName);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL((url) => url.searchParams.get('controls') === controlName);
    expect(await axeViolations(page)).toEqual([]);
    const form = page.locator('#add-treatment');
    await form.getByLabel('Title').fill('Encrypt every laptop');
    await form.getByLabel('Controls (mitigate)').selectOption(control);
    await form.getByRole('button', { name: 'Add treatment' }).click();
    await page.waitForURL((url) => url.searchParams.get('done') !== null);
    await expect(page.getByRole('link', { name: controlName }).count()).resolves.toBeGreaterThan(0);
  }, 90_000);
});
