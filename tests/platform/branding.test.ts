import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { brandingOf, checkedLogo, contrastRatio, refreshShownBrand, saveBranding } from '../../src/platform/branding/branding';
import { LOGO_CSP } from '../../src/platform/branding/pages';
import { runWrite } from '../../src/platform/http/context';
import { previewDigest } from '../../src/platform/notifications/reminders';
import { createTreatment } from '../../src/modules/risks/treatments-service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeUser } from '../helpers/factories';
import type { Actor } from '../../src/platform/permissions/permissions';

let env: TestEnv;
let admin: Actor;
let session: Browser;

const EVIL_SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 20" onload="alert(1)">
  <script>alert(document.cookie)</script>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example/"></iframe></div></foreignObject>
  <image href="https://evil.example/track.png" width="1" height="1"/>
  <use xlink:href="https://evil.example/sprite.svg#a"/>
  <rect width="40" height="20" fill="#1d4f91" style="fill:url(https://evil.example/x)" onclick="steal()"/>
  <text x="2" y="14">Acme &amp; Co</text>
  <a href="javascript:alert(1)"><text>click me</text></a>
  <circle cx="30" cy="10" r="5" fill="url(#g)"/>
</svg>`;

/** Posts the branding form as a browser does (multipart, with the CSRF token). */
async function postBranding(fields: Record<string, string>, logo?: { bytes: string | Uint8Array<ArrayBuffer>; name: string; type: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('_csrf', session.csrf!);
  if (logo) form.append('logo', new File([logo.bytes], logo.name, { type: logo.type }));
  return env.request('/settings/branding', { method: 'POST', body: form, headers: { cookie: session.cookie! }, redirect: 'manual' });
}

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  session = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

afterAll(async () => {
  // Back to the default, so other test files of this process see the usual header.
  await runWrite(env.ctx, (tx) => saveBranding(env.ctx, tx, admin, { name: 'GRC', accentColour: '' }, { remove: true }));
});

describe('Settings › Branding', () => {
  test('an SVG logo with a script, handlers, foreignObject and outside references is stored cleaned and served with a safe type and CSP', async () => {
    const res = await postBranding({ name: 'Acme Assurance', accentColour: '#1d4f91' }, { bytes: EVIL_SVG, name: 'logo.svg', type: 'image/svg+xml' });
    const page = await res.text();
    expect(res.status, page.slice(0, 300)).toBe(200);
    expect(page).toContain('Branding saved. Removed from the SVG logo: ');
    expect(page).toContain('scripts');
    expect(page).toContain('foreignObject');
    const logo = await session.get('/branding/logo');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');
    expect(logo.headers.get('content-security-policy')).toBe(LOGO_CSP);
    expect(logo.headers.get('x-content-type-options')).toBe('nosniff');
    const svg = await logo.text();
    for (const gone of ['<script', 'alert', 'onload', 'onclick', 'foreignObject', 'iframe', 'evil.example', 'javascript:', 'style=', '<image', '<a ', 'click me']) expect(svg).not.toContain(gone);
    expect(svg).toContain('<rect width="40" height="20" fill="#1d4f91"/>');
    expect(svg).toContain('fill="url(#g)"');
    expect(svg).toContain('Acme &amp; Co');
    // The header, the sign-in page and a printable report show the name and the logo; the colour is a style sheet of this origin.
    const home = await (await session.get('/reports')).text();
    expect(home).toMatch(/<a class="brand" href="\/"><img class="brand-logo" src="\/branding\/logo\?v=[0-9a-f]{8}" alt=""\/?><span>Acme Assurance<\/span><\/a>/);
    expect(home).toContain('<link rel="stylesheet" href="/branding.css?v=1d4f91"');
    expect(await (await session.get('/reports/riskRegister')).text()).toContain('<span>Acme Assurance</span>');
    expect(await (await browser(env).get('/sign-in')).text()).toContain('<span>Acme Assurance</span>');
    const css = await (await session.get('/branding.css')).text();
    expect(css).toContain('.topbar { background: #1d4f91; color: #fff; }');
    // Audited, with what the sanitiser removed.
    const [entry] = await selectRows<{ details: { logoSanitised?: string[] } }>(env.ctx.db, sql`select details from audit_log where record_id = 'branding' order by seq desc limit 1`);
    expect(entry.details.logoSanitised).toEqual(expect.arrayContaining(['scripts', 'foreignObject']));
  });

  test('an accent colour white text cannot be read on is refused with the contrast it has, the form kept', async () => {
    const res = await postBranding({ name: 'Acme Yellow', accentColour: '#ffdd00' });
    const page = await res.text();
    expect(res.status).toBe(400);
    expect(page).toContain('#ffdd00 with the header&#x27;s white text has a contrast of 1.3:1; WCAG AA needs at least 4.5:1. Choose a darker colour.');
    expect(page).toContain('value="Acme Yellow"');
    expect((await brandingOf(env.ctx.db)).name).not.toBe('Acme Yellow');
    expect(contrastRatio('#1d4f91', '#ffffff')).toBeGreaterThan(4.5);
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(4.5);
  });

  test('logos that are not PNG or SVG, too large, or declaring entities are refused; a PNG is kept as it is', async () => {
    expect(checkedLogo({ bytes: new TextEncoder().encode('GIF89a....'), filename: 'x.gif' })).toEqual({ problem: 'must be a PNG or SVG image' });
    expect(checkedLogo({ bytes: new Uint8Array(300 * 1024).fill(32), filename: 'big.svg' })).toEqual({ problem: 'is 300 KB; a logo may be at most 256 KB' });
    expect(checkedLogo({ bytes: new TextEncoder().encode('<!DOCTYPE svg [<!ENTITY x "y">]><svg>&x;</svg>'), filename: 'x.svg' }))
      .toEqual({ problem: 'is refused: an SVG with a DOCTYPE or entity declarations is refused' });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const res = await postBranding({ name: 'Acme PNG', accentColour: '' }, { bytes: png, name: 'logo.png', type: 'image/png' });
    expect(res.status).toBe(200);
    const logo = await session.get('/branding/logo');
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await logo.arrayBuffer())).toEqual(png);
  });

  test('the reminder digest is signed with the organisation\'s name; only a settings administrator may change the branding', async () => {
    await runWrite(env.ctx, (tx) => saveBranding(env.ctx, tx, admin, { name: 'Acme Digest', accentColour: '' }));
    // A treatment past its due date puts the administrator in the next digest.
    const riskId = await makeRisk(env, admin, { title: 'Branded digest risk', ownerId: admin.userId });
    await runWrite(env.ctx, (tx) => createTreatment(tx, admin, riskId, { type: 'mitigate', title: 'Overdue step', dueOn: '2020-01-01' }));
    await refreshShownBrand(env.ctx.db, 0);
    const digest = await previewDigest(env.ctx, admin.userId!);
    expect(digest?.body).toEndWith('\n\n— Acme Digest');
    const reader = await makeUser(env, { 'settings:read': 'all' });
    const readerActor = await reader.actor();
    const refused = await runWrite(env.ctx, async (tx) => saveBranding(env.ctx, tx, readerActor, { name: 'Mine', accentColour: '' })).catch((e) => e);
    expect(refused.code).toBe('FORBIDDEN');
    expect(refused.details ?? refused.reason ?? refused).toBeDefined();
  });
});
