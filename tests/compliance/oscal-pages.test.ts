import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq } from 'drizzle-orm';
import type { Browser as Chromium } from 'playwright';
import { complianceAnalyses, compliancePackages } from '../../db/schema';
import { createApp } from '../../src/app';
import { exportPackage } from '../../src/modules/compliance/packages-service';
import { loadShippedPackage, SHIPPED_PACKAGES } from '../../src/modules/compliance/shipped';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations } from '../helpers/axe';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, unique } from '../helpers/factories';
import { NIST_OSCAL_FILE_NAME, nistOscalText, oscalCatalogValidator } from '../helpers/oscal';
import { readOscalText } from '../../src/modules/compliance/oscal';

/**
 * OSCAL on the screens: the import dialog takes an OSCAL catalog file (preview, then Commit import), and a package
 * page offers its OSCAL catalog as a download. The browser run goes through Chromium with the axe check.
 */

if (!chromiumAvailable) console.warn('compliance/oscal-pages: the Chromium part is skipped, /usr/bin/chromium is not installed');

let env: TestEnv;
let admin: Browser;
let chromium: Chromium;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;

beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  if (!chromiumAvailable) return;
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  chromium = await launchChromium();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await server?.stop();
});

const totalPackages = async () => (await env.ctx.db.select({ n: count() }).from(compliancePackages))[0].n;

/** Uploads a file through the import dialog as a browser does (multipart, CSRF field included). */
async function upload(fileName: string, content: string, fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.append('_csrf', admin.csrf ?? '');
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('file', new File([content], fileName, { type: 'application/json' }));
  return env.request('/compliance/packages/import/preview', { method: 'POST', body: form, headers: { cookie: admin.cookie ?? '' }, redirect: 'manual' });
}

describe.skipIf(!chromiumAvailable)('OSCAL in the browser', () => {
  test('the NIST moderate baseline file is previewed, committed and found in the list; its page downloads it as an OSCAL catalog', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'grc-oscal-'));
    const file = join(folder, NIST_OSCAL_FILE_NAME);
    writeFileSync(file, nistOscalText());
    const name = unique('NIST moderate from OSCAL');

    const page = await openPage(chromium, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${base}/compliance/packages/import`);
    await page.getByLabel('Package file (CSV or JSON)').setInputFiles(file);
    await page.getByLabel('Package name').fill(name);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#package-preview').waitFor();
    const preview = await page.locator('#package-preview').innerText();
    expect(preview).toContain('OSCAL catalog.');
    expect(preview).toContain('305 items: 18 headings, 287 requirements, 0 additional');
    expect(preview).toContain('ac Access Control heading (17)');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Commit import' }).click();
    await page.waitForURL((url) => url.pathname === '/compliance/packages' && url.searchParams.get('done') === 'imported');
    await page.getByRole('link', { name }).click();
    await page.waitForURL(/\/compliance\/packages\/[0-9a-f-]{36}$/);
    const packagePage = await page.locator('main').innerText();
    expect(packagePage).toContain('ac Access Control');
    expect(packagePage).toContain('287 items');
    expect(await axeViolations(page)).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export as OSCAL catalog' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^nist-moderate-from-oscal-.*-oscal\.json$/);
    const document = JSON.parse(readFileSync((await download.path())!, 'utf8')) as unknown;
    const validate = oscalCatalogValidator();
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);

    const [pkg] = await env.ctx.db.select().from(compliancePackages).where(eq(compliancePackages.name, name));
    const [{ n }] = await env.ctx.db.select({ n: count() }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, pkg.id));
    expect(n).toBe(287);
    // The download imports back as the same package.
    expect(readOscalText(JSON.stringify(document)).input).toEqual(await exportPackage(env.ctx.db, await adminActor(env), pkg.id));
    await page.context().close();
  }, 120_000);
});

describe('OSCAL on the import dialog and the package page', () => {
  test('an unresolved profile is refused on the preview naming why; nothing is written', async () => {
    const before = await totalPackages();
    const profile = { profile: { uuid: '0f2a1c9e-1d2b-4c3d-9e4f-5a6b7c8d9e0f', metadata: { title: 'Moderate' }, imports: [{ href: '#catalog' }] } };
    const res = await upload('moderate-profile.json', JSON.stringify(profile));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Package: profile: is an OSCAL profile, not a catalog: its imports (#catalog) cannot be resolved offline.');
    expect(html).not.toContain('Commit import');
    expect(await totalPackages()).toBe(before);
  });

  test('an OSCAL file over 1 MB is read (the moderate baseline is 1.8 MB); a package JSON file over 1 MB still is not', async () => {
    const text = nistOscalText();
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const preview = await upload(NIST_OSCAL_FILE_NAME, text, { standard: 'NIST SP 800-53' });
    expect(preview.status).toBe(200);
    const html = await preview.text();
    expect(html).toContain('305 items: 18 headings, 287 requirements, 0 additional');
    expect(html).toContain('<dd>NIST SP 800-53</dd>');
    const big = JSON.stringify({ name: 'Big', items: Array.from({ length: 9_000 }, (_, i) => ({ code: `R${i}`, name: `Requirement ${i} ${'x'.repeat(100)}` })) });
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const refused = await upload('big.json', big);
    expect(refused.status).toBe(413);
    expect(await refused.text()).toContain('larger than the 1 MB the screens accept');
  });

  test('the package page and list offer the OSCAL download, answered as application/oscal+json', async () => {
    const gdpr = loadShippedPackage(SHIPPED_PACKAGES.find((s) => s.key === 'gdpr')!);
    const name = unique('GDPR');
    const created = await admin.post('/compliance/packages/import', { package: JSON.stringify({ ...gdpr, name }) });
    expect(created.status).toBe(303);
    const [pkg] = await env.ctx.db.select().from(compliancePackages).where(eq(compliancePackages.name, name));
    expect(await (await admin.get(`/compliance/packages/${pkg.id}`)).text()).toContain(`href="/compliance/packages/${pkg.id}/export/oscal"`);
    expect(await (await admin.get('/compliance/packages')).text()).toContain(`href="/compliance/packages/${pkg.id}/export/oscal"`);
    const res = await admin.get(`/compliance/packages/${pkg.id}/export/oscal`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/oscal+json; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="gdpr-.*-oscal\.json"$/);
    const document = (await res.json()) as { catalog: { groups: unknown[] } };
    expect(document.catalog.groups).toHaveLength(11);
  });
});
