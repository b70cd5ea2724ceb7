import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import Papa from 'papaparse';
import { chromium, type Browser } from 'playwright';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { createApp } from '../../src/app';
import { linkRecord } from '../../src/modules/compliance/analyses-service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { controlKind } from '../../src/modules/controls/service';
import { evidenceKind, linkEvidence } from '../../src/modules/evidence/service';
import { listHistory } from '../../src/platform/audit/history';
import { signIn } from '../../src/platform/http/sessions';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { createRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations } from '../helpers/axe';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/** The Statement of Applicability: applicability and justification on each analysis, the statement as CSV and page. */
let env: TestEnv;
let admin: Actor;
let token: string;
let cookie: string;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['compliance:read', 'compliance:update']);
  const session = await signIn(env.ctx.db, ADMIN_EMAIL, ADMIN_PASSWORD, '', { sessionHours: 1 });
  cookie = `${sessionCookieName(env.ctx.config)}=${(session as { secret: string }).secret}`;
});

/** A package with a heading and three requirements; R1 mapped to a control that has one evidence record. */
async function makePackage() {
  const control = unique('SoA control');
  const { id } = await env.ctx.db.transaction((tx) => importPackage(tx, admin, {
    name: unique('SoA framework'),
    items: [
      { code: 'A', name: 'Organisational', kind: 'heading' },
      { code: 'A.1', name: 'Policies for information security', parentCode: 'A' },
      { code: 'A.2', name: 'Teleworking', parentCode: 'A' },
      { code: 'A.3', name: 'Physical entry', parentCode: 'A' },
    ],
  }));
  const rows = await env.ctx.db.select({ code: complianceItems.code, id: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, id));
  const analyses = Object.fromEntries(rows.map((r) => [r.code, r.id]));
  await env.ctx.db.transaction(async (tx) => {
    const { id: controlId } = await createRecord(tx, controlKind, admin, { name: control });
    await linkRecord(tx, admin, analyses['A.1'], 'controls', controlId);
    const { id: evidenceId } = await createRecord(tx, evidenceKind, admin, { title: unique('SoA evidence') });
    await linkEvidence(tx, admin, evidenceId, { recordType: 'control', recordId: controlId });
  });
  return { id, analyses, control };
}

const patch = (id: string, body: unknown) => env.request(`/api/v1/compliance/analyses/${id}`, bearer(token, { method: 'PATCH', body: JSON.stringify(body) }));

describe('applicability of a requirement (REST)', () => {
  test('a requirement applies until said otherwise; not applicable needs a justification, and the change is in History', async () => {
    const pkg = await makePackage();
    const before = await env.request(`/api/v1/compliance/analyses/${pkg.analyses['A.2']}`, bearer(token));
    expect(((await before.json()) as { data: { applicable: boolean; justification: string } }).data).toMatchObject({ applicable: true, justification: '' });

    const refused = await patch(pkg.analyses['A.2'], { applicable: false });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { problems: { field: string; message: string }[] }).problems)
      .toEqual([{ field: 'justification', message: 'must say why the requirement does not apply' }]);
    const blank = await patch(pkg.analyses['A.2'], { applicable: false, justification: '   ' });
    expect(blank.status).toBe(400);

    const saved = await patch(pkg.analyses['A.2'], { applicable: false, justification: 'Nobody works from home.' });
    expect(saved.status).toBe(200);
    const after = await env.request(`/api/v1/compliance/analyses/${pkg.analyses['A.2']}`, bearer(token));
    const view = ((await after.json()) as { data: { applicable: boolean; justification: string; status: string; assessedAt: string | null } }).data;
    expect(view).toMatchObject({ applicable: false, justification: 'Nobody works from home.', status: 'not_assessed', assessedAt: null });

    const [entry] = (await listHistory(env.ctx.db, 'complianceAnalysis', pkg.analyses['A.2'])).filter((h) => h.action === 'update');
    expect(entry.changes).toMatchObject({ applicable: { before: true, after: false }, justification: { before: '', after: 'Nobody works from home.' } });
  });
});

describe('the statement', () => {
  test('as CSV: every requirement (no headings) with applicability, justification, status, controls and evidence', async () => {
    const pkg = await makePackage();
    expect((await patch(pkg.analyses['A.1'], { status: 'compliant', justification: 'Required by the board.' })).status).toBe(200);
    expect((await patch(pkg.analyses['A.3'], { applicable: false, justification: 'No offices; staff are remote.' })).status).toBe(200);
    const res = await env.request(`/compliance/packages/${pkg.id}/soa.csv`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="statement-of-applicability-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = Papa.parse<string[]>((await res.text()).replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data;
    expect(rows).toEqual([
      ['Code', 'Requirement', 'Applicable', 'Justification', 'Implementation status', 'Controls', 'Policies', 'Evidence'],
      ['A.1', 'Policies for information security', 'Yes', 'Required by the board.', 'Compliant', pkg.control, '', '1'],
      ['A.2', 'Teleworking', 'Yes', '', 'Not assessed', '', '', '0'],
      ['A.3', 'Physical entry', 'No', 'No offices; staff are remote.', 'Not assessed', '', '', '0'],
    ]);
  });

  test('as a printable page linked from the package, and refused to someone without compliance read', async () => {
    const pkg = await makePackage();
    expect((await patch(pkg.analyses['A.3'], { applicable: false, justification: 'No offices.' })).status).toBe(200);
    const tree = await (await env.request(`/compliance/packages/${pkg.id}`, { headers: { cookie } })).text();
    expect(tree).toContain(`href="/compliance/packages/${pkg.id}/soa"`);
    const page = await env.request(`/compliance/packages/${pkg.id}/soa`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('3 requirements; 2 applicable, 1 not applicable.');
    expect(html).toContain('No offices.');
    expect(html).toContain(pkg.control);
    expect((await env.request(`/compliance/packages/${pkg.id}/soa`)).status).toBe(303);
  });

  test('the assessment form keeps what was typed when the justification is missing', async () => {
    const pkg = await makePackage();
    const session = await env.request(`/compliance/analyses/${pkg.analyses['A.2']}`, { headers: { cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await session.text())![1];
    const res = await env.request(`/compliance/analyses/${pkg.analyses['A.2']}`, {
      method: 'POST', headers: { cookie, origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, status: 'partially_compliant', notes: 'Typed notes', applicable: 'no', justification: '' }),
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('must say why the requirement does not apply');
    expect(html).toContain('Typed notes');
    expect(html).toMatch(/<option value="no" selected>No<\/option>/);
    expect(html).toMatch(/<option value="partially_compliant" selected>/);
  });
});

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
describe('in a browser', () => {
  let browser: Browser;
  let server: ReturnType<ReturnType<typeof createApp>['listen']>;
  beforeAll(async () => {
    if (!available) return;
    server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test.skipIf(!available)('a person marks a requirement not applicable with a reason and sees it in the statement', async () => {
    const pkg = await makePackage();
    const base = `http://127.0.0.1:${server.server?.port}`;
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${base}/sign-in`);
      await page.getByLabel('Email').fill(ADMIN_EMAIL);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname !== '/sign-in');
      await page.goto(`${base}/compliance/analyses/${pkg.analyses['A.3']}`);
      await page.getByLabel('Applicable', { exact: true }).selectOption('no');
      await page.getByRole('button', { name: 'Save assessment' }).click();
      await page.getByText('Please correct the fields marked below.').waitFor();
      expect(await page.getByLabel('Applicable', { exact: true }).inputValue()).toBe('no');
      await page.getByLabel('Justification').fill('The site has no reception; visitors are met outside.');
      await page.getByRole('button', { name: 'Save assessment' }).click();
      await page.getByText('Assessment saved.').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: /^← / }).click();
      await page.getByRole('link', { name: 'Statement of Applicability' }).click();
      const row = page.locator('#soa tr', { hasText: 'A.3' });
      expect(await row.locator('td').allTextContents()).toEqual([
        'A.3', 'Physical entry', 'No', 'The site has no reception; visitors are met outside.', 'Not assessed', '—', '—', '0',
      ]);
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
