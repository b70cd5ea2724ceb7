import { describe, expect, test } from 'bun:test';
import type { Page } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { axeViolations } from '../helpers/axe';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/**
 * Settings › Labels in a real browser: deleting a label that records carry asks first and warns which records carry it
 * (linked to them); deleting anyway is refused inside the app, saying why, and the label stays. axe finds nothing.
 */

const app = useBrowserApp('labels-in-use');

async function expectAccessible(page: Page, what: string) {
  expect(await axeViolations(page), what).toEqual([]);
}

describe.skipIf(!chromiumAvailable)('deleting a label in use, in a browser', () => {
  test('the confirmation warns and links the records carrying it; deleting anyway is refused in the app and the label stays', async () => {
    const token = await makeToken(app.env, await adminActor(app.env), ['settings:create', 'dataPrivacy:read', 'dataPrivacy:create']);
    const send = async (path: string, body: unknown) => {
      const res = await app.env.request(path, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    const labelName = unique('Special data');
    const labelId = await send('/api/v1/labels', { name: labelName });
    const activityName = unique('Occupational health');
    const activityId = await send('/api/v1/data-privacy/processing-activities', { name: activityName, legalBasis: 'legal_obligation', labelIds: [labelId] });

    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    try {
      await page.goto(`${app.base}/settings/labels`);
      await page.getByRole('link', { name: `Delete ${labelName}` }).click();
      await page.getByRole('heading', { name: 'Delete label' }).waitFor();
      const warning = page.locator('.flash-error');
      expect(await warning.textContent()).toContain(`This cannot be deleted yet: records still carry the label "${labelName}":`);
      expect(await warning.textContent()).toContain('1 processing activity:');
      expect(await warning.getByRole('link', { name: activityName }).getAttribute('href')).toBe(`/data-privacy/processing-activities/${activityId}`);
      await expectAccessible(page, 'the confirmation with its warning');

      await page.getByRole('button', { name: 'Delete' }).click();
      await page.waitForLoadState();
      const refused = page.getByRole('alert');
      expect(await refused.textContent()).toContain(`Not deleted: records still carry the label "${labelName}":`);
      expect(await page.getByRole('navigation').first().isVisible()).toBe(true);
      await expectAccessible(page, 'the refused deletion');

      await page.getByRole('link', { name: 'Cancel' }).click();
      await page.waitForURL((url) => url.pathname === '/settings/labels');
      expect(await page.getByRole('link', { name: `Delete ${labelName}` }).count()).toBe(1);
    } finally {
      await page.context().close();
    }
  }, 90_000);
});
