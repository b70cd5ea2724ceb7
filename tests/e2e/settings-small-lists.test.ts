import { beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { useBrowserApp } from '../helpers/browser-app';
import { auditPages, axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, makeToken, unique } from '../helpers/factories';
import { createRole } from '../../src/modules/people/service';
import { createLabel } from '../../src/modules/labels/service';
import { queueMail } from '../../src/platform/mail/mail';

/**
 * The small Settings lists in a real browser: Roles filtered by a select and sorted by a header, the Export link
 * carrying both and downloading exactly those roles; API tokens searched and filtered by status; the Outbox filtered by
 * kind; every list (filters set) clean under axe.
 */

const app = useBrowserApp('settings-small-lists');
const TAG = unique('Small listed');
const q = encodeURIComponent(TAG);

beforeAll(async () => {
  if (!chromiumAvailable) return;
  const actor = await adminActor(app.env);
  await app.env.ctx.db.transaction(async (tx) => {
    await createRole(tx, actor, { name: `${TAG} auditor`, description: 'Reads controls', permissions: [{ permission: 'controls:read', level: 'all' }] });
    await createRole(tx, actor, { name: `${TAG} owner`, description: 'Runs own controls', permissions: [{ permission: 'controls:update', level: 'own' }] });
    await createRole(tx, actor, { name: `${TAG} risk reader`, description: 'Reads risks', permissions: [{ permission: 'risks:read', level: 'all' }] });
    await createLabel(tx, actor, { name: `${TAG} label`, color: '#336699', description: 'Shown in the browser' });
    await queueMail(tx, { kind: 'security-alert', recipients: ['ops@test.example'], subject: `${TAG} alert`, body: 'A token was created.' });
  });
  await makeToken(app.env, actor, ['risks:read'], `${TAG} token`);
}, 120_000);


const admin = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD };
const firstCells = (page: Page, table: string) => page.locator(`#${table} tbody tr td:first-child`).allTextContents();

describe.skipIf(!chromiumAvailable)('the small Settings lists in a browser', () => {
  test('Roles: search, a select, a header sort, and the Export of exactly those roles', async () => {
    const page = await openPage(app.browser, app.base, admin);
    try {
      await page.getByRole('link', { name: 'Roles', exact: true }).click();
      await page.getByRole('heading', { name: 'Roles' }).waitFor();
      const filters = page.getByRole('search', { name: 'Filter roles' });
      await filters.getByLabel('Search names, descriptions and rights').fill(TAG);
      await page.waitForURL((url) => url.searchParams.get('q') === TAG);
      await page.locator('#role-results .results-bar', { hasText: '3 roles match these filters' }).waitFor();

      await filters.getByLabel('Has rights on').selectOption({ label: 'Controls' });
      await page.waitForURL((url) => url.searchParams.get('module') === 'controls');
      await page.locator('#role-results .results-bar', { hasText: '2 roles match these filters' }).waitFor();
      expect((await firstCells(page, 'role-table')).map((c) => c.slice(0, c.indexOf('built-in') < 0 ? undefined : c.indexOf('built-in')))).toEqual([
        `${TAG} auditorReads controls`, `${TAG} ownerRuns own controls`,
      ]);

      // The Role header sorts the other way on click; the filters stay.
      await page.locator('#role-table thead').getByRole('link', { name: /^Role/ }).click();
      await page.waitForURL((url) => url.searchParams.get('sort') === '-name' && url.searchParams.get('module') === 'controls');
      await page.locator('#role-table th[aria-sort="descending"]').waitFor();
      expect((await firstCells(page, 'role-table'))[0]).toStartWith(`${TAG} owner`);
      expect(await page.locator('form.filter-bar').count()).toBe(1);
      expect(await axeViolations(page), 'Settings › Roles, filtered and sorted').toEqual([]);
      await screenshots(page, 'settings-roles-filtered');

      const exportLink = page.getByRole('link', { name: 'Export CSV' });
      expect(await exportLink.getAttribute('href')).toBe(`/settings/roles/export.csv?q=${q.replace(/%20/g, '+')}&module=controls&sort=-name`);
      const [download] = await Promise.all([page.waitForEvent('download'), exportLink.click()]);
      expect(download.suggestedFilename()).toMatch(/^roles-\d{4}-\d{2}-\d{2}\.csv$/);
      const bytes = readFileSync((await download.path())!);
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(bytes.subarray(3).toString('utf8').split('\r\n').filter(Boolean)).toEqual([
        'Role,Description,Kind,Rights', `${TAG} owner,Runs own controls,Custom,Controls: update (own)`, `${TAG} auditor,Reads controls,Custom,Controls: read (all)`,
      ]);
    } finally {
      await page.context().close();
    }
  }, 120_000);

  test('API tokens and the Outbox: a select and a header sort, the Export link following them', async () => {
    const page = await openPage(app.browser, app.base, admin);
    try {
      await page.goto(`${app.base}/settings/api-tokens`);
      const tokens = page.getByRole('search', { name: 'Filter tokens' });
      await tokens.getByLabel('Search names, creators and scopes').fill(TAG);
      await page.waitForURL((url) => url.searchParams.get('q') === TAG);
      await tokens.getByLabel('Status').selectOption({ label: 'Revoked' });
      await page.waitForURL((url) => url.searchParams.get('status') === 'revoked');
      await page.locator('#token-results').getByText('No tokens match these filters.').waitFor();
      await tokens.getByLabel('Status').selectOption({ label: 'Active' });
      await page.locator('#token-results .results-bar', { hasText: '1 token matches these filters' }).waitFor();
      await page.locator('#token-table thead').getByRole('link', { name: /^Name/ }).click();
      await page.waitForURL((url) => url.searchParams.get('sort') === 'name' && url.searchParams.get('status') === 'active');
      expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(`/settings/api-tokens/export.csv?q=${q.replace(/%20/g, '+')}&status=active&sort=name`);
      expect(await axeViolations(page), 'Settings › API tokens, filtered').toEqual([]);
      await screenshots(page, 'settings-api-tokens-filtered');

      await page.goto(`${app.base}/settings/outbox`);
      const mails = page.getByRole('search', { name: 'Filter mails' });
      await mails.getByLabel('Kind').selectOption({ label: 'Security alert' });
      await page.waitForURL((url) => url.searchParams.get('kind') === 'security-alert');
      await mails.getByLabel('Search subjects and recipients').fill(`${TAG} alert`);
      await page.locator('#mail-results .results-bar', { hasText: '1 mail matches these filters' }).waitFor();
      expect((await firstCells(page, 'mail-table')).length).toBe(1);
      expect(await page.locator('#mail-table tbody tr').first().textContent()).toContain('Security alert');
      await page.locator('#mail-table thead').getByRole('link', { name: /^Subject/ }).click();
      await page.waitForURL((url) => url.searchParams.get('sort') === 'subject' && url.searchParams.get('q') === `${TAG} alert`);
      expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(`/settings/outbox/export.csv?q=${encodeURIComponent(`${TAG} alert`).replace(/%20/g, '+')}&kind=security-alert&sort=subject`);
      expect(await axeViolations(page), 'Settings › Outbox, filtered').toEqual([]);
      await screenshots(page, 'settings-outbox-filtered');
    } finally {
      await page.context().close();
    }
  }, 120_000);

  test('every small list, with filters set, is clean under axe', async () => {
    const page = await openPage(app.browser, app.base, admin);
    const context = page.context();
    try {
      await page.close();
      expect(await auditPages(context, app.base, [
        `/settings/roles?q=${q}&kind=custom&sort=-rights`,
        `/settings/api-tokens?q=${q}&status=active&sort=-createdAt`,
        '/settings/sessions?signedInWith=password&sort=name',
        `/settings/labels?q=${q}&sort=-color`,
        '/settings/custom-fields?module=risks&type=text&sort=label',
        `/settings/outbox?q=${q}&state=queued&sort=kind`,
        '/settings/notifications?event=created&state=on&sort=-name',
        '/reports/schedules?frequency=weekly&state=active&sort=report',
      ])).toEqual({});
    } finally {
      await context.close();
    }
  }, 180_000);
});
