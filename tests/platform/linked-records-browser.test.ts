import { describe, expect, test } from 'bun:test';
import { assetKind } from '../../src/modules/assets/service';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, makeRisk, unique } from '../helpers/factories';

/** A what-links-here section in a real browser: its header sorts it in place, its pages keep that sort, the record page keeps its address. */

const app = useBrowserApp('linked-records-sort');

describe.skipIf(!chromiumAvailable)('a record page section in the browser', () => {
  test("an asset's risks sort by a header click and page in that order, in place; no accessibility violations", async () => {
    const admin = await adminActor(app.env);
    const asset = (await app.env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name: unique('Plant network') }))).id as string;
    const prefix = unique('Plant risk');
    for (let i = 1; i <= 27; i++) await makeRisk(app.env, admin, { title: `${prefix} ${String(i).padStart(2, '0')}`, assetId: asset });
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${app.base}/assets/${asset}`);
    const section = () => page.locator('#linked-risks');
    expect(await section().innerText()).toContain('27 risks');
    await expect(section().locator('tbody tr').first().innerText()).resolves.toContain(`${prefix} 01`);

    await section().locator('thead').getByRole('link', { name: /^Risk/ }).click();
    await page.locator('#linked-risks th[aria-sort="descending"]').waitFor({ timeout: 15_000 });
    await expect(section().locator('tbody tr').first().innerText()).resolves.toContain(`${prefix} 27`);
    expect(new URL(page.url()).pathname).toBe(`/assets/${asset}`);
    expect(await page.locator('#linked-risks').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    await section().getByRole('link', { name: 'Next →' }).click();
    await page.locator('#linked-risks', { hasText: '26–27 of 27' }).waitFor({ timeout: 15_000 });
    const second = await section().innerText();
    expect(second).toContain(`${prefix} 01`);
    expect(second).not.toContain(`${prefix} 27`);
    expect(new URL(page.url()).pathname).toBe(`/assets/${asset}`);
    // The back link of the section's own page is not pulled into the record page.
    expect(await page.getByRole('link', { name: `← ${await page.locator('h1').innerText()}` }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'asset-linked-risks-sorted');
  }, 120_000);
});
