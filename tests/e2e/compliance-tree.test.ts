import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { createApp } from '../../src/app';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, unique } from '../helpers/factories';

/**
 * The compliance package tree in a real browser: sections open and close (remembered for the person across a reload),
 * a status changed in place updates the score and the heading's progress without reloading the page, and axe finds
 * nothing critical, serious or moderate.
 */

if (!chromiumAvailable) console.warn('e2e/compliance-tree: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let page: Page;
let packageId: string;
const items: Record<string, string> = {};

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  const admin = await adminActor(env);
  ({ id: packageId } = await env.ctx.db.transaction((tx) => importPackage(tx, admin, {
    name: unique('Browser tree'),
    items: [
      { code: 'GOV', name: 'Governance', kind: 'heading' },
      { code: 'GOV-1', name: 'Board approves the policy', parentCode: 'GOV', description: 'The board shall:\na. approve the policy;\nb. review it yearly.' },
      { code: 'GOV-2', name: 'Roles assigned', parentCode: 'GOV' },
      { code: 'OPS', name: 'Operations', kind: 'heading' },
      { code: 'OPS-1', name: 'Backups taken', parentCode: 'OPS' },
    ],
  })));
  const rows = await env.ctx.db.select({ code: complianceItems.code, id: complianceItems.id }).from(complianceItems).where(eq(complianceItems.packageId, packageId));
  for (const row of rows) items[row.code] = row.id;
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
  page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
}, 120_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

const section = (code: string) => page.locator(`#section-${items[code]}`);
const isOpen = (code: string) => section(code).evaluate((el) => (el as HTMLDetailsElement).open);
/** Waits for the request that remembers a heading's state, started by `act`. */
const remembered = async (code: string, act: () => Promise<void>) => {
  const answer = page.waitForResponse((res) => res.url().endsWith(`/headings/${items[code]}`) && res.request().method() === 'POST');
  await act();
  expect((await answer).status()).toBe(204);
};

describe.skipIf(!chromiumAvailable)('compliance tree in a browser', () => {
  test('open and collapse headings, change a status in place: the score and the progress follow without a reload', async () => {
    await page.goto(`${base}/compliance/packages/${packageId}`);
    // Collapsed until opened.
    expect(await isOpen('GOV')).toBe(false);
    expect(await page.getByLabel('Status of GOV-1').isVisible()).toBe(false);
    await remembered('GOV', () => section('GOV').locator('summary').click());
    await remembered('OPS', () => section('OPS').locator('summary').click());
    expect(await isOpen('OPS')).toBe(true);
    // Collapse a heading again.
    await remembered('OPS', () => section('OPS').locator('summary').click());
    expect(await isOpen('OPS')).toBe(false);
    expect(await page.getByLabel('Status of OPS-1').isVisible()).toBe(false);

    // A marker on the window survives only if the page is not reloaded.
    await page.evaluate(() => { (window as unknown as { stayed: boolean }).stayed = true; });
    expect(await page.locator('#score').textContent()).toContain('0%');
    await page.getByLabel('Status of GOV-1').selectOption({ label: 'Compliant' });
    // 3 requirements, 1 compliant: 33.3 %; the heading: 1 of 2 assessed, 50 % compliant.
    await page.locator('#score', { hasText: '33.3%' }).waitFor();
    await page.locator(`#progress-${items.GOV}`, { hasText: '1 of 2 items assessed, 50% compliant' }).waitFor();
    expect(await page.locator(`#progress-${items.OPS}`).textContent()).toContain('0 of 1 item assessed');
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await page.getByLabel('Status of GOV-1').inputValue()).toBe('Compliant');
    const [stored] = await env.ctx.db.select({ status: complianceAnalyses.status }).from(complianceAnalyses)
      .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceItems.id, items['GOV-1']));
    expect(stored.status).toBe('compliant');
    // The swapped row still changes in place.
    await page.getByLabel('Status of GOV-1').selectOption({ label: 'Not applicable' });
    await page.locator(`#progress-${items.GOV}`, { hasText: '0 of 1 item assessed, 0% compliant, 1 not applicable' }).waitFor();

    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'compliance-tree');

    // Remembered for this person: after a reload GOV is open and OPS collapsed.
    await page.reload();
    expect(await isOpen('GOV')).toBe(true);
    expect(await isOpen('OPS')).toBe(false);
  }, 120_000);

  test('searching shows the matching requirement with its text as a list, and axe finds nothing', async () => {
    await page.goto(`${base}/compliance/packages/${packageId}`);
    await page.getByLabel('Search code, name and text').fill('yearly');
    await page.waitForURL((url) => url.searchParams.get('q') === 'yearly');
    await page.locator('#tree', { hasText: '1 of 3 items match' }).waitFor();
    expect(await isOpen('GOV')).toBe(true);
    expect(await page.locator('#tree .req-list li').allTextContents()).toEqual(['a. approve the policy;', 'b. review it yearly.']);
    expect(await page.locator(`#section-${items.OPS}`).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  }, 120_000);
});
