import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, inArray } from 'drizzle-orm';
import type { Browser } from 'playwright';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { createApp } from '../../src/app';
import { linkRecord, updateAnalysis } from '../../src/modules/compliance/analyses-service';
import { crosswalk } from '../../src/modules/compliance/crosswalk-service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import type { AnalysisStatus } from '../../src/modules/compliance/schema';
import { controlKind } from '../../src/modules/controls/service';
import { listHistory } from '../../src/platform/audit/history';
import { signIn } from '../../src/platform/http/sessions';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { refusalOf } from '../helpers/refusals';
import { adminActor, bearer, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';

/**
 * The cross-framework view: two packages' requirements that share a mapped control, side by side with their statuses,
 * and copying statuses from one package to the other as a reviewed bulk action (preview, then Apply).
 */
let env: TestEnv;
let admin: Actor;
let adminCookie: string;
let reader: TestUser;

const cookieOf = async (email: string, password: string) => {
  const session = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
  return `${sessionCookieName(env.ctx.config)}=${(session as { secret: string }).secret}`;
};

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  adminCookie = await cookieOf(ADMIN_EMAIL, ADMIN_PASSWORD);
  // Reads every requirement, but only the controls their group owns.
  reader = await makeUser(env, { 'compliance:read': 'all', 'controls:read': 'own' });
});

/**
 * Two small packages and four controls: A.1 and B.1 share "access", A.1 and B.3 share "backup", A.2 and B.2 share
 * "logging" and "secret" (a control only its owner may read); A.3 and nothing else is mapped across.
 */
async function makePackages() {
  const names = { access: unique('Access reviews'), backup: unique('Backups'), logging: unique('Central logging'), secret: unique('Secret vault') };
  const importOne = (prefix: string, name: string) => env.ctx.db.transaction((tx) => importPackage(tx, admin, {
    name: unique(name),
    items: [
      { code: prefix, name: `${name} requirements`, kind: 'heading' },
      { code: `${prefix}.1`, name: 'Access is reviewed', parentCode: prefix },
      { code: `${prefix}.2`, name: 'Events are logged', parentCode: prefix },
      { code: `${prefix}.3`, name: 'Data is backed up', parentCode: prefix },
    ],
  }));
  const left = await importOne('A', 'ISO-like');
  const right = await importOne('B', 'NIST-like');
  const rows = await env.ctx.db.select({ code: complianceItems.code, id: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(inArray(complianceAnalyses.packageId, [left.id, right.id]));
  const a = Object.fromEntries(rows.map((r) => [r.code, r.id]));
  const c: Record<keyof typeof names, string> = { access: '', backup: '', logging: '', secret: '' };
  await env.ctx.db.transaction(async (tx) => {
    for (const key of Object.keys(names) as (keyof typeof names)[]) {
      ({ id: c[key] } = await createRecord(tx, controlKind, admin, { name: names[key], ...(key === 'secret' ? {} : { ownerGroupId: reader.groupId }) }));
    }
    const maps: [string, keyof typeof names][] = [
      ['A.1', 'access'], ['B.1', 'access'], ['A.1', 'backup'], ['B.3', 'backup'], ['A.2', 'logging'], ['A.2', 'secret'], ['B.2', 'secret'], ['B.2', 'logging'],
    ];
    for (const [code, key] of maps) await linkRecord(tx, admin, a[code], 'controls', c[key]);
  });
  return { left: left.id, right: right.id, a, c, names };
}

const assess = (id: string, status: AnalysisStatus) => env.ctx.db.transaction((tx) => updateAnalysis(tx, admin, id, { status }));
const statusOf = async (id: string) => (await env.ctx.db.select({ s: complianceAnalyses.status }).from(complianceAnalyses).where(eq(complianceAnalyses.id, id)))[0].s;
const page = (path: string, cookie = adminCookie) => env.request(path, { headers: { cookie } });

/** Posts a form of the comparison screen with the CSRF token of the page it was on. */
async function post(path: string, fields: Record<string, string>, cookie = adminCookie) {
  const html = await (await page(`/compliance/packages/compare`, cookie)).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1];
  return env.request(path, {
    method: 'POST', headers: { cookie, origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, ...fields }),
  });
}

const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
  .replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const hiddenChanges = (html: string) => unescape(/name="changes" value="([^"]*)"/.exec(html)![1]);

describe('the requirements of two packages that share controls', () => {
  test('are listed in pairs, in file order, each with its status and the controls they share', async () => {
    const p = await makePackages();
    await assess(p.a['B.1'], 'compliant');
    const view = await crosswalk(env.ctx.db, admin, p.left, p.right);
    expect(view.pairs.map((pair) => [pair.left.code, pair.left.status, pair.right.code, pair.right.status, pair.controls.map((c) => c.name)])).toEqual([
      ['A.1', 'not_assessed', 'B.1', 'compliant', [p.names.access]],
      ['A.1', 'not_assessed', 'B.3', 'not_assessed', [p.names.backup]],
      ['A.2', 'not_assessed', 'B.2', 'not_assessed', [p.names.logging, p.names.secret].sort()],
    ]);
    expect(view.pairs[0].controls).toEqual([{ id: p.c.access, name: p.names.access }]);
  });

  test('name only the controls the reader may read: another is "(restricted)", without a name or a link', async () => {
    const p = await makePackages();
    const view = await crosswalk(env.ctx.db, await reader.actor(), p.left, p.right);
    expect(view.pairs.find((pair) => pair.left.code === 'A.2')!.controls).toEqual([{ id: p.c.logging, name: p.names.logging }, { id: null, name: '(restricted)' }]);
    const res = await page(`/compliance/packages/compare?left=${p.left}&right=${p.right}`, await cookieOf(reader.email, reader.password));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('3 pairs of requirements share at least one mapped control.');
    expect(html).toContain(`href="/controls/${p.c.logging}"`);
    expect(html).not.toContain(p.names.secret);
    expect(html).not.toContain(p.c.secret);
    // Reading is not changing: the reader is offered no copy.
    expect(html).not.toContain('Preview copying statuses');
  });

  test('the same package on both sides is refused with a reason, on the screen', async () => {
    const p = await makePackages();
    const html = await (await page(`/compliance/packages/compare?left=${p.left}&right=${p.left}`)).text();
    expect(html).toContain('choose a package other than the left one');
  });
});

describe('copying statuses where the same controls apply', () => {
  test('the preview lists each requirement that would change (old → new); Apply changes exactly those, each with its History', async () => {
    const p = await makePackages();
    await assess(p.a['B.1'], 'compliant');
    await assess(p.a['B.2'], 'non_compliant');
    // B.3 is not assessed: it says nothing about A.1, which takes B.1's status.
    const preview = await post('/compliance/packages/compare/preview', { left: p.left, right: p.right, from: 'right' });
    expect(preview.status).toBe(200);
    const html = await preview.text();
    const rows = [...html.matchAll(/<tr><td data-label="[^"]*"><a href="\/compliance\/analyses\/([^"]+)">([^<]+)<\/a>.*?<\/tr>/g)].map((m) => m[2]);
    expect(rows).toEqual(['A.1', 'A.2']);
    expect(html).toContain('Apply 2 changes');
    const changes = hiddenChanges(html);
    expect(JSON.parse(changes)).toEqual([[p.a['A.1'], 'not_assessed', 'compliant'], [p.a['A.2'], 'not_assessed', 'non_compliant']]);
    // Previewing writes nothing.
    expect(await statusOf(p.a['A.1'])).toBe('not_assessed');

    const applied = await post('/compliance/packages/compare/apply', { left: p.left, right: p.right, from: 'right', changes });
    expect(applied.status).toBe(303);
    expect(applied.headers.get('location')).toBe(`/compliance/packages/compare?left=${p.left}&right=${p.right}&copied=2`);
    expect([await statusOf(p.a['A.1']), await statusOf(p.a['A.2']), await statusOf(p.a['A.3'])]).toEqual(['compliant', 'non_compliant', 'not_assessed']);
    expect([await statusOf(p.a['B.1']), await statusOf(p.a['B.2']), await statusOf(p.a['B.3'])]).toEqual(['compliant', 'non_compliant', 'not_assessed']);
    for (const [code, after] of [['A.1', 'compliant'], ['A.2', 'non_compliant']] as const) {
      const updates = (await listHistory(env.ctx.db, 'complianceAnalysis', p.a[code])).filter((h) => h.action === 'update');
      expect(updates).toHaveLength(1);
      expect(updates[0].changes.status).toEqual({ before: 'not_assessed', after });
    }
    expect((await listHistory(env.ctx.db, 'complianceAnalysis', p.a['A.3'])).filter((h) => h.action === 'update')).toEqual([]);
    // Done: a second preview finds nothing left to copy.
    const again = await (await post('/compliance/packages/compare/preview', { left: p.left, right: p.right, from: 'right' })).text();
    expect(again).toContain('Nothing would change');
  });

  test('a requirement whose counterparts disagree is left as it is, and says why', async () => {
    const p = await makePackages();
    await assess(p.a['B.1'], 'compliant');
    await assess(p.a['B.3'], 'partially_compliant');
    await assess(p.a['B.2'], 'non_compliant');
    const html = await (await post('/compliance/packages/compare/preview', { left: p.left, right: p.right, from: 'right' })).text();
    expect(html).toContain('A.1 Access is reviewed: the requirements it shares controls with disagree (B.1, B.3)');
    expect(JSON.parse(hiddenChanges(html))).toEqual([[p.a['A.2'], 'not_assessed', 'non_compliant']]);
  });

  test('Apply is refused when a status changed since the preview, and nothing is written', async () => {
    const p = await makePackages();
    await assess(p.a['B.1'], 'compliant');
    await assess(p.a['B.2'], 'non_compliant');
    const changes = hiddenChanges(await (await post('/compliance/packages/compare/preview', { left: p.left, right: p.right, from: 'right' })).text());
    // Meanwhile someone assesses A.2 themselves.
    await assess(p.a['A.2'], 'partially_compliant');
    const res = await post('/compliance/packages/compare/apply', { left: p.left, right: p.right, from: 'right', changes });
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain('The statuses changed since the preview');
    // The page shows the new preview, with A.2 as it is now.
    expect(JSON.parse(hiddenChanges(html))).toEqual([[p.a['A.1'], 'not_assessed', 'compliant'], [p.a['A.2'], 'partially_compliant', 'non_compliant']]);
    expect([await statusOf(p.a['A.1']), await statusOf(p.a['A.2'])]).toEqual(['not_assessed', 'partially_compliant']);
    expect((await listHistory(env.ctx.db, 'complianceAnalysis', p.a['A.1'])).filter((h) => h.action === 'update')).toEqual([]);
  });

  test('someone who may only read compliance is refused the preview and the apply', async () => {
    const p = await makePackages();
    const cookie = await cookieOf(reader.email, reader.password);
    const refusal = await refusalOf(env, () => post('/compliance/packages/compare/preview', { left: p.left, right: p.right, from: 'right' }, cookie));
    expect(refusal.status).toBe(403);
    expect(refusal.reasons.join(' ')).toContain('compliance:update');
    const apply = await refusalOf(env, () => post('/compliance/packages/compare/apply', { left: p.left, right: p.right, from: 'right', changes: '[]' }, cookie));
    expect(apply.status).toBe(403);
    expect(apply.reasons.join(' ')).toContain('compliance:update');
  });
});

describe('through the REST API', () => {
  test('the pairs, the preview and the apply, which answers 409 once the preview no longer holds', async () => {
    const p = await makePackages();
    await assess(p.a['A.1'], 'compliant');
    const token = await makeToken(env, admin, ['compliance:read', 'compliance:update']);
    const pairs = await env.request(`/api/v1/compliance/crosswalk?left=${p.left}&right=${p.right}`, bearer(token));
    expect(pairs.status).toBe(200);
    const view = ((await pairs.json()) as { data: { pairs: { left: { code: string; status: string }; right: { code: string } }[] } }).data;
    expect(view.pairs.map((pair) => `${pair.left.code} ${pair.left.status} ${pair.right.code}`)).toEqual(['A.1 compliant B.1', 'A.1 compliant B.3', 'A.2 not_assessed B.2']);

    const body = { left: p.left, right: p.right, from: 'left' };
    const preview = await env.request('/api/v1/compliance/crosswalk/preview', bearer(token, { method: 'POST', body: JSON.stringify(body) }));
    expect(preview.status).toBe(200);
    const changes = ((await preview.json()) as { data: { changes: { analysisId: string; before: string; after: string; from: string[] }[] } }).data.changes;
    expect(changes).toEqual([
      { analysisId: p.a['B.1'], code: 'B.1', name: 'Access is reviewed', before: 'not_assessed', after: 'compliant', from: ['A.1'] },
      { analysisId: p.a['B.3'], code: 'B.3', name: 'Data is backed up', before: 'not_assessed', after: 'compliant', from: ['A.1'] },
    ] as never);
    const previewed = changes.map((c) => [c.analysisId, c.before, c.after]);

    await assess(p.a['B.3'], 'non_compliant');
    const stale = await env.request('/api/v1/compliance/crosswalk/apply', bearer(token, { method: 'POST', body: JSON.stringify({ ...body, changes: previewed }) }));
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: string }).error).toContain('The statuses changed since the preview');
    expect(await statusOf(p.a['B.1'])).toBe('not_assessed');

    const fresh = [[p.a['B.1'], 'not_assessed', 'compliant'], [p.a['B.3'], 'non_compliant', 'compliant']];
    const applied = await env.request('/api/v1/compliance/crosswalk/apply', bearer(token, { method: 'POST', body: JSON.stringify({ ...body, changes: fresh }) }));
    expect(applied.status).toBe(200);
    expect(await applied.json()).toEqual({ data: { changed: 2 } });
    expect([await statusOf(p.a['B.1']), await statusOf(p.a['B.3'])]).toEqual(['compliant', 'compliant']);
  });

  test('the same package on both sides is a 400 naming the field', async () => {
    const p = await makePackages();
    const token = await makeToken(env, admin, ['compliance:read']);
    const res = await env.request(`/api/v1/compliance/crosswalk?left=${p.left}&right=${p.left}`, bearer(token));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { problems: unknown[] }).problems).toEqual([{ field: 'right', message: 'choose a package other than the left one' }]);
  });
});

describe('in a browser', () => {
  let browser: Browser;
  let server: ReturnType<ReturnType<typeof createApp>['listen']>;
  beforeAll(async () => {
    if (!chromiumAvailable) return;
    server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test.skipIf(!chromiumAvailable)('a person chooses two packages, previews the copy and applies it', async () => {
    const p = await makePackages();
    await assess(p.a['B.2'], 'non_compliant');
    const base = `http://127.0.0.1:${server.server?.port}`;
    const tab = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    try {
      await tab.goto(`${base}/compliance/packages`);
      await tab.getByRole('link', { name: 'Compare two packages' }).click();
      const [leftName, rightName] = await Promise.all([p.left, p.right].map(async (id) => (await env.ctx.db.query.compliancePackages.findFirst({ where: (t, { eq: is }) => is(t.id, id) }))!.name));
      await tab.getByLabel('Left package').selectOption({ label: leftName });
      await tab.getByLabel('Right package').selectOption({ label: rightName });
      await tab.getByRole('button', { name: 'Compare' }).click();
      const row = tab.locator('#crosswalk tr', { hasText: 'A.2' });
      expect(await row.locator('td').allTextContents()).toEqual([
        'A.2 Events are logged', 'Not assessed', [p.names.logging, p.names.secret].sort().join(''), 'B.2 Events are logged', 'Non-compliant',
      ]);
      expect(await axeViolations(tab)).toEqual([]);
      await tab.getByRole('button', { name: `Preview copying statuses from ${rightName} to ${leftName}` }).click();
      expect(await tab.locator('#copy-preview tbody tr').allTextContents()).toEqual(['A.2 Events are loggedNot assessedNon-compliantB.2']);
      expect(await axeViolations(tab)).toEqual([]);
      await tab.getByRole('button', { name: 'Apply 1 change' }).click();
      await tab.getByText('Status copied to 1 requirement.').waitFor();
      expect(await tab.locator('#crosswalk tr', { hasText: 'A.2' }).locator('td').nth(1).textContent()).toBe('Non-compliant');
      expect(await axeViolations(tab)).toEqual([]);
    } finally {
      await tab.context().close();
    }
  }, 120_000);
});

