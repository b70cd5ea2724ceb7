import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright';
import { createApp } from '../../src/app';
import { ALL_PERMISSIONS } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, bearer, classificationId, makeToken, unique } from '../helpers/factories';

/**
 * axe-core (WCAG 2.1 A/AA and best practices, landmarks included) over the list, form and record page of every
 * register and every Settings page, signed in as an administrator: no critical, serious or moderate violation.
 */

if (!chromiumAvailable) console.warn('e2e/accessibility: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let page: Page;
let context: BrowserContext;
const ids: Record<string, string> = {};

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  const token = await makeToken(env, await adminActor(env), [...ALL_PERMISSIONS]);
  const create = async (path: string, body: unknown) => {
    const res = await env.request(`/api/v1${path}`, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
    const answer = (await res.json()) as { data?: { id: string }; error?: string };
    if (res.status !== 201 || !answer.data) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer.data.id;
  };
  ids.risks = await create('/risks', { title: unique('Axe risk'), classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 });
  ids.controls = await create('/controls', { name: unique('Axe control') });
  ids.assets = await create('/assets', { name: unique('Axe asset') });
  ids['business-units'] = await create('/business-units', { name: unique('Axe unit') });
  ids.policies = await create('/policies', { title: unique('Axe policy') });
  ids['third-parties'] = await create('/third-parties', { name: unique('Axe vendor') });
  ids.incidents = await create('/incidents', { title: unique('Axe incident') });
  ids.projects = await create('/projects', { title: unique('Axe project') });
  ids.audits = await create('/audits', { title: unique('Axe audit') });
  ids.evidence = await create('/evidence', { title: unique('Axe evidence') });
  ids['account-reviews'] = await create('/account-reviews', { name: unique('Axe review') });
  browser = await launchChromium();
  page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  context = page.context();
}, 120_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

/** Opens each address and collects what axe finds, by address; every page must also have its landmarks. */
async function audit(paths: string[]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const path of paths) {
    // A fresh tab per page: one tab kept through dozens of axe runs grew until Chromium's renderer gave up.
    const page = await context.newPage();
    const started = Date.now();
    try {
      found[path] = await auditOne(page, path);
    } finally {
      await page.close();
    }
    if (process.env.AXE_TIMINGS) console.log(`${path}: ${Date.now() - started} ms`);
    if (found[path].length === 0) delete found[path];
  }
  return found;
}

async function auditOne(page: Page, path: string): Promise<string[]> {
  {
    const res = await page.goto(`${base}${path}`);
    const problems = (await axeViolations(page)).map((v) => `${v.rule} (${v.impact}): ${v.targets.join(' | ')}`);
    if (res?.status() !== 200) problems.push(`answered ${res?.status()}`);
    for (const landmark of ['header', 'nav', 'main']) {
      if ((await page.locator(landmark).count()) === 0) problems.push(`no <${landmark}> landmark`);
    }
    return problems;
  }
}

const SETTINGS_PARTS = 4;

const REGISTERS = ['risks', 'controls', 'assets', 'business-units', 'policies', 'third-parties', 'incidents', 'projects', 'audits', 'evidence', 'account-reviews'];

describe.skipIf(!chromiumAvailable)('accessibility (axe-core)', () => {
  for (const register of REGISTERS) {
    test(`${register}: list, form, record page, edit form and delete confirmation`, async () => {
      const id = ids[register];
      expect(await audit([`/${register}`, `/${register}/new`, `/${register}/${id}`, `/${register}/${id}/edit`, `/${register}/${id}/delete`])).toEqual({});
    }, 300_000);
  }

  test('the other lists and screens: exceptions, findings, packages, POA&M, treatments, search, start page', async () => {
    const paths = ['/risks/exceptions', '/policies/exceptions', '/audits/findings', '/compliance/packages', '/compliance/packages/import', '/compliance/poam',
      `/risks/${ids.risks}/treatments`, '/search?q=Axe', '/', '/no-such-page'];
    const found = await audit(paths);
    // The unknown address answers 404 inside the app: only its status is expected there.
    expect(found).toEqual({ '/no-such-page': ['answered 404'] });
  }, 600_000);

  // The Settings pages are found from the navigation once, then audited in parts: one test over all of them ran for
  // minutes on a loaded machine and lost its tab with the whole list undone.
  let settingsPages: string[] = [];
  test('the Settings navigation lists every Settings page', async () => {
    const tab = await context.newPage();
    try {
      await tab.goto(`${base}/settings`);
      const links = await tab.locator('nav.sidenav section').filter({ hasText: 'Settings' }).locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
      expect(links.length).toBeGreaterThan(10);
      settingsPages = ['/settings', ...links, '/settings/password', '/settings/two-factor'];
    } finally {
      await tab.close();
    }
  }, 120_000);
  for (let part = 0; part < SETTINGS_PARTS; part++) {
    test(`Settings pages, part ${part + 1} of ${SETTINGS_PARTS}`, async () => {
      const size = Math.ceil(settingsPages.length / SETTINGS_PARTS);
      const pages = settingsPages.slice(part * size, (part + 1) * size);
      expect(pages.length).toBeGreaterThan(0);
      expect(await audit(pages)).toEqual({});
    }, 300_000);
  }
});

describe.skipIf(!chromiumAvailable)('compliance package import in the browser', () => {
  test('a custom CSV package is previewed, committed, and found in the list; JSON too', async () => {
    // A tab of its own, so a tab lost by an earlier test cannot take this one with it.
    const page = await context.newPage();
    const folder = mkdtempSync(join(tmpdir(), 'grc-package-'));
    const csvName = unique('Browser package CSV');
    const csvFile = join(folder, 'custom.csv');
    writeFileSync(csvFile, 'code,name,description,parent_code,kind\nA,Access,,,heading\nA.1,Accounts,"Manage accounts",A,\nA.2,Guidance,,A,additional\n');
    await page.goto(`${base}/compliance/packages/import`);
    await page.getByLabel('Package file (CSV or JSON)').setInputFiles(csvFile);
    await page.getByLabel('Package name').fill(csvName);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('3 items: 1 heading, 1 requirement, 1 additional').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'package-import-preview');
    await page.getByRole('button', { name: 'Commit import' }).click();
    await page.waitForURL((url) => url.pathname === '/compliance/packages' && url.searchParams.get('done') === 'imported');
    await page.getByText('Package imported').waitFor();
    expect(await page.getByRole('link', { name: csvName }).count()).toBe(1);

    const jsonName = unique('Browser package JSON');
    const jsonFile = join(folder, 'custom.json');
    writeFileSync(jsonFile, JSON.stringify({ name: jsonName, standard: 'Own', version: '1', description: '', items: [{ code: 'R1', name: 'Rule one' }] }));
    await page.goto(`${base}/compliance/packages/import`);
    await page.getByLabel('Package file (CSV or JSON)').setInputFiles(jsonFile);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Commit import' }).click();
    await page.waitForURL((url) => url.pathname === '/compliance/packages');
    expect(await page.getByRole('link', { name: jsonName }).count()).toBe(1);
    await screenshots(page, 'packages-list');
    await page.close();
  }, 120_000);
});
