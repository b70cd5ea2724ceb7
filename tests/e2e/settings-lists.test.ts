import { beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { useBrowserApp } from '../helpers/browser-app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable } from '../helpers/chromium';
import { unique } from '../helpers/factories';
import { addGroupMember, createGroup, createUser, setUserStatus } from '../../src/modules/people/service';
import { systemActor } from '../../src/platform/permissions/permissions';

/**
 * Settings › Users and Settings › Groups in a real browser, in a time zone other than UTC: an administrator filters the
 * users, sorts by a header, pages, and downloads exactly what they filtered, its times in their zone; the groups are
 * searched and sorted the same way; axe finds nothing on the way.
 */

const app = useBrowserApp('settings-lists');
const TAG = unique('Browser listed');
let leaverId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  await app.env.ctx.db.transaction(async (tx) => {
    const { id: groupId } = await createGroup(tx, systemActor(), { name: `${TAG} team`, description: 'People listed in the browser' });
    for (let i = 0; i < 53; i++) {
      const { id } = await createUser(tx, systemActor(), { email: `${TAG.toLowerCase().replaceAll(' ', '-')}-${i}@test.example`, name: `${TAG} ${String(i).padStart(2, '0')}` });
      await addGroupMember(tx, systemActor(), groupId, id);
      if (i === 7) leaverId = id;
    }
    await setUserStatus(tx, systemActor(), leaverId, 'deactivated');
  });
}, 120_000);

async function signIn(page: Page) {
  await page.goto(`${app.base}/sign-in`);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in');
}

const names = (page: Page) => page.locator('#user-table tbody tr td:first-child').allTextContents();

describe.skipIf(!chromiumAvailable)('Settings › Users and Groups in a browser', () => {
  test('filter the users, sort by a header, page, and download the filtered users in the reader\'s zone', async () => {
    const context = await app.browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-US', acceptDownloads: true, viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      await page.getByRole('heading', { name: 'Users' }).waitFor();
      expect(await axeViolations(page), 'Settings › Users').toEqual([]);

      const filters = page.getByRole('search', { name: 'Filter users' });
      // Typing searches as the person types (htmx), the search kept in the address.
      await filters.getByLabel('Search names and emails').fill(TAG);
      await page.waitForURL((url) => url.searchParams.get('q') === TAG);
      await page.locator('#user-results .results-bar', { hasText: '53 users match these filters' }).waitFor();
      expect((await names(page))).toHaveLength(50);
      expect((await names(page))[0]).toBe(`${TAG} 00`);

      // A header sorts on click, the sort in the address: the list is by name, so a click on Name sorts the other way.
      await page.locator('#user-table thead').getByRole('link', { name: /^Name/ }).click();
      await page.waitForURL((url) => url.searchParams.get('sort') === '-name');
      await page.locator('#user-table th[aria-sort="descending"]').waitFor();
      expect((await names(page))[0]).toBe(`${TAG} 52`);
      expect(await page.locator('#user-table th[aria-sort="descending"]').textContent()).toContain('Name');

      // The foot pages with the total, keeping filters and sort.
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Next →' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === '2' && url.searchParams.get('sort') === '-name');
      await page.getByText('51–53 of 53').waitFor();
      expect(await names(page)).toEqual([`${TAG} 02`, `${TAG} 01`, `${TAG} 00`]);
      // Only the results were replaced: one filter bar, one table.
      expect(await page.locator('form.filter-bar').count()).toBe(1);
      expect(await page.locator('#user-results').count()).toBe(1);

      // Status: the one deactivated.
      await filters.getByLabel('Status').selectOption({ label: 'Deactivated' });
      // The sort chosen by the header stays (it is swapped in with the results, as a field of the filter bar's form).
      await page.waitForURL((url) => url.searchParams.get('status') === 'deactivated' && url.searchParams.get('sort') === '-name' && !url.searchParams.has('page'));
      await page.locator('#user-results .results-bar', { hasText: '1 user matches these filters' }).waitFor();
      expect(await names(page)).toEqual([`${TAG} 07`]);
      expect(await page.locator('#user-table tbody tr').first().textContent()).toContain('Deactivated');
      expect(await axeViolations(page), 'Settings › Users, filtered').toEqual([]);
      await screenshots(page, 'settings-users-filtered');

      // Export follows the filters; the browser's zone goes with it.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^users-\d{4}-\d{2}-\d{2}\.csv$/);
      const bytes = readFileSync((await download.path())!);
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const lines = bytes.subarray(3).toString('utf8').split('\r\n').filter(Boolean);
      expect(lines[0]).toBe('Name,Email,Status,Groups,Roles,Break-glass,Created (Asia/Tokyo)');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toStartWith(`${TAG} 07,`);
      expect(lines[1]).toContain(`,Deactivated,${TAG} team,,No,`);
      // The time on screen (rewritten in Tokyo's zone) and in the file are the same minute.
      const shown = (await page.locator('#user-table tbody tr').first().locator('time').textContent())!;
      expect(shown).toBe(`${lines[1].slice(-16)} GMT+9`);
    } finally {
      await context.close();
    }
  }, 120_000);

  test('search the groups, sort by members, export them; axe clean', async () => {
    const context = await app.browser.newContext({ acceptDownloads: true, viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await signIn(page);
      await page.goto(`${app.base}/settings/groups`);
      await page.getByRole('search', { name: 'Filter groups' }).getByLabel('Search names and descriptions').fill('listed in the browser');
      await page.waitForURL((url) => url.searchParams.get('q') === 'listed in the browser');
      await page.locator('#group-results .results-bar', { hasText: '1 group matches these filters' }).waitFor();
      await page.locator('#group-table thead').getByRole('link', { name: /^Members/ }).click();
      await page.waitForURL((url) => url.searchParams.get('sort') === 'members');
      await page.locator('#group-table th[aria-sort="ascending"]', { hasText: 'Members' }).waitFor();
      expect(await axeViolations(page), 'Settings › Groups, searched and sorted').toEqual([]);
      await screenshots(page, 'settings-groups-searched');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      const lines = readFileSync((await download.path())!).subarray(3).toString('utf8').split('\r\n').filter(Boolean);
      expect(lines[0]).toBe('Group,Description,Members,Member count,Roles');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toStartWith(`${TAG} team,People listed in the browser,"${TAG} 00 <`);
      expect(lines[1]).toEndWith(',53,');
    } finally {
      await context.close();
    }
  }, 120_000);
});
