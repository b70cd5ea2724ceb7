import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright';
import { createApp } from '../../src/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { chromiumAvailable, CHROMIUM, launchChromium } from '../helpers/chromium';
import { adminActor, makeRisk, unique } from '../helpers/factories';

if (!chromiumAvailable) console.warn(`e2e/security-headers: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)`);

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

interface Watched {
  page: Page;
  /** Content-Security-Policy violations the page reported, and console errors mentioning the policy. */
  violations: string[];
  /** Requests for anything not on this origin (all refused: the machine is offline as far as the page knows). */
  elsewhere: string[];
}

/** A page that may reach only this service, recording every CSP violation and every attempt to reach another host. */
async function watchedPage(): Promise<Watched> {
  const page = await browser.newPage();
  const watched: Watched = { page, violations: [], elsewhere: [] };
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
    watched.elsewhere.push(url);
    return route.abort('internetdisconnected');
  });
  await page.exposeFunction('reportViolation', (text: string) => watched.violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { reportViolation(text: string): void }).reportViolation(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) watched.violations.push(message.text());
  });
  return watched;
}

async function signIn(page: Page) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in');
}

describe('pages under the Content-Security-Policy', () => {
  test.skipIf(!chromiumAvailable)('the API reference renders from this origin alone, offline, with no policy violation', async () => {
    const { page, violations, elsewhere } = await watchedPage();
    try {
      await page.goto(`${base}/api/v1/docs`);
      // Chromium starts, then Swagger UI loads and renders the whole document (190 operations): with a second test run
      // on the machine this took about 20 s, so the waits allow more than Playwright's default 30 s.
      await page.locator('.swagger-ui .info .title').waitFor({ timeout: 75_000 });
      expect(await page.locator('.swagger-ui .info .title').textContent()).toContain('GRC Service REST API');
      // The operations are listed (rendered from /api/v1/openapi), and one opens.
      const create = page.locator('.opblock-post', { hasText: '/api/v1/risks' }).first();
      await create.waitFor({ timeout: 30_000 });
      await create.locator('.opblock-summary').click();
      await page.locator('.opblock-post.is-open').first().waitFor({ timeout: 30_000 });
      expect(elsewhere).toEqual([]);
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  }, 150_000);

  test.skipIf(!chromiumAvailable)('screens work with no inline script or style: sign-in, htmx filtering, record pages, settings, imports', async () => {
    const title = unique('CSP risk');
    await makeRisk(env, await adminActor(env), { title, inherentLikelihood: 5, inherentImpact: 5 });
    const { page, violations, elsewhere } = await watchedPage();
    try {
      await signIn(page);
      // htmx runs (its search swaps the results in place) under script-src 'self' with no eval.
      await page.goto(`${base}/risks`);
      await page.getByLabel('Search titles').fill(title);
      await page.waitForFunction((wanted) => {
        const rows = document.querySelectorAll('#results-risks tbody tr');
        return rows.length === 1 && (rows[0].textContent ?? '').includes(wanted);
      }, title);
      await page.locator('#results-risks tbody tr a', { hasText: title }).click();
      await page.waitForURL(/\/risks\/[0-9a-f-]{36}$/);
      // The band's colour is drawn without an inline style.
      expect(await page.locator('.tag .swatch').count()).toBeGreaterThan(0);
      for (const path of ['/risks/import', '/settings/risks', '/settings/labels', '/compliance/poam', '/settings/users', '/settings/audit']) {
        const res = await page.goto(`${base}${path}`);
        expect(res?.status(), path).toBeLessThan(400);
      }
      expect(elsewhere).toEqual([]);
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  test.skipIf(!chromiumAvailable)('no other site can frame a screen', async () => {
    const { page } = await watchedPage();
    try {
      // A page of another origin (here: about:blank's opaque one) framing the users screen; setContent waits for the
      // page's load event, which waits for the frame.
      await page.setContent(`<iframe id="f" src="${base}/settings/users"></iframe>`);
      const framed = page.frames().find((frame) => frame !== page.mainFrame());
      const loaded = await framed?.evaluate(() => document.location.href).catch(() => null);
      expect(loaded === null || !String(loaded).startsWith(base)).toBe(true);
    } finally {
      await page.close();
    }
  }, 60_000);
});
