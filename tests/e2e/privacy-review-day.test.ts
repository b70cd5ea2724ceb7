import { describe, expect, test } from 'bun:test';
import type { Page } from 'playwright';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { axeViolations } from '../helpers/axe';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable } from '../helpers/chromium';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/**
 * Data privacy's days in the reader's own time zone, in a real browser whose zone is set (the clock is not faked): the
 * review form of a processing activity opens on today where the person is, a review recorded on that day is accepted,
 * and the printed Article 30 register is drawn up on that day.
 *
 * The zone is one where today is another day than in UTC right now: Kiritimati (UTC+14, ahead of UTC) from 10:00 UTC
 * on, Pago Pago (UTC-11) before 11:00 UTC.
 */

const app = useBrowserApp('privacy-review-day');

const dayIn = (timeZone: string, at: Date) => {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
};

async function expectAccessible(page: Page, what: string) {
  expect(await axeViolations(page), what).toEqual([]);
}

describe.skipIf(!chromiumAvailable)('a privacy officer east or west of UTC', () => {
  test('the review form opens on their own today, which is accepted; the printed register is drawn up on it', async () => {
    const started = new Date();
    const zone = started.getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
    const theirDay = dayIn(zone, started);
    const utcDay = started.toISOString().slice(0, 10);
    expect(theirDay).not.toBe(utcDay);

    const token = await makeToken(app.env, await adminActor(app.env), ['dataPrivacy:read', 'dataPrivacy:create']);
    const name = unique('Staff wellbeing survey');
    const res = await app.env.request('/api/v1/data-privacy/processing-activities',
      bearer(token, { method: 'POST', body: JSON.stringify({ name, legalBasis: 'consent' }) }));
    expect(res.status, await res.clone().text()).toBe(201);
    const id = ((await res.json()) as { data: { id: string } }).data.id;

    const context = await app.browser.newContext({ timezoneId: zone, locale: 'en-GB', viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${app.base}/sign-in`);
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname !== '/sign-in');

      await page.goto(`${app.base}/data-privacy/processing-activities/${id}`);
      const reviewedOn = page.getByLabel('Reviewed on');
      // Rendered as UTC's day by the server, the page's script makes it the person's own.
      expect(await reviewedOn.inputValue()).toBe(dayIn(zone, new Date()));
      await expectAccessible(page, 'the processing activity with its review form');

      await page.getByLabel('Outcome').selectOption({ label: 'No change' });
      await page.getByRole('button', { name: 'Record review' }).click();
      await page.waitForURL((url) => url.pathname === `/data-privacy/processing-activities/${id}`);
      const reviews = await (await app.env.request(`/api/v1/data-privacy/processing-activities/${id}/reviews`, bearer(token))).json() as {
        data: { reviews: { reviewedOn: string }[] };
      };
      expect(reviews.data.reviews.map((r) => r.reviewedOn)).toEqual([dayIn(zone, new Date())]);

      await page.goto(`${app.base}/data-privacy/register/print`);
      expect(await page.locator('time[data-local-day]').textContent()).toStartWith(`${dayIn(zone, new Date())} (GMT`);
    } finally {
      await context.close();
    }
  }, 90_000);
});
