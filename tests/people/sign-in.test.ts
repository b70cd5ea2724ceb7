import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, sessions } from '../../db/schema';
import { setUserStatus } from '../../src/modules/people/service';
import { MAX_FAILURES_PER_EMAIL } from '../../src/platform/http/sessions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeUser } from '../helpers/factories';
import { browser, sessionCookieOf, signedInBrowser } from '../helpers/browser';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

const sha256 = (value: string) => new Bun.CryptoHasher('sha256').update(value).digest('hex');

describe('password sign-in', () => {
  test('success sets an HttpOnly SameSite cookie whose hash, never the secret, is the session row', async () => {
    const user = await makeUser(env, { 'risks:read': 'all' });
    const res = await browser(env).post('/sign-in', { email: user.email.toUpperCase(), password: user.password, next: '/risks' });
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe('/risks');
    const cookie = sessionCookieOf(res)!;
    expect(cookie.value.length).toBeGreaterThan(30);
    expect(cookie.attributes.has('httponly')).toBe(true);
    expect(cookie.attributes.get('samesite')?.toLowerCase()).toBe('lax');
    expect(cookie.attributes.get('path')).toBe('/');
    const rows = await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(rows.map((r) => r.id)).toEqual([sha256(cookie.value)]);
    expect(rows[0].expiresAt.getTime() - Date.now()).toBeGreaterThan((env.ctx.config.SESSION_HOURS - 0.1) * 3_600_000);
    const audit = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'signin'), eq(auditLog.recordId, user.id)));
    expect(audit).toHaveLength(1);
  });

  test('a wrong password is refused with the same message as an unknown email, and audited', async () => {
    const user = await makeUser(env, {});
    const wrong = await browser(env).post('/sign-in', { email: user.email, password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(sessionCookieOf(wrong)).toBeUndefined();
    const wrongText = await wrong.text();
    expect(wrongText).toContain('The email or password is not correct.');
    expect(wrongText).toContain(`value="${user.email}"`);
    const unknown = await browser(env).post('/sign-in', { email: `nobody-${user.email}`, password: 'whatever it is' });
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toContain('The email or password is not correct.');
    const audit = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'signin.failed'), eq(auditLog.recordId, user.id)));
    expect(audit.map((a) => a.details)).toEqual([expect.objectContaining({ reason: 'wrong password', email: user.email.toLowerCase() })]);
  });

  test(`after ${MAX_FAILURES_PER_EMAIL} failures the account is paused, even for the right password`, async () => {
    const user = await makeUser(env, {});
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i += 1) {
      expect((await browser(env).post('/sign-in', { email: user.email, password: `guess number ${i}` })).status).toBe(401);
    }
    const right = await browser(env).post('/sign-in', { email: user.email, password: user.password });
    expect(right.status).toBe(429);
    expect(sessionCookieOf(right)).toBeUndefined();
    expect(await right.text()).toContain('Too many failed sign-in attempts');
    // Another account is unaffected.
    const other = await makeUser(env, {});
    expect((await browser(env).post('/sign-in', { email: other.email, password: other.password })).status).toBe(303);
  });

  test('a deactivated account cannot sign in', async () => {
    const user = await makeUser(env, {});
    const admin = await adminActor(env);
    await env.ctx.db.transaction((tx) => setUserStatus(tx, admin, user.id, 'deactivated'));
    expect((await browser(env).post('/sign-in', { email: user.email, password: user.password })).status).toBe(401);
  });

  test('only a same-site path is accepted as the place to return to', async () => {
    const user = await makeUser(env, {});
    const res = await browser(env).post('/sign-in', { email: user.email, password: user.password, next: '//evil.example/x' });
    expect(res.headers.get('location')).toBe('/');
  });

  // Browsers drop tab, CR and LF inside a URL, so '/\t/host' is followed as '//host'; CR, LF, NUL made an invalid header (500).
  const leaving = [
    '/\t/localhost:8999/pwned', '/\n/evil.example', '/\r\n/evil.example', '/a\r\nSet-Cookie: x=1', '/a\u0000b', '/a\u2028b', '/a\u2029b',
    '/.//evil.example', '/\\evil.example', '/\\/evil.example', '/%09/x ', ' /risks', 'https://evil.example/', '/\u00a0/evil.example',
  ];

  test('a return address that leaves this site or holds whitespace or control characters goes to the start page: signed-in GET', async () => {
    const user = await makeUser(env, { 'risks:read': 'all' });
    const b = await signedInBrowser(env, user.email, user.password);
    for (const next of leaving) {
      const res = await b.get(`/sign-in?next=${encodeURIComponent(next)}`);
      expect(res.status, JSON.stringify(next)).toBe(303);
      expect(res.headers.get('location'), JSON.stringify(next)).toBe('/');
    }
    const kept = await b.get(`/sign-in?next=${encodeURIComponent('/risks?status=open#list')}`);
    expect(kept.headers.get('location')).toBe('/risks?status=open#list');
  });

  test('a return address that leaves this site or holds whitespace or control characters goes to the start page: the form', async () => {
    const user = await makeUser(env, {});
    for (const next of leaving) {
      const page = await browser(env).get(`/sign-in?next=${encodeURIComponent(next)}`);
      expect(page.status, JSON.stringify(next)).toBe(200);
      expect(await page.text()).toContain('name="next" value="/"');
      const res = await browser(env).post('/sign-in', { email: user.email, password: user.password, next });
      expect(res.status, JSON.stringify(next)).toBe(303);
      expect(res.headers.get('location'), JSON.stringify(next)).toBe('/');
    }
  }, 60_000);
});

describe('sessions', () => {
  test('a page without a session redirects to sign-in with the page to return to', async () => {
    const res = await browser(env).get('/settings/users?x=1');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/sign-in?next=${encodeURIComponent('/settings/users?x=1')}`);
  });

  test('sign-out deletes the session row, clears the cookie, and the old cookie no longer works', async () => {
    const user = await makeUser(env, { 'settings:read': 'all' });
    const b = await signedInBrowser(env, user.email, user.password);
    const oldCookie = b.cookie!;
    expect((await b.get('/settings/users')).status).toBe(200);
    const res = await b.post('/sign-out', {});
    expect(res.status).toBe(303);
    expect(sessionCookieOf(res)?.value).toBe('');
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    const after = await env.request('/settings/users', { headers: { cookie: oldCookie }, redirect: 'manual' });
    expect(after.status).toBe(303);
    const audit = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'signout'), eq(auditLog.recordId, user.id)));
    expect(audit).toHaveLength(1);
  });

  test('deactivating a user ends their session at once', async () => {
    const user = await makeUser(env, { 'settings:read': 'all' });
    const b = await signedInBrowser(env, user.email, user.password);
    expect((await b.get('/settings/users')).status).toBe(200);
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await admin.post(`/settings/users/${user.id}/status`, { status: 'deactivated' });
    expect(res.status, await res.text()).toBe(303);
    const next = await b.get('/settings/users');
    expect(next.status).toBe(303);
    expect(next.headers.get('location')).toStartWith('/sign-in');
  });

  test('an htmx request without a session is told to navigate to sign-in rather than swap it in', async () => {
    const res = await browser(env).get('/settings/users', { 'hx-request': 'true' });
    expect(res.headers.get('hx-redirect')).toStartWith('/sign-in?next=');
  });

  test('a page the viewer has no right to is refused 403 and audited', async () => {
    const user = await makeUser(env, { 'risks:read': 'all' });
    const b = await signedInBrowser(env, user.email, user.password);
    const res = await b.get('/settings/users');
    expect(res.status).toBe(403);
    const denied = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'permission.denied'), eq(auditLog.actorUserId, user.id)));
    expect(denied.length).toBeGreaterThan(0);
  });
});

describe('CSRF', () => {
  test('a POST carrying the session cookie but no CSRF token is refused 403 and changes nothing', async () => {
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const user = await makeUser(env, {});
    const refused = await admin.post(`/settings/users/${user.id}/status`, { status: 'deactivated' }, { csrf: false });
    expect(refused.status).toBe(403);
    const wrong = await admin.post(`/settings/users/${user.id}/status`, { status: 'deactivated', _csrf: 'x'.repeat(43) }, { csrf: false });
    expect(wrong.status).toBe(403);
    expect((await browser(env).post('/sign-in', { email: user.email, password: user.password })).status).toBe(303);
  });

  test('the token is accepted in the x-csrf-token header (htmx) as well as the form field', async () => {
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const user = await makeUser(env, {});
    const res = await admin.post(`/settings/users/${user.id}/status`, { status: 'deactivated' }, { csrf: false, headers: { 'x-csrf-token': admin.csrf! } });
    expect(res.status).toBe(303);
    expect((await browser(env).post('/sign-in', { email: user.email, password: user.password })).status).toBe(401);
  });

  test('the shell carries the token for htmx and shows only the links the viewer may open', async () => {
    const user = await makeUser(env, { 'settings:read': 'own', 'risks:read': 'all' });
    const b = await signedInBrowser(env, user.email, user.password);
    const html = await (await b.get('/settings/users')).text();
    expect(html).toContain(`hx-headers="{&#34;x-csrf-token&#34;:&#34;${b.csrf}&#34;}"`);
    expect(html).toContain('href="/settings/users"');
    expect(html).toContain('href="/risks"');
    expect(html).not.toContain('href="/settings/api-tokens"');
    expect(html).not.toContain('href="/settings/audit"');
    expect(html).toContain('<script src="/static/htmx.min.js"');
  });

  test('a sign-in form posted from another site is refused', async () => {
    const user = await makeUser(env, {});
    const res = await browser(env).post('/sign-in', { email: user.email, password: user.password }, { headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
  });
});

describe('static files', () => {
  test('serves files from static/ and nothing outside it', async () => {
    const css = await env.request('/static/app.css');
    expect(css.status).toBe(200);
    expect(await css.text()).toContain('.topbar');
    for (const path of ['/static/../package.json', '/static/%2e%2e/package.json', '/static/.env', '/static/nope.js']) {
      expect((await env.request(path)).status, path).toBe(404);
    }
  });
});
