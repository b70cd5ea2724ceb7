import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { and, desc, eq } from 'drizzle-orm';
import { ADMINISTRATORS_GROUP } from '../../src/platform/modules/reference-data';
import { auditLog, groups, history, loginAttempts, pendingSignIns, sessions, settings, users } from '../../db/schema';
import { MAX_FAILURES_PER_EMAIL, startSession } from '../../src/platform/http/sessions';
import { Secret, TOTP } from 'otpauth';
import { beginEnrolment, confirmEnrolment } from '../../src/modules/people/two-factor/service';
import { addGroupMember, createPasswordResetLink, createUser, removeGroupMember, setUserStatus, usePasswordReset } from '../../src/modules/people/service';
import {
  prepareSignInSettings, saveSignInSettings, setBreakGlass, SSO_ONLY_NEEDS_BREAK_GLASS, SSO_ONLY_NEEDS_OIDC, ssoOnlyPasswordMessage,
} from '../../src/modules/people/sign-in/settings-service';
import { LAST_BREAK_GLASS, RESET_NEEDS_BREAK_GLASS, SSO_ONLY_KEY } from '../../src/modules/people/sign-in/break-glass';
import type { OidcSettingsInput } from '../../src/modules/people/sign-in/schema';
import { AppError } from '../../src/platform/core/errors';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, type TestEnv } from '../helpers/app';
import { browser, parseSetCookie, sessionCookieOf, signedInBrowser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider';

// Spec: "When only SSO sign-in is allowed, password sign-in is refused for everyone except break-glass administrators".

let env: TestEnv;
let provider: TestProvider;
let admin: Actor;
let administratorsGroup: string;

beforeAll(async () => {
  env = await startTestEnv();
  provider = await startOidcProvider({ redirectUris: ['http://localhost/sign-in/oidc/callback'] });
  admin = await adminActor(env);
  [{ id: administratorsGroup }] = await env.ctx.db.select({ id: groups.id }).from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

const PASSWORD = 'a long enough password';

async function makeAdministrator(): Promise<{ id: string; email: string }> {
  const email = `${unique('admin')}@test.example`;
  const { id } = await env.ctx.db.transaction(async (tx) => {
    const made = await createUser(tx, admin, { email, name: 'Second administrator', password: PASSWORD });
    await addGroupMember(tx, admin, administratorsGroup, made.id);
    return made;
  });
  return { id, email };
}

async function saveSettings(overrides: Partial<OidcSettingsInput>) {
  const prepared = await prepareSignInSettings(env.ctx.db, admin, {
    enabled: true, providerName: 'Contoso SSO', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret,
    emailClaim: 'email', trustUnverifiedEmail: false, jitEnabled: false, jitGroupId: '', ssoOnly: false, ...overrides,
  }, env.ctx.config);
  await env.ctx.db.transaction((tx) => saveSignInSettings(tx, admin, prepared));
}

async function refusal(work: () => Promise<unknown>): Promise<AppError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const setFlag = (userId: string, on: boolean, actor = admin) => env.ctx.db.transaction((tx) => setBreakGlass(tx, actor, userId, on));

/** Every test starts with password sign-in allowed and no break-glass administrator. */
beforeEach(async () => {
  await saveSettings({ ssoOnly: false });
  await env.ctx.db.update(users).set({ breakGlass: false });
});

describe('break-glass administrators', () => {
  test('an administrator marks another administrator on their user page; audited with History', async () => {
    const second = await makeAdministrator();
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await (await b.get(`/settings/users/${second.id}`)).text();
    expect(page).toContain('Mark as break-glass administrator');
    const res = await b.post(`/settings/users/${second.id}/break-glass`, { breakGlass: 'on' });
    expect(res.status, await res.clone().text()).toBe(303);
    expect(await (await b.get(`/settings/users/${second.id}`)).text()).toContain('Marked break-glass.');
    const [entry] = await env.ctx.db.select().from(history).where(and(eq(history.recordId, second.id), eq(history.action, 'update'))).orderBy(desc(history.id)).limit(1);
    expect(entry.changes).toEqual({ breakGlass: { before: false, after: true } });
    const [audit] = await env.ctx.db.select().from(auditLog).where(eq(auditLog.seq, entry.auditSeq!));
    expect(audit.actorUserId).toBe(admin.userId);
  });

  test('the Users list tags break-glass administrators', async () => {
    const second = await makeAdministrator();
    await env.ctx.db.transaction((tx) => setBreakGlass(tx, admin, second.id, true));
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const list = await (await b.get('/settings/users')).text();
    const row = list.slice(list.indexOf(second.email) - 400, list.indexOf(second.email));
    expect(row).toContain('>break-glass</span>');
  });

  test('only administrators can be marked, and only by an administrator', async () => {
    const person = await makeUser(env, { 'settings:update': 'all' });
    const notAdmin = await refusal(() => setFlag(person.id, true));
    expect(notAdmin.status).toBe(409);
    expect(notAdmin.message).toContain('is not an administrator');
    const second = await makeAdministrator();
    const limited = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'own' });
    expect((await refusal(async () => setFlag(second.id, true, await limited.actor()))).status).toBe(403);
    const b = await signedInBrowser(env, person.email, person.password);
    const refused = await b.post(`/settings/users/${person.id}/break-glass`, { breakGlass: 'on' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('is not an administrator');
  });
});

describe('turning "Only SSO sign-in" on', () => {
  test('is refused until OpenID Connect is on and an active break-glass administrator exists', async () => {
    const noBreakGlass = await refusal(() => saveSettings({ ssoOnly: true }));
    expect(noBreakGlass.status).toBe(409);
    expect(noBreakGlass.message).toBe(SSO_ONLY_NEEDS_BREAK_GLASS);
    const second = await makeAdministrator();
    await setFlag(second.id, true);
    const noOidc = await refusal(() => saveSettings({ enabled: false, ssoOnly: true }));
    expect(noOidc.message).toBe(SSO_ONLY_NEEDS_OIDC);
    await saveSettings({ ssoOnly: true });
    const [entry] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, 'sign-in'), eq(auditLog.action, 'update'))).orderBy(desc(auditLog.seq)).limit(1);
    expect((entry.details as { changes: Record<string, unknown> }).changes.ssoOnly).toEqual({ before: false, after: true });
  });

  test('ends every session but break-glass administrators\' and the one in use: the others sign in again through the provider', async () => {
    const person = await makeUser(env, { 'risks:read': 'all' });
    const personBrowser = await signedInBrowser(env, person.email, person.password);
    // Another has typed their password and is at the two-factor step when the switch happens.
    const midway = await makeUser(env, { 'risks:read': 'all' });
    const midwayActor = await midway.actor();
    const { secret } = await env.ctx.db.transaction((tx) => beginEnrolment(tx, midwayActor, env.ctx.config));
    await env.ctx.db.transaction((tx) => confirmEnrolment(tx, midwayActor, TOTP.generate({ secret: Secret.fromBase32(secret.replaceAll(' ', '')) }), env.ctx.config));
    expect((await browser(env).post('/sign-in', { email: midway.email, password: midway.password })).headers.get('location')).toBe('/sign-in/two-factor');
    const pendingOf = () => env.ctx.db.select().from(pendingSignIns).where(eq(pendingSignIns.userId, midway.id));
    expect(await pendingOf()).toHaveLength(1);
    // One signed in through the provider keeps working.
    const viaProvider = await makeUser(env, { 'risks:read': 'all' });
    await env.ctx.db.transaction((tx) => startSession(tx, viaProvider.id, viaProvider.email, 8, { method: 'oidc' }, 'oidc'));
    const rescuer = await makeAdministrator();
    const rescuerBrowser = await signedInBrowser(env, rescuer.email, PASSWORD);
    await setFlag(rescuer.id, true);
    const saving = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const elsewhere = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const saved = await saving.post('/settings/sign-in', {
      enabled: 'on', providerName: 'Contoso SSO', issuer: provider.issuer, clientId: provider.clientId, clientSecret: '', emailClaim: 'email', ssoOnly: 'on',
    });
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect((await personBrowser.get('/settings/password')).status).toBe(303);
    expect((await elsewhere.get('/settings/password')).status).toBe(303);
    expect((await rescuerBrowser.get('/settings/password')).status).toBe(200);
    expect((await saving.get('/settings/password')).status).toBe(200);
    expect(await pendingOf()).toHaveLength(0);
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, viaProvider.id))).toHaveLength(1);
    const [entry] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, 'sign-in'), eq(auditLog.action, 'update'))).orderBy(desc(auditLog.seq)).limit(1);
    expect((entry.details as { sessionsEnded: number }).sessionsEnded).toBeGreaterThanOrEqual(2);
    // Saved again while on, nothing more ends.
    const again = await signedInBrowser(env, rescuer.email, PASSWORD);
    await saveSettings({ ssoOnly: true });
    expect((await again.get('/settings/password')).status).toBe(200);
  });

  test('a password sign-in already past the switch at its second step opens no session', async () => {
    const person = await makeUser(env, { 'risks:read': 'all' });
    const actor = await person.actor();
    const { secret } = await env.ctx.db.transaction((tx) => beginEnrolment(tx, actor, env.ctx.config));
    const codeAt = (steps: number) => TOTP.generate({ secret: Secret.fromBase32(secret.replaceAll(' ', '')), timestamp: Date.now() + steps * 30_000 });
    await env.ctx.db.transaction((tx) => confirmEnrolment(tx, actor, codeAt(0), env.ctx.config));
    const first = await browser(env).post('/sign-in', { email: person.email, password: person.password });
    const step = first.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === 'grc_sign_in_step')!;
    // The switch is made as a code check that had already taken the waiting sign-in would see it.
    const breakGlassAdmin = await makeAdministrator();
    await setFlag(breakGlassAdmin.id, true);
    await env.ctx.db.update(settings).set({ value: true }).where(eq(settings.key, SSO_ONLY_KEY));
    const res = await env.request('/sign-in/two-factor', {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ code: codeAt(1) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `grc_sign_in_step=${step.value}` },
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('Only single sign-on is allowed here');
    expect(sessionCookieOf(res)).toBeUndefined();
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(0);
  });

  test('the screen shows the refusal beside the setting', async () => {
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await b.post('/settings/sign-in', {
      enabled: 'on', providerName: 'Contoso SSO', issuer: provider.issuer, clientId: provider.clientId, clientSecret: '', emailClaim: 'email', ssoOnly: 'on',
    });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('at least one active administrator is marked break-glass');
  });
});

describe('while only SSO sign-in is allowed', () => {
  let breakGlass: { id: string; email: string };
  beforeEach(async () => {
    breakGlass = await makeAdministrator();
    await setFlag(breakGlass.id, true);
    await saveSettings({ ssoOnly: true });
  });

  test('password sign-in is refused for everyone but break-glass administrators, with one clear message, audited', async () => {
    const person = await makeUser(env, { 'risks:read': 'all' });
    const message = ssoOnlyPasswordMessage('Contoso SSO');
    const refused = await browser(env).post('/sign-in', { email: person.email, password: person.password });
    expect(refused.status).toBe(401);
    expect(sessionCookieOf(refused)).toBeUndefined();
    const html = await refused.text();
    expect(html).toContain('Only single sign-on is allowed here');
    expect(html).toContain('Sign in with Contoso SSO');
    const [audit] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'signin.failed'), eq(auditLog.recordId, person.id)));
    expect(audit.details).toMatchObject({ reason: 'single sign-on only', email: person.email.toLowerCase() });

    // The first administrator is not break-glass either.
    expect((await browser(env).post('/sign-in', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status).toBe(401);
    // A break-glass administrator with a wrong password gets the same answer as everyone else ...
    const wrong = await browser(env).post('/sign-in', { email: breakGlass.email, password: 'not the right password' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain(message.slice(0, 40));
    // ... and with the right one signs in.
    const ok = await browser(env).post('/sign-in', { email: breakGlass.email.toUpperCase(), password: PASSWORD });
    expect(ok.status, await ok.clone().text()).toBe(303);
    expect(sessionCookieOf(ok)?.value).toBeTruthy();
  });

  test('the throttle does not tell who is break-glass: wrong passwords pause everyone after the same number of tries', async () => {
    const person = await makeUser(env, { 'risks:read': 'all' });
    const statuses = async (email: string) => {
      const seen: number[] = [];
      for (let i = 0; i < MAX_FAILURES_PER_EMAIL + 2; i += 1) seen.push((await browser(env).post('/sign-in', { email, password: `wrong guess ${i}` })).status);
      return seen;
    };
    const expected = [...Array(MAX_FAILURES_PER_EMAIL).fill(401), 429, 429];
    expect(await statuses(breakGlass.email)).toEqual(expected);
    expect(await statuses(person.email)).toEqual(expected);
    expect(await statuses(`${unique('nobody')}@test.example`)).toEqual(expected);
    await env.ctx.db.delete(loginAttempts).where(eq(loginAttempts.email, breakGlass.email.toLowerCase()));
  });

  test('the last break-glass administrator cannot lose the mark, be deactivated or leave Administrators (409)', async () => {
    const lose = await refusal(() => setFlag(breakGlass.id, false));
    expect(lose.status).toBe(409);
    expect(lose.message).toBe(LAST_BREAK_GLASS);
    const deactivate = await refusal(() => env.ctx.db.transaction((tx) => setUserStatus(tx, admin, breakGlass.id, 'deactivated')));
    expect(deactivate.message).toBe(LAST_BREAK_GLASS);
    const leave = await refusal(() => env.ctx.db.transaction((tx) => removeGroupMember(tx, admin, administratorsGroup, breakGlass.id)));
    expect(leave.message).toBe(LAST_BREAK_GLASS);
    const [still] = await env.ctx.db.select().from(users).where(eq(users.id, breakGlass.id));
    expect(still).toMatchObject({ breakGlass: true, status: 'active' });

    // Through the screen: a clear message, not an error page.
    const b = await signedInBrowser(env, breakGlass.email, PASSWORD);
    const res = await b.post(`/settings/users/${breakGlass.id}/break-glass`, { breakGlass: 'off' });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('At least one active break-glass administrator must remain');
    const leaving = await b.post(`/settings/groups/${administratorsGroup}/members/${breakGlass.id}/remove`, {});
    expect(leaving.status).toBe(409);
    expect(await leaving.text()).toContain('At least one active break-glass administrator must remain');

    // With a second one, the first can go.
    const other = await makeAdministrator();
    await setFlag(other.id, true);
    await setFlag(breakGlass.id, false);
  });

  test('password reset links are only for break-glass administrators', async () => {
    const person = await makeUser(env, {});
    const refused = await refusal(() => env.ctx.db.transaction((tx) => createPasswordResetLink(tx, admin, person.id, 'http://localhost')));
    expect(refused.status).toBe(409);
    expect(refused.message).toBe(RESET_NEEDS_BREAK_GLASS);
    const { link } = await env.ctx.db.transaction((tx) => createPasswordResetLink(tx, admin, breakGlass.id, 'http://localhost'));
    expect(link).toContain('/reset-password/');

    // A link made before SSO-only was turned on stops working for others.
    await saveSettings({ ssoOnly: false });
    const early = await env.ctx.db.transaction((tx) => createPasswordResetLink(tx, admin, person.id, 'http://localhost'));
    await saveSettings({ ssoOnly: true });
    const secret = early.link.split('/reset-password/')[1];
    const opened = await browser(env).get(`/reset-password/${secret}`);
    expect(opened.status).toBe(409);
    const page = await opened.text();
    expect(page).toContain('password reset links, are kept for break-glass administrators');
    expect(page).not.toContain('name="password"');
    const used = await refusal(() => env.ctx.db.transaction((tx) => usePasswordReset(tx, secret, 'another long enough password')));
    expect(used.message).toBe(RESET_NEEDS_BREAK_GLASS);
    const form = await browser(env).post(`/reset-password/${secret}`, { password: 'another long enough password' });
    expect(form.status).toBe(409);
    expect(await form.text()).toContain('password reset links, are kept for break-glass administrators');
  });

  test('turned off again, password sign-in works for everyone', async () => {
    const person = await makeUser(env, {});
    expect((await browser(env).post('/sign-in', { email: person.email, password: person.password })).status).toBe(401);
    await saveSettings({ ssoOnly: false });
    expect((await browser(env).post('/sign-in', { email: person.email, password: person.password })).status).toBe(303);
  });
});
