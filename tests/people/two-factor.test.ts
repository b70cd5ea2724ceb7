import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { auditLog, loginAttempts, pendingSignIns, sessions, userTwoFactor } from '../../db/schema';
import { beginEnrolment, confirmEnrolment, setTwoFactorRule, twoFactorStatus, WRONG_CODE, REPLAYED_CODE } from '../../src/modules/people/two-factor/service';
import { CHECKS_THROTTLED_MESSAGE, MAX_FAILURES_PER_EMAIL, startSession, THROTTLE_WINDOW_MINUTES } from '../../src/platform/http/sessions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, testEnv, type TestEnv } from '../helpers/app';
import { parseSetCookie } from '../helpers/browser';
import { adminActor, makeToken, makeUser, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

/** The code an authenticator app shows `steps` 30-second steps from now (1: the next code, accepted one step early). */
const codeOf = (secret: string, steps = 1) =>
  TOTP.generate({ secret: Secret.fromBase32(secret.replaceAll(' ', '')), timestamp: Date.now() + steps * 30_000 });

/** A browser that keeps every cookie (the session and the pending second step) and the page's CSRF token. */
function browserOf(target: TestEnv) {
  const cookies = new Map<string, string>();
  let csrf: string | null = null;
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await target.request(path, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie().map(parseSetCookie)) {
      if (c.value) cookies.set(c.name, c.value);
      else cookies.delete(c.name);
    }
    const text = await res.clone().text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
    return res;
  };
  return {
    cookies,
    get: (path: string) => send(path),
    post: (path: string, form: Record<string, string>) => {
      const body = new URLSearchParams(form);
      if (csrf && cookies.has('grc_session')) body.set('_csrf', csrf);
      return send(path, { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    },
  };
}

/** Enrols through the service, as the person: the secret is read from what beginEnrolment answers. */
async function enrol(target: TestEnv, user: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const actor = await user.actor();
  const { secret } = await target.ctx.db.transaction((tx) => beginEnrolment(tx, actor, target.ctx.config));
  const { recoveryCodes } = await target.ctx.db.transaction((tx) => confirmEnrolment(tx, actor, codeOf(secret, 0), target.ctx.config));
  return { secret, recoveryCodes };
}

const auditOf = async (target: TestEnv, action: string, userId: string) =>
  target.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, action), eq(auditLog.recordId, userId))).orderBy(auditLog.seq);

describe('enrolment', () => {
  test('shows a QR code and the key, and turns on only after a valid code; the ten recovery codes are shown once', async () => {
    const user = await makeUser(env, { 'risks:read': 'all' });
    const b = browserOf(env);
    expect((await b.post('/sign-in', { email: user.email, password: user.password })).status).toBe(303);
    const settings = await b.get('/settings/two-factor');
    expect(await settings.text()).toContain('Set up two-factor sign-in');

    const begun = await b.post('/settings/two-factor/begin', {});
    const page = await begun.text();
    expect(begun.status, page).toBe(200);
    expect(page).toContain('<svg role="img" aria-label="QR code');
    const secret = /id="two-factor-key">([A-Z2-7 ]+)</.exec(page)![1];
    expect(secret.replaceAll(' ', '')).toHaveLength(32); // 20 bytes in base32

    const wrong = await b.post('/settings/two-factor/confirm', { code: codeOf(secret, 5) });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('is not the current code');
    expect((await twoFactorStatus(env.ctx.db, user.id)).enrolled).toBe(false);

    const confirmed = await b.post('/settings/two-factor/confirm', { code: codeOf(secret, 0) });
    const shown = await confirmed.text();
    expect(confirmed.status, shown).toBe(200);
    const codes = [...shown.matchAll(/<li><code>([A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4})<\/code><\/li>/g)].map((m) => m[1]);
    expect(new Set(codes).size).toBe(10);
    expect(await twoFactorStatus(env.ctx.db, user.id)).toMatchObject({ enrolled: true, recoveryCodesLeft: 10 });
    // Only hashes and the (unencrypted here, no ENCRYPTION_KEY) secret are stored; the page never shows the key again.
    const after = await (await b.get('/settings/two-factor')).text();
    expect(after).not.toContain(secret);
    expect(after).toContain('10 of 10');
    expect(await auditOf(env, 'twoFactor.enable', user.id)).toHaveLength(1);
  });

  test('with ENCRYPTION_KEY the stored secret is AES-GCM ciphertext and codes still work', async () => {
    const own = await startTestEnv({ ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
    try {
      const user = await makeUser(own, {});
      const { secret } = await enrol(own, user);
      const [row] = await own.ctx.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, user.id));
      expect(row.secret.startsWith('gcm1:')).toBe(true);
      expect(row.secret).not.toContain(secret);
      const b = browserOf(own);
      await b.post('/sign-in', { email: user.email, password: user.password });
      expect((await b.post('/sign-in/two-factor', { code: codeOf(secret) })).status).toBe(303);
    } finally {
      await own.ctx.close();
    }
  });
});

describe('signing in with a second factor', () => {
  test('the password alone opens no session: a code does, from the same browser only', async () => {
    const user = await makeUser(env, { 'risks:read': 'all' });
    const { secret } = await enrol(env, user);
    const b = browserOf(env);
    const first = await b.post('/sign-in', { email: user.email, password: user.password, next: '/risks' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/sign-in/two-factor');
    expect(b.cookies.has('grc_session')).toBe(false);
    const pendingCookie = first.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === 'grc_sign_in_step')!;
    expect(pendingCookie.attributes.has('httponly')).toBe(true);
    expect(pendingCookie.attributes.get('samesite')?.toLowerCase()).toBe('strict');
    // The pending sign-in is no session.
    const risks = await b.get('/risks');
    expect(risks.status).toBe(303);
    expect(risks.headers.get('location')).toStartWith('/sign-in');
    expect(await (await b.get('/sign-in/two-factor')).text()).toContain('authenticator app');

    // Another browser without the cookie cannot finish it.
    const other = browserOf(env);
    expect((await other.post('/sign-in/two-factor', { code: codeOf(secret) })).status).toBe(410);

    const done = await b.post('/sign-in/two-factor', { code: codeOf(secret) });
    expect(done.status, await done.text()).toBe(303);
    expect(done.headers.get('location')).toBe('/risks');
    expect(b.cookies.has('grc_session')).toBe(true);
    expect(b.cookies.has('grc_sign_in_step')).toBe(false);
    expect((await b.get('/risks')).status).toBe(200);
    const [signin] = await auditOf(env, 'signin', user.id);
    expect(signin.details).toMatchObject({ secondFactor: 'authenticator code' });
  });

  test(`a wrong code is refused and audited; wrong codes count like wrong passwords (paused after ${MAX_FAILURES_PER_EMAIL} failures)`, async () => {
    const user = await makeUser(env, {});
    const { secret } = await enrol(env, user);
    const b = browserOf(env);
    await b.post('/sign-in', { email: user.email, password: user.password });
    // The password's own attempt counts until the second step succeeds, so four wrong codes reach the limit.
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL - 1; i += 1) {
      const wrong = await b.post('/sign-in/two-factor', { code: codeOf(secret, 10 + i) });
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain(WRONG_CODE.slice(0, 30));
    }
    const paused = await b.post('/sign-in/two-factor', { code: codeOf(secret) });
    expect(paused.status).toBe(429);
    expect(await paused.text()).toContain('Too many failed sign-in attempts');
    expect(b.cookies.has('grc_session')).toBe(false);
    // Signing in again with the password is paused too.
    expect((await browserOf(env).post('/sign-in', { email: user.email, password: user.password })).status).toBe(429);
    const refused = await auditOf(env, 'signin.failed', user.id);
    expect(refused.map((r) => (r.details as { reason: string }).reason).sort()).toEqual([
      ...Array(MAX_FAILURES_PER_EMAIL - 1).fill('wrong second-factor code'), 'throttled',
    ].sort());
  });

  test('a code already used is refused (replay), and so is an older one', async () => {
    const user = await makeUser(env, {});
    const { secret } = await enrol(env, user);
    const code = codeOf(secret);
    const first = browserOf(env);
    await first.post('/sign-in', { email: user.email, password: user.password });
    expect((await first.post('/sign-in/two-factor', { code })).status).toBe(303);

    const second = browserOf(env);
    await second.post('/sign-in', { email: user.email, password: user.password });
    const replay = await second.post('/sign-in/two-factor', { code });
    expect(replay.status).toBe(401);
    expect(await replay.text()).toContain(REPLAYED_CODE);
    expect((await second.post('/sign-in/two-factor', { code: codeOf(secret, 0) })).status).toBe(401);
    expect(second.cookies.has('grc_session')).toBe(false);
    const reasons = (await auditOf(env, 'signin.failed', user.id)).map((r) => (r.details as { reason: string }).reason);
    expect(reasons).toEqual(['second-factor code used again', 'second-factor code used again']);
  });

  test('the same code sent from two browsers at once signs in only one of them', async () => {
    const user = await makeUser(env, {});
    const { secret } = await enrol(env, user);
    const [one, two] = [browserOf(env), browserOf(env)];
    await one.post('/sign-in', { email: user.email, password: user.password });
    await two.post('/sign-in', { email: user.email, password: user.password });
    const code = codeOf(secret);
    const answers = await Promise.all([one.post('/sign-in/two-factor', { code }), two.post('/sign-in/two-factor', { code })]);
    expect(answers.map((r) => r.status).sort()).toEqual([303, 401]);
  });

  test('a pending sign-in older than five minutes is gone: sign in again', async () => {
    const user = await makeUser(env, {});
    const { secret } = await enrol(env, user);
    const b = browserOf(env);
    await b.post('/sign-in', { email: user.email, password: user.password });
    await env.ctx.db.update(pendingSignIns).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(pendingSignIns.userId, user.id));
    const late = await b.post('/sign-in/two-factor', { code: codeOf(secret) });
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('Sign in again');
    expect(b.cookies.has('grc_session')).toBe(false);
    expect((await b.get('/sign-in/two-factor')).headers.get('location')).toBe('/sign-in');
  });

  test('a recovery code signs in once, audited', async () => {
    const user = await makeUser(env, {});
    const { recoveryCodes } = await enrol(env, user);
    const b = browserOf(env);
    await b.post('/sign-in', { email: user.email, password: user.password });
    expect((await b.post('/sign-in/two-factor', { code: recoveryCodes[3].toLowerCase() })).status).toBe(303);
    const [used] = await auditOf(env, 'twoFactor.recoveryCodeUsed', user.id);
    expect(used.details).toMatchObject({ recoveryCodesLeft: 9 });

    const again = browserOf(env);
    await again.post('/sign-in', { email: user.email, password: user.password });
    expect((await again.post('/sign-in/two-factor', { code: recoveryCodes[3] })).status).toBe(401);
    expect((await again.post('/sign-in/two-factor', { code: recoveryCodes[4] })).status).toBe(303);
    expect((await twoFactorStatus(env.ctx.db, user.id)).recoveryCodesLeft).toBe(8);
  });

  test('API tokens are unaffected by the second factor', async () => {
    const user = await makeUser(env, { 'risks:read': 'all', 'apiTokens:create': 'own' });
    await enrol(env, user);
    const token = await makeToken(env, await user.actor('api'), ['risks:read']);
    const res = await env.request('/api/v1/risks', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });
});

/** A person with a second factor, signed in with a code or a recovery code, on their two-factor page. */
async function signedInWithSecondFactor(via: 'code' | 'recovery code') {
  const user = await makeUser(env, {});
  const { secret, recoveryCodes } = await enrol(env, user);
  const b = browserOf(env);
  await b.post('/sign-in', { email: user.email, password: user.password });
  const usedCode = via === 'code' ? codeOf(secret) : recoveryCodes[0];
  await b.post('/sign-in/two-factor', { code: usedCode });
  await b.get('/settings/two-factor');
  return { user, secret, recoveryCodes, b, usedCode };
}

describe('turning it off, new recovery codes, and an administrator reset', () => {
  test('turning off needs the current password and a code; audited', async () => {
    const { user, recoveryCodes, b, usedCode: signInCode } = await signedInWithSecondFactor('code');

    const wrongPassword = await b.post('/settings/two-factor/disable', { currentPassword: 'not my password at all', code: recoveryCodes[0] });
    expect(wrongPassword.status).toBe(400);
    expect(await wrongPassword.text()).toContain('is not your current password');
    // The code just used to sign in cannot be used again (the same code, not one computed again: the step may have moved).
    const usedCode = await b.post('/settings/two-factor/disable', { currentPassword: user.password, code: signInCode });
    expect(usedCode.status).toBe(400);
    expect(await usedCode.text()).toContain('is not a current code or an unused recovery code');
    expect((await twoFactorStatus(env.ctx.db, user.id)).enrolled).toBe(true);

    const off = await b.post('/settings/two-factor/disable', { currentPassword: user.password, code: recoveryCodes[0] });
    expect(off.status, await off.text()).toBe(303);
    expect((await twoFactorStatus(env.ctx.db, user.id)).enrolled).toBe(false);
    expect(await auditOf(env, 'twoFactor.disable', user.id)).toHaveLength(1);
    // The next sign-in needs the password only.
    const next = await browserOf(env).post('/sign-in', { email: user.email, password: user.password, next: '/settings' });
    expect(next.headers.get('location')).toBe('/settings');
  });

  test('new recovery codes need a code; the old ones stop working', async () => {
    const { user, secret, recoveryCodes, b } = await signedInWithSecondFactor('recovery code');
    expect((await b.post('/settings/two-factor/recovery-codes', { code: '12345' })).status).toBe(400);
    const made = await b.post('/settings/two-factor/recovery-codes', { code: codeOf(secret) });
    expect(made.status).toBe(200);
    expect([...(await made.text()).matchAll(/<li><code>/g)]).toHaveLength(10);
    const old = browserOf(env);
    await old.post('/sign-in', { email: user.email, password: user.password });
    expect((await old.post('/sign-in/two-factor', { code: recoveryCodes[1] })).status).toBe(401);
  });

  test(`guesses on these signed-in pages count like wrong sign-ins: after ${MAX_FAILURES_PER_EMAIL} even the right code and password are refused (429), sign-in too`, async () => {
    const { user, secret, b } = await signedInWithSecondFactor('code');
    const farOff = codeOf(secret, 20);
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i += 1) {
      const wrong = await b.post('/settings/two-factor/recovery-codes', { code: farOff });
      expect(wrong.status).toBe(400);
    }
    const right = await b.post('/settings/two-factor/recovery-codes', { code: codeOf(secret, 1) });
    expect(right.status).toBe(429);
    expect(await right.text()).toContain(CHECKS_THROTTLED_MESSAGE);
    expect((await b.post('/settings/two-factor/disable', { currentPassword: user.password, code: codeOf(secret, 1) })).status).toBe(429);
    expect((await twoFactorStatus(env.ctx.db, user.id)).enrolled).toBe(true);
    expect((await browserOf(env).post('/sign-in', { email: user.email, password: user.password })).status).toBe(429);
    const checks = await auditOf(env, 'check.failed', user.id);
    expect(checks.map((c) => (c.details as { reason: string }).reason)).toEqual([...Array(MAX_FAILURES_PER_EMAIL).fill('wrong'), 'throttled', 'throttled']);
    expect(checks[0].details).toMatchObject({ what: 'two-factor code' });
  });

  test(`turning off with a wrong password: after ${MAX_FAILURES_PER_EMAIL}, even the right password and code are refused (429)`, async () => {
    const { user, secret, recoveryCodes, b } = await signedInWithSecondFactor('code');
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i += 1) {
      const wrong = await b.post('/settings/two-factor/disable', { currentPassword: `guess number ${i}`, code: codeOf(secret, 20) });
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('is not your current password');
    }
    const right = await b.post('/settings/two-factor/disable', { currentPassword: user.password, code: recoveryCodes[0] });
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toBe(String(THROTTLE_WINDOW_MINUTES * 60));
    expect(await right.text()).toContain(CHECKS_THROTTLED_MESSAGE);
    expect((await twoFactorStatus(env.ctx.db, user.id)).enrolled).toBe(true);
    // Refused for the pause alone: once it is over, the same password and recovery code turn it off.
    await env.ctx.db.delete(loginAttempts).where(eq(loginAttempts.email, user.email.toLowerCase()));
    expect((await b.post('/settings/two-factor/disable', { currentPassword: user.password, code: recoveryCodes[0] })).status).toBe(303);
    const checks = await auditOf(env, 'check.failed', user.id);
    expect(checks.map((c) => c.details)).toEqual([
      ...Array(MAX_FAILURES_PER_EMAIL).fill(expect.objectContaining({ what: 'current password and two-factor code', reason: 'wrong' })),
      expect.objectContaining({ what: 'current password and two-factor code', reason: 'throttled' }),
    ]);
  });

  test('knowing the password buys no more code guesses: a password change between them does not restart the count', async () => {
    const { user, secret, b } = await signedInWithSecondFactor('recovery code');
    const guess = () => b.post('/settings/two-factor/disable', { currentPassword: user.password, code: codeOf(secret, 20) });
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL - 1; i += 1) expect((await guess()).status).toBe(400);
    await b.get('/settings/password');
    expect((await b.post('/settings/password', { currentPassword: user.password, newPassword: 'a brand new passphrase' })).status).toBe(303);
    await b.get('/settings/two-factor');
    const last = await b.post('/settings/two-factor/disable', { currentPassword: 'a brand new passphrase', code: codeOf(secret, 20) });
    expect(last.status).toBe(400);
    expect((await b.post('/settings/two-factor/disable', { currentPassword: 'a brand new passphrase', code: codeOf(secret, 1) })).status).toBe(429);
    expect((await auditOf(env, 'check.failed', user.id)).map((c) => (c.details as { what: string }).what))
      .toEqual([...Array(MAX_FAILURES_PER_EMAIL).fill('current password and two-factor code'), 'current password and two-factor code']);
  });

  test('turning off with the right password and wrong codes is paused too: the password alone does not restart the count', async () => {
    const { user, secret, b } = await signedInWithSecondFactor('code');
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i += 1) {
      const wrongCode = await b.post('/settings/two-factor/disable', { currentPassword: user.password, code: codeOf(secret, 20) });
      expect(wrongCode.status).toBe(400);
      expect(await wrongCode.text()).toContain('is not a current code or an unused recovery code');
    }
    expect((await b.post('/settings/two-factor/disable', { currentPassword: user.password, code: codeOf(secret, 2) })).status).toBe(429);
    expect((await twoFactorStatus(env.ctx.db, user.id)).enrolled).toBe(true);
  });

  test("an administrator resets a person's second factor from their Edit page: audited, their sessions end", async () => {
    const user = await makeUser(env, {});
    const { secret } = await enrol(env, user);
    const person = browserOf(env);
    await person.post('/sign-in', { email: user.email, password: user.password });
    await person.post('/sign-in/two-factor', { code: codeOf(secret) });
    expect((await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).length).toBe(1);

    // Someone with settings:update at level own may not.
    const helper = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'own' });
    const h = browserOf(env);
    await h.post('/sign-in', { email: helper.email, password: helper.password });
    await h.get('/settings');
    expect(await refusalOf(env, async () => h.post(`/settings/users/${user.id}/two-factor/reset`, {}))).toEqual(refusedWith(403, undefined, 'settings:update at level all needed to reset a second factor'));

    const admin = browserOf(env);
    await admin.post('/sign-in', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(await (await admin.get(`/settings/users/${user.id}`)).text()).toContain(`/settings/users/${user.id}/two-factor`);
    expect(await (await admin.get(`/settings/users/${user.id}/two-factor`)).text()).toContain('Reset second factor');
    const reset = await admin.post(`/settings/users/${user.id}/two-factor/reset`, {});
    expect(reset.status).toBe(303);
    expect((await twoFactorStatus(env.ctx.db, user.id)).enrolled).toBe(false);
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    expect((await person.get('/settings/two-factor')).status).toBe(303);
    const [audited] = await auditOf(env, 'twoFactor.reset', user.id);
    expect(audited.details).toMatchObject({ sessionsEnded: 1 });
    expect(audited.actorUserId).toBe((await adminActor(env)).userId);
  });
});

describe('the rule: required for administrators', () => {
  let own: TestEnv;
  beforeAll(async () => {
    // Its own service: the rule applies to every sign-in, and the shared service's tests sign in as the administrator.
    own = await startTestEnv();
  }, 60_000);
  afterAll(async () => {
    await own?.ctx.close();
  });

  test('only settings:update at level all sets it, on Settings › Sessions; audited', async () => {
    const helper = await makeUser(own, { 'settings:read': 'all', 'settings:update': 'own' });
    const h = browserOf(own);
    await h.post('/sign-in', { email: helper.email, password: helper.password });
    await h.get('/settings/sessions');
    expect((await h.post('/settings/two-factor/rule', { twoFactorRule: 'everyone' })).status).toBe(403);

    const admin = browserOf(own);
    await admin.post('/sign-in', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(await (await admin.get('/settings/sessions')).text()).toContain('name="twoFactorRule"');
    expect((await admin.post('/settings/two-factor/rule', { twoFactorRule: 'sometimes' })).status).toBe(400);
    expect((await admin.post('/settings/two-factor/rule', { twoFactorRule: 'administrators' })).status).toBe(303);
    const [entry] = await own.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordType, 'setting'), eq(auditLog.recordId, 'twoFactor')));
    expect(entry.details).toMatchObject({ changes: { required: { before: 'nobody', after: 'administrators' } } });
  });

  test('requiring it ends the sessions of the people it now covers who have no second factor; the one in use and everyone else stay', async () => {
    const admin = await adminActor(own);
    await own.ctx.db.transaction((tx) => setTwoFactorRule(tx, admin, 'nobody'));
    const administratorRights = { 'settings:read': 'all', 'settings:update': 'all' } as const;
    const [without, enrolled, reader, saver] = [
      await makeUser(own, administratorRights), await makeUser(own, administratorRights), await makeUser(own, { 'risks:read': 'all' }), await makeUser(own, administratorRights),
    ];
    const signedIn = async (user: TestUser) => {
      const b = browserOf(own);
      expect((await b.post('/sign-in', { email: user.email, password: user.password })).status).toBe(303);
      expect(b.cookies.has('grc_session')).toBe(true);
      return b;
    };
    const [withoutBrowser, enrolledBrowser, readerBrowser, saverBrowser] = [await signedIn(without), await signedIn(enrolled), await signedIn(reader), await signedIn(saver)];
    await enrol(own, enrolled);
    // An administrator signed in through the identity provider: the rule asks password sign-ins only.
    const viaProvider = await makeUser(own, administratorRights);
    await own.ctx.db.transaction((tx) => startSession(tx, viaProvider.id, viaProvider.email, 8, { method: 'oidc' }, 'oidc'));

    await saverBrowser.get('/settings/sessions');
    expect((await saverBrowser.post('/settings/two-factor/rule', { twoFactorRule: 'administrators' })).status).toBe(303);
    expect((await withoutBrowser.get('/settings/sessions')).status).toBe(303);
    expect((await enrolledBrowser.get('/settings/sessions')).status).toBe(200);
    expect((await readerBrowser.get('/risks')).status).toBe(200);
    expect((await saverBrowser.get('/settings/sessions')).status).toBe(200);
    expect(await own.ctx.db.select().from(sessions).where(eq(sessions.userId, viaProvider.id))).toHaveLength(1);
    const [entry] = await own.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordType, 'setting'), eq(auditLog.recordId, 'twoFactor'))).orderBy(desc(auditLog.seq)).limit(1);
    expect((entry.details as { sessionsEnded: number }).sessionsEnded).toBeGreaterThanOrEqual(1);

    // Everyone: the reader's session ends too; the enrolled administrator's stays.
    expect((await saverBrowser.post('/settings/two-factor/rule', { twoFactorRule: 'everyone' })).status).toBe(303);
    expect((await readerBrowser.get('/risks')).status).toBe(303);
    expect((await enrolledBrowser.get('/settings/sessions')).status).toBe(200);
  });

  test('an administrator without a second factor must enrol right after the password, and can do nothing else first', async () => {
    const admin = await adminActor(own);
    await own.ctx.db.transaction((tx) => setTwoFactorRule(tx, admin, 'administrators'));
    const administrator = await makeUser(own, { 'settings:read': 'all', 'settings:update': 'all', 'risks:read': 'all' });
    const b = browserOf(own);
    const first = await b.post('/sign-in', { email: administrator.email, password: administrator.password, next: '/risks' });
    expect(first.headers.get('location')).toBe('/sign-in/two-factor/enrol');
    expect(b.cookies.has('grc_session')).toBe(false);
    expect((await b.get('/risks')).status).toBe(303);
    expect((await b.get('/sign-in/two-factor')).headers.get('location')).toBe('/sign-in/two-factor/enrol');

    const page = await (await b.get('/sign-in/two-factor/enrol')).text();
    expect(page).toContain('<svg role="img"');
    const secret = /id="two-factor-key">([A-Z2-7 ]+)</.exec(page)![1];
    // Showing the page again keeps the same key (an app that already scanned it still matches).
    expect(await (await b.get('/sign-in/two-factor/enrol')).text()).toContain(secret);
    const wrong = await b.post('/sign-in/two-factor/enrol', { code: codeOf(secret, 6) });
    expect(wrong.status).toBe(400);
    expect(b.cookies.has('grc_session')).toBe(false);

    const enrolled = await b.post('/sign-in/two-factor/enrol', { code: codeOf(secret, 0) });
    const text = await enrolled.text();
    expect(enrolled.status, text).toBe(200);
    expect([...text.matchAll(/<li><code>/g)]).toHaveLength(10);
    expect(text).toContain('href="/risks"');
    expect(b.cookies.has('grc_session')).toBe(true);
    expect((await b.get('/risks')).status).toBe(200);
    expect((await twoFactorStatus(own.ctx.db, administrator.id)).enrolled).toBe(true);
    expect(await auditOf(own, 'twoFactor.enable', administrator.id)).toHaveLength(1);

    // Next time a code is asked for.
    const again = await browserOf(own).post('/sign-in', { email: administrator.email, password: administrator.password });
    expect(again.headers.get('location')).toBe('/sign-in/two-factor');
    // Someone who is no administrator signs in with the password alone.
    const reader = await makeUser(own, { 'risks:read': 'all' });
    const plain = await browserOf(own).post('/sign-in', { email: reader.email, password: reader.password, next: '/risks' });
    expect(plain.headers.get('location')).toBe('/risks');
    const [{ n }] = await own.ctx.db.select({ n: sql<number>`count(*)::int` }).from(userTwoFactor).where(eq(userTwoFactor.userId, reader.id));
    expect(n).toBe(0);
  });
});
