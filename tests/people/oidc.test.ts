import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, sql } from 'drizzle-orm';
import { auditLog, groupMembers, history, outbox, roles, sessions, settings, users } from '../../db/schema';
import { assignRoleToGroup, createGroup, removeRoleFromGroup, setUserStatus } from '../../src/modules/people/service';
import { ADMINISTRATOR_ROLE } from '../../src/platform/modules/reference-data';
import { OIDC_MESSAGES } from '../../src/modules/people/sign-in/oidc';
import { OIDC_SETTINGS_KEY, oidcSettings, prepareSignInSettings, readSignInSettings, saveSignInSettings, withClientSecret } from '../../src/modules/people/sign-in/settings-service';
import type { OidcSettingsInput } from '../../src/modules/people/sign-in/schema';
import type { AppError } from '../../src/platform/core/errors';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, type TestEnv } from '../helpers/app';
import { parseSetCookie, signedInBrowser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { authorizeAtProvider, startOidcProvider, type AccountAnswer, type TestProvider } from '../helpers/oidc-provider';

const CALLBACK = 'http://localhost/sign-in/oidc/callback';
const ENCRYPTION_KEY = Buffer.alloc(32, 9).toString('base64');
let env: TestEnv;
let provider: TestProvider;
let admin: Actor;
let newPeopleGroup: string;

/** A service of its own: these tests turn single sign-on on, which the other files' password sign-ins must not meet. */
beforeAll(async () => {
  env = await startTestEnv({ ENCRYPTION_KEY });
  provider = await startOidcProvider({ redirectUris: [CALLBACK] });
  admin = await adminActor(env);
  ({ id: newPeopleGroup } = await env.ctx.db.transaction((tx) => createGroup(tx, admin, { name: unique('SSO newcomers') })));
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

const baseSettings = (): OidcSettingsInput => ({
  enabled: true, providerName: 'Test IdP', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret,
  emailClaim: 'email', trustUnverifiedEmail: false, jitEnabled: false, jitGroupId: '', ssoOnly: false,
});

async function configure(overrides: Partial<OidcSettingsInput> = {}) {
  const prepared = await prepareSignInSettings(env.ctx.db, admin, { ...baseSettings(), ...overrides }, env.ctx.config);
  await env.ctx.db.transaction((tx) => saveSignInSettings(tx, admin, prepared));
}

interface Started {
  authorizationUrl: string;
  state: string;
}

/** Opens "Sign in with …" as a browser would: the answer sends it to the provider and sets the state cookie. */
async function begin(next?: string): Promise<Started> {
  const res = await env.request(`/sign-in/oidc${next ? `?next=${encodeURIComponent(next)}` : ''}`, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(303);
  const cookie = res.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === 'grc_oidc_state')!;
  expect(cookie.attributes.has('httponly')).toBe(true);
  expect(cookie.attributes.get('samesite')?.toLowerCase()).toBe('lax');
  return { authorizationUrl: res.headers.get('location')!, state: cookie.value };
}

/** Delivers the provider's answer to the callback, with (or without) the browser's state cookie. */
const deliver = (callbackUrl: string, stateCookie?: string) => {
  const url = new URL(callbackUrl);
  return env.request(`${url.pathname}${url.search}`, { redirect: 'manual', headers: stateCookie ? { cookie: `grc_oidc_state=${stateCookie}` } : {} });
};

async function signInThroughProvider(answer: AccountAnswer, next?: string) {
  const started = await begin(next);
  const callbackUrl = await authorizeAtProvider(started.authorizationUrl, answer, CALLBACK);
  return { res: await deliver(callbackUrl, started.state), callbackUrl, started };
}

const sessionSecretOf = (res: Response) => res.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === 'grc_session')?.value;

async function lastAudit(action: string) {
  const [row] = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.seq)).limit(1);
  return row;
}

describe('Settings › Sign-in', () => {
  test('an administrator saves the provider through the screen; the secret is kept but never shown back, and the redirect URI is', async () => {
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await b.get('/settings/sign-in');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`${'http://localhost'}/sign-in/oidc/callback`);
    expect(html).toContain('href="/settings/sign-in"');

    const form = { enabled: 'on', providerName: 'Test IdP', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, emailClaim: 'email', jitGroupId: '' };
    const saved = await b.post('/settings/sign-in', form);
    expect(saved.status, await saved.clone().text()).toBe(303);
    const after = await (await b.get('/settings/sign-in?done=saved')).text();
    expect(after).toContain('Sign-in settings saved');
    expect(after).not.toContain(provider.clientSecret);
    expect(after).toContain('A secret is stored and never shown');

    // Saved again with the secret left blank: the stored one stays.
    expect((await b.post('/settings/sign-in', { ...form, clientSecret: '' })).status).toBe(303);
    const [row] = await env.ctx.db.select().from(settings).where(eq(settings.key, OIDC_SETTINGS_KEY));
    const stored = row.value as { clientSecret: string; metadata: { issuer: string } };
    // Sealed with the server's ENCRYPTION_KEY (AES-256-GCM), never stored as typed.
    expect(stored.clientSecret).toStartWith('gcm1:');
    expect(stored.clientSecret).not.toContain(provider.clientSecret);
    const storedSettings = await oidcSettings(env.ctx.db);
    expect(withClientSecret(env.ctx.config, storedSettings).clientSecret).toBe(provider.clientSecret);
    const otherKey = { ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
    const refused = (() => { try { withClientSecret(otherKey, storedSettings); return null; } catch (error) { return error as AppError; } })();
    expect(refused?.status).toBe(503);
    expect(refused?.message).toContain('encrypted with another ENCRYPTION_KEY');
    expect(stored.metadata.issuer).toBe(provider.issuer);

    // Audited without the secret; every administrator is emailed.
    const entries = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'update'), eq(auditLog.recordId, 'sign-in')));
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(entries.map((e) => e.details))).not.toContain(provider.clientSecret);
    expect((entries[0].details as { changes: Record<string, unknown> }).changes).toHaveProperty('issuer');
    const [mail] = await env.ctx.db.select().from(outbox).where(eq(outbox.subject, 'Security alert: sign-in settings saved')).limit(1);
    expect(mail.recipients).toContain(ADMIN_EMAIL);
    expect(mail.body).not.toContain(provider.clientSecret);
  });

  test('the page says when to accept addresses the provider does not mark verified; ticking it is audited and mailed', async () => {
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const form = { enabled: 'on', providerName: 'Test IdP', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, emailClaim: 'email', jitGroupId: '' };
    const box = /<input type="checkbox" name="trustUnverifiedEmail"[^>]*>/;
    const lastMail = async () => (await env.ctx.db.select().from(outbox).where(eq(outbox.subject, 'Security alert: sign-in settings saved')).orderBy(desc(outbox.id)).limit(1))[0].body;
    expect((await b.post('/settings/sign-in', form)).status).toBe(303);
    const html = await (await b.get('/settings/sign-in')).text();
    expect(html).toContain('Also accept addresses the provider does not mark verified');
    expect(html).toContain('Turn on only for a provider that never sends email_verified but lets nobody choose their own address (Microsoft Entra ID, for one), or to take the address from a claim other than email.');
    expect(html.match(box)?.[0]).not.toContain('checked');
    expect(await lastMail()).toContain('E-mail addresses not marked verified by the provider: refused');

    // The secret left blank (kept), so the box is the only change.
    expect((await b.post('/settings/sign-in', { ...form, clientSecret: '', trustUnverifiedEmail: 'on' })).status).toBe(303);
    expect((await oidcSettings(env.ctx.db)).trustUnverifiedEmail).toBe(true);
    expect((await (await b.get('/settings/sign-in')).text()).match(box)?.[0]).toContain('checked');
    const [entry] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'update'), eq(auditLog.recordId, 'sign-in'))).orderBy(desc(auditLog.seq)).limit(1);
    expect((entry.details as { changes: Record<string, unknown> }).changes).toEqual({ trustUnverifiedEmail: { before: false, after: true } });
    expect(await lastMail()).toContain('E-mail addresses not marked verified by the provider: accepted');

    expect((await b.post('/settings/sign-in', form)).status).toBe(303);
    expect((await oidcSettings(env.ctx.db)).trustUnverifiedEmail).toBe(false);
  });

  test('an issuer that is not an OpenID provider is refused with the reason, and nothing is saved', async () => {
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const before = await env.ctx.db.select().from(settings).where(eq(settings.key, OIDC_SETTINGS_KEY));
    const res = await b.post('/settings/sign-in', { enabled: 'on', providerName: 'Nowhere', issuer: 'http://127.0.0.1:9/realms/none', clientId: 'x', clientSecret: 'y' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('no OpenID provider answered at http://127.0.0.1:9/realms/none/.well-known/openid-configuration');
    expect(html).toContain('value="Nowhere"');
    const notHttps = await b.post('/settings/sign-in', { enabled: 'on', providerName: 'Plain', issuer: 'http://idp.example.com', clientId: 'x', clientSecret: 'y' });
    expect(notHttps.status).toBe(400);
    expect(await notHttps.text()).toContain('must start with https://');
    expect(await env.ctx.db.select().from(settings).where(eq(settings.key, OIDC_SETTINGS_KEY))).toEqual(before);
  });

  test('saving needs settings:update at level all; reading the page does not show the secret to anyone', async () => {
    const reader = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'own' });
    const b = await signedInBrowser(env, reader.email, reader.password);
    const page = await b.get('/settings/sign-in');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Only administrators change these settings.');
    expect(html).not.toContain(provider.clientSecret);
    expect((await b.post('/settings/sign-in', { enabled: 'on', issuer: 'http://127.0.0.1:9', clientId: 'x' })).status).toBe(403);
    const nobody = await makeUser(env, {});
    expect((await (await signedInBrowser(env, nobody.email, nobody.password)).get('/settings/sign-in')).status).toBe(403);
  });
});

describe('Settings › Sign-in: what a blank secret and the new-people group may do', () => {
  const problemsOf = async (actor: Actor, overrides: Partial<OidcSettingsInput>) => {
    try {
      await prepareSignInSettings(env.ctx.db, actor, { ...baseSettings(), ...overrides }, env.ctx.config);
    } catch (error) {
      return (error as AppError).code === 'FORBIDDEN' ? 'forbidden' : (error as AppError).problems;
    }
    return 'accepted';
  };

  test('the stored secret is only sent to the provider it was saved for: a new issuer or client ID needs it typed again', async () => {
    await configure();
    const again = [{ field: 'clientSecret', message: expect.stringContaining('must be entered again') }];
    expect(await problemsOf(admin, { clientSecret: '', issuer: 'https://idp.attacker.example' })).toEqual(again);
    expect(await problemsOf(admin, { clientSecret: '', clientId: 'another-client' })).toEqual(again);
    // Turned off and cleared, the stored secret is dropped rather than asked for.
    const off = await prepareSignInSettings(env.ctx.db, admin, { ...baseSettings(), enabled: false, issuer: '', clientSecret: '' }, env.ctx.config);
    expect(off.oidc.clientSecret).toBe('');
    expect(await problemsOf(admin, { clientSecret: '' })).toBe('accepted');
  });

  test('changing sign-in settings needs every right (an administrator\'s): settings:update at level all alone is refused', async () => {
    // Whoever points sign-in at a provider of their choosing can sign in as anyone here, administrators included.
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'all', 'settings:create': 'all', 'risks:read': 'all' });
    const refused = await problemsOf(await manager.actor(), { issuer: 'https://idp.attacker.example', clientSecret: 'theirs' });
    expect(refused).toBe('forbidden');
    const b = await signedInBrowser(env, manager.email, manager.password);
    expect(await (await b.get('/settings/sign-in')).text()).toContain('Only administrators change these settings.');
    const res = await b.post('/settings/sign-in', { enabled: 'on', providerName: 'Mine', issuer: 'https://idp.attacker.example', clientId: 'x', clientSecret: 'y', emailClaim: 'email' });
    expect(res.status).toBe(403);
    expect((await oidcSettings(env.ctx.db)).issuer).toBe(provider.issuer);
  });

});

describe('sign-in through the OpenID provider', () => {
  beforeAll(() => configure());

  test('the sign-in page offers the provider; an existing person (address in another case) gets a session, audited', async () => {
    const page = await (await env.request('/sign-in')).text();
    expect(page).toContain('Sign in with Test IdP');
    const person = await makeUser(env, { 'risks:read': 'all' });
    const { res } = await signInThroughProvider({ email: person.email.toUpperCase() }, '/risks?page=2');
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe('/risks?page=2');
    const secret = sessionSecretOf(res)!;
    const [session] = await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id));
    expect(session.id).toBe(new Bun.CryptoHasher('sha256').update(secret).digest('hex'));
    expect(session.signedInWith).toBe('oidc');
    const risks = await env.request('/risks', { headers: { cookie: `grc_session=${secret}` } });
    expect(risks.status).toBe(200);
    const audit = await lastAudit('signin');
    expect(audit.recordId).toBe(person.id);
    expect(audit.details).toMatchObject({ method: 'oidc', issuer: provider.issuer, subject: `acct-${person.email.toLowerCase()}` });
  });

  test('an unknown address is refused while just-in-time creation is off', async () => {
    const email = `${unique('stranger')}@test.example`;
    const { res } = await signInThroughProvider({ email });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(OIDC_MESSAGES.unknown);
    expect(sessionSecretOf(res)).toBeFalsy();
    expect(await env.ctx.db.select().from(users).where(sql`lower(${users.email}) = ${email}`)).toHaveLength(0);
    expect((await lastAudit('signin.failed')).details).toMatchObject({ method: 'oidc', reason: 'unknown e-mail', email });
  });

  test('with just-in-time creation on, an unknown person is created in the chosen group, audited as made through SSO', async () => {
    await configure({ jitEnabled: true, jitGroupId: newPeopleGroup });
    try {
      const email = `${unique('newcomer')}@test.example`;
      const { res } = await signInThroughProvider({ email });
      expect(res.status, await res.clone().text()).toBe(303);
      const [created] = await env.ctx.db.select().from(users).where(eq(users.email, email));
      expect(created.passwordHash).toBeNull();
      expect(await env.ctx.db.select().from(groupMembers).where(eq(groupMembers.userId, created.id))).toEqual([{ groupId: newPeopleGroup, userId: created.id }]);
      const [made] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'create'), eq(auditLog.recordId, created.id)));
      expect(String((made.details as { source: string }).source)).toContain('just-in-time creation at OpenID Connect sign-in');
      const [trail] = await env.ctx.db.select().from(history).where(and(eq(history.recordId, created.id), eq(history.action, 'create')));
      expect(trail.source).toContain('just-in-time');
      expect((await lastAudit('signin')).details).toMatchObject({ createdJustInTime: true });
      // The next sign-in finds the same account.
      expect((await signInThroughProvider({ email })).res.status).toBe(303);
      expect(await env.ctx.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
    } finally {
      await configure();
    }
  });

  test('a just-in-time group given the Administrator role after saving creates nobody: the sign-in is refused', async () => {
    await configure({ jitEnabled: true, jitGroupId: newPeopleGroup });
    const [administratorRole] = await env.ctx.db.select({ id: roles.id }).from(roles).where(eq(roles.name, ADMINISTRATOR_ROLE));
    await env.ctx.db.transaction((tx) => assignRoleToGroup(tx, admin, newPeopleGroup, administratorRole.id));
    try {
      const email = `${unique('climber')}@test.example`;
      const { res } = await signInThroughProvider({ email });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('the group new people join now holds the Administrator role');
      expect(await env.ctx.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
    } finally {
      await env.ctx.db.transaction((tx) => removeRoleFromGroup(tx, admin, newPeopleGroup, administratorRole.id));
      await configure();
    }
  });

  test('a deactivated account is refused', async () => {
    const person = await makeUser(env, {});
    await env.ctx.db.transaction((tx) => setUserStatus(tx, admin, person.id, 'deactivated'));
    const { res } = await signInThroughProvider({ email: person.email });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(OIDC_MESSAGES.deactivated);
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(0);
  });

  test('an address marked verified signs in, whether email_verified is the boolean true or the string "true"', async () => {
    const person = await makeUser(env, {});
    for (const emailVerified of [true, 'true'] as const) {
      const { res } = await signInThroughProvider({ email: person.email, emailVerified });
      expect(res.status, await res.clone().text()).toBe(303);
      expect((await lastAudit('signin')).recordId).toBe(person.id);
    }
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(2);
  });

  test('an address the provider marks unverified (false, or the string "false") is refused, audited', async () => {
    const person = await makeUser(env, {});
    for (const emailVerified of [false, 'false'] as const) {
      const { res } = await signInThroughProvider({ email: person.email, emailVerified });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain(OIDC_MESSAGES.unverifiedEmail);
      expect((await lastAudit('signin.failed')).details).toMatchObject({ method: 'oidc', reason: 'e-mail not verified', email: person.email });
    }
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(0);
  });

  test('an address the provider does not mark verified is refused unless the administrator trusts the provider with it', async () => {
    const person = await makeUser(env, {});
    const { res } = await signInThroughProvider({ email: person.email, emailVerified: 'absent' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(OIDC_MESSAGES.unconfirmedEmail);
    expect((await lastAudit('signin.failed')).details).toMatchObject({ reason: 'e-mail not marked verified', email: person.email });
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(0);
    await configure({ trustUnverifiedEmail: true });
    try {
      expect((await signInThroughProvider({ email: person.email, emailVerified: 'absent' })).res.status).toBe(303);
      // Marked unverified is refused even then.
      for (const emailVerified of [false, 'false'] as const) {
        const refused = await signInThroughProvider({ email: person.email, emailVerified });
        expect(refused.res.status).toBe(403);
        expect(await refused.res.text()).toContain(OIDC_MESSAGES.unverifiedEmail);
        expect((await lastAudit('signin.failed')).details).toMatchObject({ reason: 'e-mail not verified', email: person.email });
      }
      expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(1);
      const [entry] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'update'), eq(auditLog.recordId, 'sign-in'))).orderBy(desc(auditLog.seq)).limit(1);
      expect((entry.details as { changes: Record<string, unknown> }).changes.trustUnverifiedEmail).toEqual({ before: false, after: true });
    } finally {
      await configure();
    }
  });

  test('settings saved before this choice existed do not trust unmarked addresses', async () => {
    await configure({ trustUnverifiedEmail: true });
    try {
      // As a save from an older version left them: the same settings, without the key.
      await env.ctx.db.update(settings).set({ value: sql`${settings.value} - 'trustUnverifiedEmail'` }).where(eq(settings.key, OIDC_SETTINGS_KEY));
      const [row] = await env.ctx.db.select().from(settings).where(eq(settings.key, OIDC_SETTINGS_KEY));
      expect(row.value).not.toHaveProperty('trustUnverifiedEmail');
      expect((await oidcSettings(env.ctx.db)).trustUnverifiedEmail).toBe(false);
      expect((await readSignInSettings(env.ctx.db, admin)).trustUnverifiedEmail).toBe(false);
      const person = await makeUser(env, {});
      const { res } = await signInThroughProvider({ email: person.email, emailVerified: 'absent' });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain(OIDC_MESSAGES.unconfirmedEmail);
    } finally {
      await configure();
    }
  });

  test('the e-mail comes from the configured claim, which email_verified does not vouch for: only with the administrator\'s trust', async () => {
    await configure({ emailClaim: 'preferred_username' });
    try {
      const person = await makeUser(env, {});
      const untrusted = await signInThroughProvider({ email: `someone-else-${person.email}`, preferredUsername: person.email });
      expect(untrusted.res.status).toBe(403);
      await configure({ emailClaim: 'preferred_username', trustUnverifiedEmail: true });
      const { res } = await signInThroughProvider({ email: `someone-else-${person.email}`, preferredUsername: person.email });
      expect(res.status, await res.clone().text()).toBe(303);
      expect((await lastAudit('signin')).recordId).toBe(person.id);
    } finally {
      await configure();
    }
  });
});

describe('the callback refuses what it cannot trust, with a clear message and never a 500', () => {
  beforeAll(() => configure());

  test('without a state', async () => {
    const res = await env.request('/sign-in/oidc/callback?code=abc');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(OIDC_MESSAGES.noState);
    expect((await lastAudit('signin.failed')).details).toMatchObject({ method: 'oidc', reason: 'no state' });
    const bare = await env.request('/sign-in/oidc/callback');
    expect(bare.status).toBe(400);
  });

  test('with a wrong state, or one this browser did not start', async () => {
    const person = await makeUser(env, {});
    const started = await begin();
    const callbackUrl = await authorizeAtProvider(started.authorizationUrl, { email: person.email }, CALLBACK);
    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', 'not-the-state-that-was-sent');
    const wrong = await deliver(forged.toString(), started.state);
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain(OIDC_MESSAGES.wrongState);
    // The right answer, delivered to a browser without the state cookie (a forged sign-in link sent to someone else).
    const elsewhere = await deliver(callbackUrl);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain(OIDC_MESSAGES.wrongState);
    const unknown = await deliver(forged.toString(), 'not-the-state-that-was-sent');
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain(OIDC_MESSAGES.stateGone);
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(0);
  });

  test('a replayed answer is refused: its state works once, and its code is refused by the provider with a fresh state', async () => {
    const person = await makeUser(env, {});
    const { res, callbackUrl } = await signInThroughProvider({ email: person.email });
    expect(res.status).toBe(303);
    const replay = await deliver(callbackUrl, new URL(callbackUrl).searchParams.get('state')!);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain(OIDC_MESSAGES.stateGone);
    // The used code under a state of a new sign-in: the provider refuses it (used, and made for another PKCE verifier).
    const fresh = await begin();
    const reused = new URL(callbackUrl);
    reused.searchParams.set('state', fresh.state);
    const refused = await deliver(reused.toString(), fresh.state);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain(OIDC_MESSAGES.codeRefused);
    expect((await lastAudit('signin.failed')).details).toMatchObject({ reason: 'code refused', error: 'invalid_grant' });
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(1);
  });

  test('an expired ID token is refused', async () => {
    const person = await makeUser(env, {});
    const started = await begin();
    const callbackUrl = await authorizeAtProvider(started.authorizationUrl, { email: person.email }, CALLBACK);
    provider.issueNextIdTokenFromThePast(2 * 3600);
    const res = await deliver(callbackUrl, started.state);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain(OIDC_MESSAGES.expired);
    expect((await lastAudit('signin.failed')).details).toMatchObject({ reason: 'ID token expired' });
    expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, person.id))).toHaveLength(0);
  });

  test('an error from the provider (the person cancelled) is shown, not a 500', async () => {
    const started = await begin();
    const res = await deliver(`${CALLBACK}?error=access_denied&error_description=${encodeURIComponent('The person cancelled')}&state=${started.state}&iss=${encodeURIComponent(provider.issuer)}`, started.state);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('The identity provider did not sign you in: The person cancelled.');
  });

  test('while OpenID Connect is off, its addresses say so', async () => {
    await configure({ enabled: false });
    try {
      const start = await env.request('/sign-in/oidc', { redirect: 'manual' });
      expect(start.status).toBe(404);
      expect(await start.text()).toContain(OIDC_MESSAGES.notConfigured);
      expect((await env.request('/sign-in/oidc/callback?state=x&code=y')).status).toBe(404);
      expect(await (await env.request('/sign-in')).text()).not.toContain('Sign in with');
    } finally {
      await configure();
    }
  });
});
