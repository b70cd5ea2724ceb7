import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { eq } from 'drizzle-orm';
import { groupMembers, users } from '../../db/schema';
import { createApp } from '../../src/app';
import { createGroup } from '../../src/modules/people/service';
import { DIRECTORY_SIGN_IN_REFUSED } from '../../src/modules/people/sign-in/ldap';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, type TestEnv } from '../helpers/app';
import { chromiumAvailable, CHROMIUM, launchChromium } from '../helpers/chromium';
import { adminActor, unique } from '../helpers/factories';
import { BASE_DN, groupDn, SERVICE_DN, SERVICE_PASSWORD, slapdMissing, startSlapd, type Slapd } from '../helpers/slapd';

/**
 * Directory (LDAP) sign-in in Chromium against a real slapd: an administrator fills in Settings › Directory (LDAP),
 * tests the connection and saves; then a person of the directory signs in on the usual form.
 */

const missing = !chromiumAvailable ? `${CHROMIUM} is not installed (apt-get install -y chromium)` : slapdMissing();
if (missing) console.warn(`e2e/ldap-sign-in: skipped, ${missing}`);

const ANN = { uid: 'ann', cn: 'Ann Directory', mail: 'ann@dir.example', password: 'ann directory password' };

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let slapd: Slapd;
let auditorsName: string;
let auditors: string;
const shots = join(tmpdir(), 'grc-e2e-ldap');

beforeAll(async () => {
  if (missing) return;
  slapd = await startSlapd([ANN], [{ cn: 'auditors', members: ['ann'] }]);
  env = await startTestEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  auditorsName = unique('Auditors');
  const admin = await adminActor(env);
  ({ id: auditors } = await env.ctx.db.transaction((tx) => createGroup(tx, admin, { name: auditorsName })));
  browser = await launchChromium();
  mkdirSync(shots, { recursive: true });
}, 60_000);

afterAll(async () => {
  if (missing) return;
  await browser?.close();
  await server?.stop();
  await slapd?.stop();
});

async function formSignIn(page: Page, email: string, password: string) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('directory (LDAP) sign-in in the browser', () => {
  test.skipIf(missing !== null)('an administrator configures the directory, tests the connection and saves', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    try {
      await formSignIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.waitForURL((url) => url.pathname !== '/sign-in');
      await page.goto(`${base}/settings`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Directory (LDAP)' }).click();
      await page.waitForURL(`${base}/settings/sign-in/ldap`);
      await page.getByLabel('Sign in through the directory').check();
      await page.getByLabel('Directory address').fill(slapd.url);
      await page.getByLabel('Bind DN').fill(SERVICE_DN);
      await page.getByLabel('Password', { exact: true }).fill(SERVICE_PASSWORD);
      await page.getByLabel('Base DN').fill(BASE_DN);
      await page.getByLabel("Create an account here on a person's first sign-in (just-in-time)").check();
      await page.getByLabel('Directory group DN, row 1').fill(groupDn('auditors'));
      await page.getByLabel('Group here, row 1').selectOption({ label: auditorsName });

      await page.getByRole('button', { name: 'Test connection' }).click();
      await page.waitForURL(`${base}/settings/sign-in/ldap/test`);
      expect(await page.getByRole('status').first().textContent()).toContain('The user filter finds 1 entry under the base DN.');
      // The password is never sent back to the page; it is typed again to save.
      expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
      expect(await page.getByLabel('Directory group DN, row 1').inputValue()).toBe(groupDn('auditors'));
      await page.getByLabel('Password', { exact: true }).fill(SERVICE_PASSWORD);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`${base}/settings/sign-in/ldap?done=saved`);
      expect(await page.getByRole('status').first().textContent()).toContain('Directory sign-in settings saved');
      expect(await page.getByText('A password is stored. Leave blank to keep it while the address, TLS settings and bind DN stay the same', { exact: false }).isVisible()).toBe(true);
      expect(await page.content()).not.toContain(SERVICE_PASSWORD);
      await page.screenshot({ path: join(shots, 'settings-ldap-1366.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 900 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(shots, 'settings-ldap-390.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  test.skipIf(missing !== null)('a person of the directory signs in on the usual form and lands in the mapped group', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    try {
      await formSignIn(page, ANN.mail, 'not the password');
      expect(await page.getByRole('alert').textContent()).toContain('The email or password is not correct.');
      await formSignIn(page, ANN.mail, ANN.password);
      await page.waitForURL((url) => url.pathname !== '/sign-in');
      expect(await page.locator('header').textContent()).toContain(ANN.mail);
      const [created] = await env.ctx.db.select({ id: users.id, name: users.name }).from(users).where(eq(users.email, ANN.mail));
      expect(created.name).toBe(ANN.cn);
      const memberships = await env.ctx.db.select({ groupId: groupMembers.groupId }).from(groupMembers).where(eq(groupMembers.userId, created.id));
      expect(memberships.map((m) => m.groupId)).toEqual([auditors]);
    } finally {
      await page.close();
    }
  });

  test.skipIf(missing !== null)('with the directory stopped, the sign-in form says the directory may not be answering (the same words as a wrong password)', async () => {
    await slapd.stop();
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    try {
      await formSignIn(page, ANN.mail, ANN.password);
      expect(await page.getByRole('alert').textContent()).toContain(DIRECTORY_SIGN_IN_REFUSED);
      await page.screenshot({ path: join(shots, 'sign-in-directory-down-1366.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});
