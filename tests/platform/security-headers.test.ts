import { beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { API_CSP, SCREEN_CSP, securityHeaders } from '../../src/platform/http/security-headers';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const COMMON = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

function expectSecurityHeaders(res: Response, csp: string, what: string) {
  expect(res.headers.get('content-security-policy'), what).toBe(csp);
  for (const [name, value] of Object.entries(COMMON)) expect(res.headers.get(name), `${what}: ${name}`).toBe(value);
}

describe('security headers', () => {
  test('every answer carries them: pages, redirects, errors, static files, refusals, the API', async () => {
    const screens: [string, Promise<Response>][] = [
      ['sign-in page', env.request('/sign-in')],
      ['redirect to sign-in', env.request('/settings/users', { redirect: 'manual' })],
      ['a screen', admin.get('/settings/users')],
      ['403 page', (async () => {
        const reader = await makeUser(env, { 'risks:read': 'all' });
        return (await signedInBrowser(env, reader.email, reader.password)).get('/settings/users');
      })()],
      ['static file', env.request('/static/app.css')],
      ['413 page', env.request('/risks', { method: 'POST', body: 'x', headers: { 'content-length': String(2 * 1024 * 1024) } })],
      ['404 page', env.request('/no-such-page')],
    ];
    for (const [what, answer] of screens) expectSecurityHeaders(await answer, SCREEN_CSP, what);
    expect(await refusalOf(env, async () => screens[3][1])).toEqual(refusedWith(403, undefined));
    for (const [what, path] of [['health', '/api/health'], ['401', '/api/v1/risks'], ['OpenAPI', '/api/v1/openapi'], ['404', '/api/v1/nothing']]) {
      expectSecurityHeaders(await env.request(path), API_CSP, what);
    }
    expect(SCREEN_CSP).toContain("frame-ancestors 'none'");
    expect(SCREEN_CSP).toContain("script-src 'self'");
    expect(SCREEN_CSP).not.toContain('unsafe');
  });

  test('HSTS only when the service runs behind HTTPS (COOKIE_SECURE)', async () => {
    expect((await env.request('/sign-in')).headers.get('strict-transport-security')).toBeNull();
    const secure = new Elysia().use(securityHeaders({ COOKIE_SECURE: true })).get('/', () => 'page');
    expect((await secure.handle(new Request('http://localhost/'))).headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });

  test('the API reference is a page of this origin: viewer assets from the pinned package, no CDN', async () => {
    const res = await env.request('/api/v1/docs');
    expectSecurityHeaders(res, SCREEN_CSP, 'docs');
    const html = await res.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(2);
    for (const source of sources) {
      expect(source, 'served from this origin').toStartWith('/');
      const asset = await env.request(source);
      expect(asset.status, source).toBe(200);
    }
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  test('no screen holds an inline script, event handler or style (the policy would block them)', async () => {
    const riskId = await makeRisk(env, await adminActor(env));
    const paths = env.app.routes
      .filter((route) => route.method === 'GET' && !route.path.startsWith('/api/') && !route.path.includes('*') && !route.path.endsWith('.csv'))
      .map((route) => route.path.replace(':id', riskId))
      .filter((path) => !path.includes(':'));
    expect(paths.length).toBeGreaterThan(20);
    for (const path of new Set(paths)) {
      const res = await admin.get(path);
      if (!(res.headers.get('content-type') ?? '').includes('text/html')) continue;
      // Records made by other tests may hold "<script>" in their names: inside a quoted attribute value it is inert
      // text (the value is escaped), so only the markup outside attribute values is checked.
      const html = (await res.text()).replace(/="[^"]*"/g, '=""');
      expect(html, `${path}: inline script`).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html, `${path}: event handler attribute`).not.toMatch(/<[^>]+\son[a-z]+=/);
      expect(html, `${path}: style attribute`).not.toMatch(/<[^>]+\sstyle=/);
      expect(html, `${path}: style element`).not.toContain('<style');
    }
  }, 120_000);
});
