import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { eq } from 'drizzle-orm';
import { groups, users } from '../../db/schema';
import { createApp } from '../../src/app';
import { createGroup } from '../../src/modules/people/service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, type TestEnv } from '../helpers/app';
import { chromiumAvailable, CHROMIUM, launchChromium } from '../helpers/chromium';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { authorizeAtProvider, startOidcProvider, type TestProvider } from '../helpers/oidc-provider';

/**
 * OpenID Connect sign-in in Chromium against a real provider on loopback: an administrator configures it in
 * Settings › Sign-in, then people sign in through the provider's page and come back signed in. The provider is on
 * `localhost` and the service on `127.0.0.1`, so they are different sites, as in real life: the state cookie must
 * survive the cross-site return (SameSite=Lax on a top-level GET).
 */

if (!chromiumAvailable) console.warn(`e2e/oidc-sign-in: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)`);

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let provider: TestProvider;
let newcomers: string;
const shots = join(tmpdir(), 'grc-e2e-oidc');

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await startTestEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  provider = await startOidcProvider({ redirectUris: [`${base}/sign-in/oidc/callback`], host: 'localhost' });
  const admin = await adminActor(env);
  ({ id: newcomers } = await env.ctx.db.transaction((tx) => createGroup(tx, admin, { name: unique('Newcomers') })));
  browser = await launchChromium();
  mkdirSync(shots, { recursive: true });
}, 60_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
  await provider?.close();
});

async function passwordSignIn(page: Page, email: string, password: string) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in');
}

/** Clicks "Sign in with …" and answers the provider's login page. */
async function ssoSignIn(page: Page, email: string) {
  await page.goto(`${base}/sign-in`);
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await page.waitForURL((url) => url.host.startsWith('localhost'));
  await page.getByLabel('Account e-mail').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.host === new URL(base).host);
}

describe('OpenID Connect sign-in in the browser', () => {
  test.skipIf(!chromiumAvailable)('an administrator configures the provider in Settings › Sign-in', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    try {
      await passwordSignIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.goto(`${base}/settings`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign-in' }).click();
      await page.waitForURL(`${base}/settings/sign-in`);
      expect(await page.locator('#redirect-uri').textContent()).toBe(`${base}/sign-in/oidc/callback`);
      await page.getByLabel('Offer sign-in through the identity provider').check();
      await page.getByLabel('Provider name').fill('Test IdP');
      await page.getByLabel('Issuer').fill(provider.issuer);
      await page.getByLabel('Client ID').fill(provider.clientId);
      await page.getByLabel('Client secret').fill(provider.clientSecret);
      // Off unless the administrator turns it on: the provider's email_verified is what lets an address match an account.
      expect(await page.getByLabel('Also accept addresses the provider does not mark verified').isChecked()).toBe(false);
      await page.getByLabel('Create an account at first sign-in for people without one').check();
      const [group] = await env.ctx.db.select({ name: groups.name }).from(groups).where(eq(groups.id, newcomers));
      await page.getByLabel('Group new people join').selectOption({ label: group.name });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`${base}/settings/sign-in?done=saved`);
      expect(await page.getByRole('status').first().textContent()).toContain('Sign-in settings saved');
      expect(await page.getByLabel('Client secret').inputValue()).toBe('');
      expect(await page.content()).not.toContain(provider.clientSecret);
      await page.screenshot({ path: join(shots, 'settings-sign-in-1366.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 900 });
      await page.screenshot({ path: join(shots, 'settings-sign-in-390.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  test.skipIf(!chromiumAvailable)('a person signs in through the provider and lands where they were going', async () => {
    const person = await makeUser(env, { 'risks:read': 'all' });
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    try {
      await page.goto(`${base}/risks`);
      await page.waitForURL((url) => url.pathname === '/sign-in');
      await page.screenshot({ path: join(shots, 'sign-in-1366.png'), fullPage: true });
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      await page.getByLabel('Account e-mail').fill(person.email.toUpperCase());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${base}/risks`);
      expect(await page.locator('header').textContent()).toContain(person.email);
    } finally {
      await page.close();
    }
  });

  test.skipIf(!chromiumAvailable)('someone without an account is created in the chosen group at first sign-in', async () => {
    const email = `${unique('newcomer')}@test.example`;
    const page = await browser.newPage();
    try {
      await ssoSignIn(page, email);
      expect(new URL(page.url()).pathname).not.toBe('/sign-in');
      const [created] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email));
      expect(created).toBeDefined();
    } finally {
      await page.close();
    }
  });

  test.skipIf(!chromiumAvailable)('a tampered state, or an answer opened in another browser, ends on a clear page, not an error', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const other = await browser.newPage();
    try {
      // This browser starts a sign-in (its request context shares the page's cookies, so it gets the state cookie) ...
      const start = await page.request.get(`${base}/sign-in/oidc`, { maxRedirects: 0 });
      expect(start.status()).toBe(303);
      // ... the provider answers, and the answer's state is changed on the way back.
      const callbackUrl = await authorizeAtProvider(start.headers().location, { email: `${unique('someone')}@test.example` }, `${base}/sign-in/oidc/callback`);
      const tampered = new URL(callbackUrl);
      tampered.searchParams.set('state', 'tampered');
      const answer = await page.goto(tampered.toString());
      expect(answer?.status()).toBe(400);
      await expect(page.getByRole('heading', { name: 'Sign-in failed' }).isVisible()).resolves.toBe(true);
      expect(await page.getByRole('alert').textContent()).toContain('does not belong to the sign-in started in this browser');
      await page.setViewportSize({ width: 390, height: 800 });
      await page.screenshot({ path: join(shots, 'sign-in-failed-390.png'), fullPage: true });
      // The genuine answer opened in a browser that did not start the sign-in (a link sent to someone else).
      const elsewhere = await other.goto(callbackUrl);
      expect(elsewhere?.status()).toBe(400);
      expect(await other.getByRole('alert').textContent()).toContain('does not belong to the sign-in started in this browser');
      await other.getByRole('link', { name: 'Back to sign in' }).click();
      await other.waitForURL(`${base}/sign-in`);
    } finally {
      await context.close();
      await other.close();
    }
  });
});
