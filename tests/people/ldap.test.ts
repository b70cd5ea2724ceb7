import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, sql } from 'drizzle-orm';
import { Client } from 'ldapts';
import { createServer, type Server } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { auditLog, groupMembers, groups, history, loginAttempts, outbox, roles, sessions, settings, users } from '../../db/schema';
import { DIRECTORY_SIGN_IN_REFUSED, LDAP_SETTING, NO_ACCOUNT_HERE, saveLdapSettings, userFilterFor } from '../../src/modules/people/sign-in/ldap';
import { DEFAULT_LDAP_SETTINGS, type LdapSettingsInput } from '../../src/modules/people/sign-in/schema';
import { loadUserRights, userActor } from '../../src/modules/people/rights';
import { addGroupMember, assignRoleToGroup, createGroup, createUser, setUserStatus } from '../../src/modules/people/service';
import { AppError } from '../../src/platform/core/errors';
import { ADMINISTRATORS_GROUP, ADMINISTRATOR_ROLE } from '../../src/platform/modules/reference-data';
import { beginEnrolment, confirmEnrolment } from '../../src/modules/people/two-factor/service';
import { prepareSignInSettings, saveSignInSettings, setBreakGlass } from '../../src/modules/people/sign-in/settings-service';
import type { Actor } from '../../src/platform/permissions/permissions';
import { MAX_FAILURES_PER_EMAIL, WRONG_CREDENTIALS } from '../../src/platform/http/sessions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, type TestEnv } from '../helpers/app';
import { browser, sessionCookieOf, signedInBrowser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { startOidcProvider } from '../helpers/oidc-provider';
import {
  BASE_DN, groupDn, personDn, SERVICE_DN, SERVICE_PASSWORD, slapdMissing, startSlapd, type DirectoryPerson, type Slapd,
} from '../helpers/slapd';

const missing = slapdMissing();
if (missing) console.warn(`Skipping the LDAP sign-in tests: ${missing}.`);

const ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** People of the test directory; each test signs in its own, so the throttle and memberships never cross tests. */
const person = (uid: string, cn = `${uid[0].toUpperCase()}${uid.slice(1)} Example`): DirectoryPerson =>
  ({ uid, cn, mail: `${uid}@dir.example`, password: `${uid} directory password` });
const PEOPLE = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal', 'ivy', 'jo', 'kim', 'lou', 'max', 'ned', 'pat', 'quin', 'rae'].map((uid) => person(uid));
const ann = PEOPLE[0];
const directoryPerson = (uid: string) => PEOPLE.find((p) => p.uid === uid)!;

// A separate service: the directory setting is global and must not change how other test files sign in.
let env: TestEnv;
let slapd: Slapd;
let admin: Actor;
let auditorsHere: string;
let readersHere: string;
let projectHere: string;

const signIn = (email: string, password: string) => browser(env).post('/sign-in', { email, password, next: '/settings' });

async function configure(overrides: Partial<LdapSettingsInput> = {}): Promise<void> {
  const input: LdapSettingsInput = {
    ...DEFAULT_LDAP_SETTINGS, enabled: true, url: slapd.url, bindDn: SERVICE_DN, bindPassword: SERVICE_PASSWORD, baseDn: BASE_DN,
    createUsers: true, timeoutSeconds: 3,
    groupMappings: [{ directoryGroupDn: groupDn('auditors'), groupId: auditorsHere }, { directoryGroupDn: groupDn('readers'), groupId: readersHere }],
    ...overrides,
  };
  await env.ctx.db.transaction((tx) => saveLdapSettings(tx, admin, env.ctx.config, input));
}

async function userByEmail(email: string) {
  const [row] = await env.ctx.db.select().from(users).where(sql`lower(${users.email}) = ${email.toLowerCase()}`);
  return row;
}

async function failures(email: string) {
  const rows = await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
    .where(and(eq(auditLog.action, 'signin.failed'), sql`${auditLog.details}->>'email' = ${email}`)).orderBy(auditLog.seq);
  return rows.map((r) => (r.details as { reason: string }).reason);
}

async function groupsOf(userId: string) {
  return (await env.ctx.db.select({ groupId: groupMembers.groupId }).from(groupMembers).where(eq(groupMembers.userId, userId))).map((r) => r.groupId);
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(missing !== null)('sign-in through an LDAP directory (a real slapd)', () => {
  beforeAll(async () => {
    slapd = await startSlapd(PEOPLE, [
      { cn: 'auditors', members: ['ann', 'cat'], groups: ['field-auditors'] },
      // Nested: field auditors are auditors, trainees are field auditors, and trainees list field auditors back (a cycle).
      { cn: 'field-auditors', members: ['quin'], groups: ['trainees'] },
      { cn: 'trainees', members: ['rae'], groups: ['field-auditors'] },
      { cn: 'readers', members: ['bob'] },
      { cn: 'unmapped', members: ['ann'] },
    ], { tls: true });
    env = await startTestEnv({ ENCRYPTION_KEY });
    admin = await adminActor(env);
    [auditorsHere, readersHere, projectHere] = await env.ctx.db.transaction(async (tx) => [
      (await createGroup(tx, admin, { name: unique('Auditors') })).id,
      (await createGroup(tx, admin, { name: unique('Readers') })).id,
      (await createGroup(tx, admin, { name: unique('Project') })).id,
    ]);
    await configure();
  });

  afterAll(async () => {
    await slapd?.stop();
  });

  test('a right directory password signs the person in and creates them here (no password here), audited', async () => {
    const res = await signIn(ann.mail.toUpperCase(), ann.password);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe('/settings');
    expect(sessionCookieOf(res)?.value).toBeTruthy();
    const created = await userByEmail(ann.mail);
    expect(created).toMatchObject({ email: ann.mail, name: ann.cn, status: 'active', passwordHash: null });
    const [signin] = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.action, 'signin'), eq(auditLog.recordId, created.id)));
    expect(signin.details).toMatchObject({ via: 'directory', dn: personDn('ann') });
    const [made] = await env.ctx.db.select().from(history)
      .where(and(eq(history.recordType, 'user'), eq(history.recordId, created.id), eq(history.action, 'create')));
    expect(made.source).toBe(`directory (LDAP) sign-in of ${ann.mail}`);
    // The session works.
    const b = browser(env);
    b.cookie = `grc_session=${sessionCookieOf(res)!.value}`;
    expect((await b.get('/settings')).status).toBe(200);
  });

  test('a wrong password and an unknown person get the same answer as password sign-in, each audited with its reason', async () => {
    const bob = directoryPerson('bob');
    const wrong = await signIn(bob.mail, 'not the directory password');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain(WRONG_CREDENTIALS);
    expect(sessionCookieOf(wrong)).toBeUndefined();
    const unknown = await signIn('nobody@dir.example', 'whatever it is');
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toContain(WRONG_CREDENTIALS);
    expect(await failures(bob.mail)).toEqual(['wrong password']);
    expect(await failures('nobody@dir.example')).toEqual(['not found in the directory']);
    expect(await userByEmail('nobody@dir.example')).toBeUndefined();
  });

  test('the typed login is escaped in the filter: wildcards and filter syntax find nobody', async () => {
    expect(userFilterFor('(mail={login})', '*)(mail=*')).toBe('(mail=\\2a\\29\\28mail=\\2a)');
    const cat = directoryPerson('cat');
    // Unescaped, (mail=ca*) would find cat and the bind with cat's password would succeed.
    for (const login of ['ca*', '*', '*)(mail=*', 'cat@dir.example)(|(mail=*', 'x\\2a', '*)(objectClass=*))(|(mail=*']) {
      const res = await signIn(login, cat.password);
      expect(res.status, login).toBe(401);
      expect(sessionCookieOf(res), login).toBeUndefined();
    }
    expect(await userByEmail(cat.mail)).toBeUndefined();
    expect(await failures('ca*')).toEqual(['not found in the directory']);
  });

  test('an empty password is never sent as a bind, though this directory would accept one as an unauthenticated bind', async () => {
    const dan = directoryPerson('dan');
    // The trap is real here: slapd answers success to a DN with an empty password.
    const client = new Client({ url: slapd.url, timeout: 3000, connectTimeout: 3000 });
    await client.bind(personDn('dan'), '');
    await client.unbind();
    const res = await signIn(dan.mail, '');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain(WRONG_CREDENTIALS);
    expect(sessionCookieOf(res)).toBeUndefined();
    expect(await failures(dan.mail)).toEqual(['empty password']);
    expect(await userByEmail(dan.mail)).toBeUndefined();
  });

  test('mapped groups follow the directory (added and removed); groups not mapped are left alone; each change in History', async () => {
    const eve = directoryPerson('eve');
    await slapd.setGroupMembers('auditors', ['ann', 'cat', 'eve']);
    expect((await signIn(eve.mail, eve.password)).status).toBe(303);
    const user = await userByEmail(eve.mail);
    expect((await groupsOf(user.id)).sort()).toEqual([auditorsHere]);
    // A membership given here in a group the directory does not map.
    await env.ctx.db.transaction((tx) => addGroupMember(tx, admin, projectHere, user.id));

    await slapd.setGroupMembers('auditors', ['ann', 'cat']);
    await slapd.setGroupMembers('readers', ['bob', 'eve']);
    expect((await signIn(eve.mail, eve.password)).status).toBe(303);
    expect((await groupsOf(user.id)).sort()).toEqual([readersHere, projectHere].sort());
    const changes = await env.ctx.db.select({ recordId: history.recordId, action: history.action, source: history.source }).from(history)
      .where(and(eq(history.recordType, 'group'), sql`${history.changes}::text like ${`%${user.id}%`}`)).orderBy(history.id);
    expect(changes).toEqual([
      { recordId: auditorsHere, action: 'member.add', source: `directory (LDAP) sign-in of ${eve.mail}` },
      { recordId: projectHere, action: 'member.add', source: null },
      { recordId: auditorsHere, action: 'member.remove', source: `directory (LDAP) sign-in of ${eve.mail}` },
      { recordId: readersHere, action: 'member.add', source: `directory (LDAP) sign-in of ${eve.mail}` },
    ]);
  });

  test('nested groups are followed: a person in a group within a mapped group (two levels down, through a cycle) joins it here', async () => {
    for (const uid of ['quin', 'rae']) {
      const nested = directoryPerson(uid);
      expect((await signIn(nested.mail, nested.password)).status).toBe(303);
      expect(await groupsOf((await userByEmail(nested.mail)).id), uid).toEqual([auditorsHere]);
    }
  });

  test('who is an administrator here is not left to the directory: such a mapping is refused, and one made so later is left alone', async () => {
    const [{ id: administratorsGroup }] = await env.ctx.db.select({ id: groups.id }).from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
    const [{ id: administratorRole }] = await env.ctx.db.select({ id: roles.id }).from(roles).where(eq(roles.name, ADMINISTRATOR_ROLE));
    let refusal: unknown;
    try {
      await configure({ bindPassword: '', groupMappings: [{ directoryGroupDn: groupDn('auditors'), groupId: administratorsGroup }] });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).problems).toEqual([{ field: 'groupMappings.0', message: expect.stringContaining('holds the Administrator role') }]);

    const later = await env.ctx.db.transaction((tx) => createGroup(tx, admin, { name: unique('Later admins') }));
    await configure({ bindPassword: '', groupMappings: [{ directoryGroupDn: groupDn('auditors'), groupId: later.id }] });
    try {
      await env.ctx.db.transaction((tx) => assignRoleToGroup(tx, admin, later.id, administratorRole));
      const cat = directoryPerson('cat');
      expect((await signIn(cat.mail, cat.password)).status).toBe(303);
      expect(await groupsOf((await userByEmail(cat.mail)).id)).toEqual([]);
    } finally {
      await configure();
    }
  });

  test('with just-in-time creation off, a person with no account here is refused; one added here without a password signs in', async () => {
    const fay = directoryPerson('fay');
    const gus = directoryPerson('gus');
    await configure({ createUsers: false, bindPassword: '' });
    try {
      const refused = await signIn(fay.mail, fay.password);
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain(NO_ACCOUNT_HERE.replaceAll("'", '&#39;'));
      expect(await userByEmail(fay.mail)).toBeUndefined();
      expect(await failures(fay.mail)).toEqual(['no account here (just-in-time creation is off)']);

      await env.ctx.db.transaction((tx) => createUser(tx, admin, { email: gus.mail, name: 'Gus (added by hand)' }));
      expect((await signIn(gus.mail, gus.password)).status).toBe(303);
      // The directory's name replaces the one typed here.
      expect((await userByEmail(gus.mail)).name).toBe(gus.cn);
    } finally {
      await configure();
    }
  });

  test('a person deactivated here is refused even though the directory accepts the password', async () => {
    const hal = directoryPerson('hal');
    expect((await signIn(hal.mail, hal.password)).status).toBe(303);
    const user = await userByEmail(hal.mail);
    await env.ctx.db.transaction((tx) => setUserStatus(tx, admin, user.id, 'deactivated'));
    const res = await signIn(hal.mail, hal.password);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain(WRONG_CREDENTIALS);
    expect(sessionCookieOf(res)).toBeUndefined();
    expect(await failures(hal.mail)).toEqual(['account deactivated']);
  });

  test('an account with a password here is never opened by the directory, even when an entry carries its address', async () => {
    const pat = directoryPerson('pat');
    const local = await env.ctx.db.transaction((tx) => createUser(tx, admin, { email: pat.mail, name: 'Pat (local)', password: 'a long enough local password' }));
    // A filter that also matches uid lets "pat" reach the entry whose mail is the local account's address.
    await configure({ userFilter: '(&(objectClass=inetOrgPerson)(|(mail={login})(uid={login})))', bindPassword: '' });
    try {
      const res = await signIn('pat', pat.password);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain(WRONG_CREDENTIALS);
      expect(await failures('pat')).toEqual(['the account here has a password; the directory does not sign it in']);
      expect(await env.ctx.db.select().from(sessions).where(eq(sessions.userId, local.id))).toEqual([]);
    } finally {
      await configure();
    }
  });

  test(`after ${MAX_FAILURES_PER_EMAIL} wrong directory passwords the account is paused, even for the right one`, async () => {
    const ivy = directoryPerson('ivy');
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i += 1) expect((await signIn(ivy.mail, `guess ${i}`)).status).toBe(401);
    const right = await signIn(ivy.mail, ivy.password);
    expect(right.status).toBe(429);
    expect(await right.text()).toContain('Too many failed sign-in attempts');
  });

  test('two-factor sign-in is not skipped: an enrolled directory person gets the code step, not a session', async () => {
    const jo = directoryPerson('jo');
    expect((await signIn(jo.mail, jo.password)).status).toBe(303);
    const user = await userByEmail(jo.mail);
    const actor = userActor((await loadUserRights(env.ctx.db, user.id))!, 'screen');
    const { secret } = await env.ctx.db.transaction((tx) => beginEnrolment(tx, actor, env.ctx.config));
    const code = TOTP.generate({ secret: Secret.fromBase32(secret.replaceAll(' ', '')) });
    await env.ctx.db.transaction((tx) => confirmEnrolment(tx, actor, code, env.ctx.config));
    const before = (await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).length;
    const res = await signIn(jo.mail, jo.password);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in/two-factor');
    expect(sessionCookieOf(res)).toBeUndefined();
    expect((await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).length).toBe(before);
  });

  test('people with a password here still sign in with it while the directory is on', async () => {
    const local = await makeUser(env, {});
    expect((await signIn(local.email, local.password)).status).toBe(303);
    expect((await signIn(ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(303);
  });

  test('a directory that is down or silent: refused like a wrong password (401, same message, counted), the cause audited, and the service stays up', async () => {
    const kim = directoryPerson('kim');
    const silent: Server = createServer(() => { /* accepts and never answers */ });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      for (const url of [`ldap://127.0.0.1:${await closedPort()}`, `ldap://127.0.0.1:${(silent.address() as { port: number }).port}`]) {
        await configure({ url, timeoutSeconds: 1 });
        const started = Date.now();
        const res = await signIn(kim.mail, kim.password);
        expect(res.status, url).toBe(401);
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(await res.text()).toContain(DIRECTORY_SIGN_IN_REFUSED);
        expect(sessionCookieOf(res)).toBeUndefined();
      }
      const reasons = await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
        .where(and(eq(auditLog.action, 'signin.failed'), sql`${auditLog.details}->>'email' = ${kim.mail}`)).orderBy(auditLog.seq);
      expect(reasons.map((r) => r.details)).toEqual([
        expect.objectContaining({ reason: 'directory unreachable', error: expect.stringContaining('connection refused') }),
        expect.objectContaining({ reason: 'directory unreachable', error: expect.stringContaining('within 1 seconds') }),
      ]);
      expect(await env.ctx.db.select().from(loginAttempts).where(and(eq(loginAttempts.email, kim.mail), eq(loginAttempts.succeeded, false)))).toHaveLength(2);
      expect((await env.request('/sign-in')).status).toBe(200);
      expect((await env.request('/api/health')).status).toBe(200);
    } finally {
      silent.close();
      await configure();
    }
    expect((await signIn(kim.mail, kim.password)).status).toBe(303);
  });

  test('encrypted connections: ldaps:// and StartTLS trust the CA certificate given; without it the directory is refused', async () => {
    const bob = directoryPerson('bob');
    try {
      await configure({ url: slapd.ldapsUrl, caCertificate: slapd.caPem });
      expect((await signIn(bob.mail, bob.password)).status).toBe(303);
      await configure({ url: slapd.url, startTls: true, caCertificate: slapd.caPem });
      expect((await signIn(bob.mail, bob.password)).status).toBe(303);

      for (const tls of [{ url: slapd.ldapsUrl, startTls: false }, { url: slapd.url, startTls: true }]) {
        await configure({ ...tls, caCertificate: '' });
        const res = await signIn(bob.mail, bob.password);
        expect(res.status, tls.url).toBe(401);
        expect(await res.text()).toContain(DIRECTORY_SIGN_IN_REFUSED);
      }
      const [last] = await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
        .where(and(eq(auditLog.action, 'signin.failed'), sql`${auditLog.details}->>'email' = ${bob.mail}`)).orderBy(desc(auditLog.seq)).limit(1);
      expect(last.details).toMatchObject({ reason: 'directory unreachable', error: expect.stringMatching(/certificate/i) });

      let refusal: unknown;
      try {
        await configure({ url: slapd.ldapsUrl, caCertificate: '-----BEGIN CERTIFICATE-----\nnot one\n-----END CERTIFICATE-----' });
      } catch (error) {
        refusal = error;
      }
      expect((refusal as AppError).problems).toEqual([{ field: 'caCertificate', message: expect.stringContaining('PEM') }]);
      let both: unknown;
      try {
        await configure({ url: slapd.ldapsUrl, startTls: true });
      } catch (error) {
        both = error;
      }
      expect((both as AppError).problems).toEqual([{ field: 'url', message: expect.stringContaining('StartTLS is for ldap:// addresses') }]);
    } finally {
      await configure();
    }
  });

  test('Settings › Directory (LDAP): administrators save it (validated, audited without the password, mailed, password sealed)', async () => {
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await b.get('/settings/sign-in/ldap');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Directory (LDAP)');
    expect(html).toContain('A password is stored. Leave blank to keep it while the address, TLS settings and bind DN stay the same');
    expect(html).not.toContain(SERVICE_PASSWORD);

    const form = {
      enabled: 'on', url: slapd.url, caCertificate: '', timeoutSeconds: '4', bindDn: SERVICE_DN, bindPassword: '', baseDn: BASE_DN,
      userFilter: '(&(objectClass=inetOrgPerson)(mail={login}))', emailAttribute: 'mail', nameAttribute: 'cn', createUsers: 'on',
      mapRows: '3', 'mapDn.0': groupDn('auditors'), 'mapGroup.0': auditorsHere, 'mapDn.1': '', 'mapGroup.1': '', 'mapDn.2': groupDn('readers'), 'mapGroup.2': readersHere,
    };
    const bad = await b.post('/settings/sign-in/ldap', { ...form, url: 'http://directory.example', userFilter: '(mail=*)', 'mapGroup.2': '' });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toContain('must start with ldap:// or ldaps://');
    expect(badHtml).toContain('must contain {login}');
    expect(badHtml).toContain('choose the group here its members go in');
    expect(badHtml).toContain('value="http://directory.example"');

    const newPassword = `rotated-${unique('pw')}`;
    const saved = await b.post('/settings/sign-in/ldap', { ...form, bindPassword: newPassword });
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect(saved.headers.get('location')).toBe('/settings/sign-in/ldap?done=saved');
    const [entry] = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.action, 'update'), eq(auditLog.recordId, LDAP_SETTING))).orderBy(desc(auditLog.seq)).limit(1);
    expect(entry.details).toMatchObject({ changes: { timeoutSeconds: { before: 3, after: 4 }, bindPassword: 'changed' } });
    expect(JSON.stringify(entry.details)).not.toContain(newPassword);
    const [stored] = await env.ctx.db.select().from(settings).where(eq(settings.key, LDAP_SETTING));
    expect(JSON.stringify(stored.value)).not.toContain(newPassword);
    expect((stored.value as { bindPasswordSealed: string }).bindPasswordSealed).toStartWith('gcm1:');
    const [mail] = await env.ctx.db.select().from(outbox).where(eq(outbox.subject, 'Security alert: directory (LDAP) sign-in settings saved')).orderBy(desc(outbox.id)).limit(1);
    expect(mail.recipients).toContain(ADMIN_EMAIL);

    // The service account's password is now wrong in the directory: sign-in is refused, the cause is audited.
    const lou = directoryPerson('lou');
    expect((await signIn(lou.mail, lou.password)).status).toBe(401);
    expect((await failures(lou.mail)).at(-1)).toBe('directory unreachable');
    await configure();
    expect((await signIn(lou.mail, lou.password)).status).toBe(303);
  });

  test('only administrators change it: settings:read sees the page without Save, settings:update at level own is refused', async () => {
    const reader = await makeUser(env, { 'settings:read': 'all' });
    const b = await signedInBrowser(env, reader.email, reader.password);
    const page = await b.get('/settings/sign-in/ldap');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Only administrators change these settings.');
    expect((await b.post('/settings/sign-in/ldap', { enabled: '' })).status).toBe(403);
    const ownOnly = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'own' });
    const o = await signedInBrowser(env, ownOnly.email, ownOnly.password);
    expect((await o.post('/settings/sign-in/ldap', { enabled: '' })).status).toBe(403);
    expect((await o.post('/settings/sign-in/ldap/test', { url: slapd.url })).status).toBe(403);
    const unchanged = await env.ctx.db.select().from(settings).where(eq(settings.key, LDAP_SETTING));
    expect((unchanged[0].value as { enabled: boolean }).enabled).toBe(true);
  });

  test('Test connection binds as the service account and reports how many entries the filter finds, or why it could not', async () => {
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const form = {
      url: slapd.url, timeoutSeconds: '2', bindDn: SERVICE_DN, bindPassword: '', baseDn: BASE_DN,
      userFilter: '(&(objectClass=inetOrgPerson)(mail={login}))', emailAttribute: 'mail', nameAttribute: 'cn', mapRows: '0',
    };
    const good = await b.post('/settings/sign-in/ldap/test', form);
    expect(good.status).toBe(200);
    expect(await good.text()).toContain(`The user filter finds ${PEOPLE.length} entries under the base DN.`);

    const wrongPassword = await b.post('/settings/sign-in/ldap/test', { ...form, bindPassword: 'not the reader password' });
    expect(await wrongPassword.text()).toContain('Test connection failed: the directory refused the service account (check the bind DN and password).');
    const noBase = await b.post('/settings/sign-in/ldap/test', { ...form, baseDn: 'ou=nowhere,dc=example,dc=test' });
    expect(await noBase.text()).toContain('the base DN ou=nowhere,dc=example,dc=test does not exist in the directory');
    const down = await b.post('/settings/sign-in/ldap/test', { ...form, url: `ldap://127.0.0.1:${await closedPort()}`, bindPassword: SERVICE_PASSWORD });
    expect(await down.text()).toContain('(connection refused)');
    const invalid = await b.post('/settings/sign-in/ldap/test', { ...form, userFilter: '(mail={login}' });
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain('is not an LDAP filter');
    // Testing saves nothing.
    const [stored] = await env.ctx.db.select().from(settings).where(eq(settings.key, LDAP_SETTING));
    expect((stored.value as { timeoutSeconds: number }).timeoutSeconds).toBe(3);
  });

  test('the stored password only goes where it was saved for: a new address, TLS setting or bind DN needs it typed again, on Save and on Test connection', async () => {
    const refusalOf = async (overrides: Partial<LdapSettingsInput>) => {
      try {
        await configure({ ...overrides, bindPassword: '' });
      } catch (error) {
        return (error as AppError).problems;
      }
      return 'saved';
    };
    const again = [{ field: 'bindPassword', message: expect.stringContaining('must be entered again') }];
    expect(await refusalOf({ url: 'ldap://directory.attacker.example' })).toEqual(again);
    expect(await refusalOf({ url: slapd.url, startTls: true, caCertificate: slapd.caPem })).toEqual(again);
    expect(await refusalOf({ bindDn: 'cn=someone-else,dc=example,dc=test' })).toEqual(again);
    expect(await refusalOf({ timeoutSeconds: 4 })).toBe('saved');
    // Turned off with a new address, the stored password is dropped rather than asked for.
    expect(await refusalOf({ enabled: false, url: 'ldap://directory.attacker.example' })).toBe('saved');
    const [off] = await env.ctx.db.select().from(settings).where(eq(settings.key, LDAP_SETTING));
    expect((off.value as { bindPasswordSealed: string | null }).bindPasswordSealed).toBeNull();
    await configure();

    // Test connection to a server of someone's choosing with a blank password: refused before anything is sent.
    const received: Buffer[] = [];
    const listener: Server = createServer((socket) => socket.on('data', (chunk) => received.push(Buffer.from(chunk))));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
      const res = await b.post('/settings/sign-in/ldap/test', {
        url: `ldap://127.0.0.1:${(listener.address() as { port: number }).port}`, timeoutSeconds: '1', bindDn: SERVICE_DN, bindPassword: '', baseDn: BASE_DN,
        userFilter: '(&(objectClass=inetOrgPerson)(mail={login}))', emailAttribute: 'mail', nameAttribute: 'cn', mapRows: '0',
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('must be entered again');
      expect(Buffer.concat(received).toString('latin1')).not.toContain(SERVICE_PASSWORD);
      expect(received).toEqual([]);
    } finally {
      listener.close();
      await configure({ timeoutSeconds: 3 });
    }
  });

  test('changing directory sign-in needs every right (an administrator\'s): settings:update at level all alone is refused', async () => {
    // Whoever points sign-in at a directory of their choosing can become anyone here, administrators included.
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'all', 'settings:create': 'all' });
    const actor = await manager.actor();
    let refusal: unknown;
    try {
      await env.ctx.db.transaction((tx) => saveLdapSettings(tx, actor, env.ctx.config, {
        ...DEFAULT_LDAP_SETTINGS, enabled: true, url: 'ldap://directory.attacker.example', bindDn: SERVICE_DN, bindPassword: 'theirs', baseDn: BASE_DN,
        createUsers: true, timeoutSeconds: 3, groupMappings: [],
      }));
    } catch (error) {
      refusal = error;
    }
    expect((refusal as AppError).code).toBe('FORBIDDEN');
    expect((refusal as AppError).deniedReason).toContain('needs every right at level all');
    const m = await signedInBrowser(env, manager.email, manager.password);
    expect((await m.post('/settings/sign-in/ldap/test', { url: slapd.url, bindPassword: 'x' })).status).toBe(403);
    const [stored] = await env.ctx.db.select().from(settings).where(eq(settings.key, LDAP_SETTING));
    expect((stored.value as { url: string }).url).toBe(slapd.url);
  });

  test('with the directory switched off, people without a password here are refused as before', async () => {
    const max = directoryPerson('max');
    await configure({ enabled: false, bindPassword: '' });
    try {
      const res = await signIn(max.mail, max.password);
      expect(res.status).toBe(401);
      expect(await failures(max.mail)).toEqual(['unknown email']);
    } finally {
      await configure();
    }
  });

  test('while only single sign-on is allowed, the directory is not asked: a directory password is refused like any password', async () => {
    const provider = await startOidcProvider({ redirectUris: ['http://localhost/sign-in/oidc/callback'] });
    const saveOidc = async (ssoOnly: boolean) => {
      const prepared = await prepareSignInSettings(env.ctx.db, admin, {
        enabled: true, providerName: 'Contoso SSO', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret,
        emailClaim: 'email', trustUnverifiedEmail: false, jitEnabled: false, jitGroupId: '', ssoOnly,
      }, env.ctx.config);
      await env.ctx.db.transaction((tx) => saveSignInSettings(tx, admin, prepared));
    };
    try {
      await env.ctx.db.transaction((tx) => setBreakGlass(tx, admin, admin.userId!, true));
      await saveOidc(true);
      const ann2 = directoryPerson('ann');
      const res = await signIn(ann2.mail, ann2.password);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('Only single sign-on is allowed here');
      expect((await failures(ann2.mail)).at(-1)).toBe('single sign-on only');
    } finally {
      await saveOidc(false);
      await provider.close();
    }
    expect((await signIn(ann.mail, ann.password)).status).toBe(303);
  });

  test('stopping the directory itself: sign-in is refused with the message that names the directory, the same for accounts with a password here, and the service keeps serving', async () => {
    const ned = directoryPerson('ned');
    const local = await makeUser(env, {});
    await slapd.stop();
    const res = await signIn(ned.mail, ned.password);
    const localWrong = await signIn(local.email, 'not the password at all');
    // Who has a password here is not told by the outage: same status, same words.
    expect([res.status, localWrong.status]).toEqual([401, 401]);
    expect(await res.text()).toContain(DIRECTORY_SIGN_IN_REFUSED);
    expect(await localWrong.text()).toContain(DIRECTORY_SIGN_IN_REFUSED);
    expect((await signIn(local.email, local.password)).status).toBe(303);
  });
});
