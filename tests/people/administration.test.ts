import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { auditLog, groups, loginAttempts, roles, sessions, settings, users } from '../../db/schema';
import { ADMINISTRATORS_GROUP, ADMINISTRATOR_ROLE } from '../../src/platform/modules/reference-data';
import { assignRoleToGroup, changeOwnPassword, createGroup, createRole } from '../../src/modules/people/service';
import { AppError } from '../../src/platform/core/errors';
import { systemActor } from '../../src/platform/permissions/permissions';
import { RefusalLimiter } from '../../src/platform/http/refusals';
import { CHECKS_THROTTLED_MESSAGE, MAX_FAILURES_PER_EMAIL, THROTTLE_WINDOW_MINUTES } from '../../src/platform/http/sessions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique } from '../helpers/factories';

let env: TestEnv;
let admin: Browser;

beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const lastEntry = async (recordId: string, action: string) =>
  (await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, recordId), eq(auditLog.action, action))).orderBy(desc(auditLog.seq)).limit(1))[0];

describe('editing a user', () => {
  test('an administrator changes a user\'s name and e-mail, audited; an e-mail in use is refused and the form keeps what was typed', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const form = await admin.get(`/settings/users/${user.id}`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain(user.email);
    const email = `${unique('renamed')}@test.example`;
    const saved = await admin.post(`/settings/users/${user.id}`, { name: 'Renamed Person', email });
    expect(saved.status).toBe(303);
    const [row] = await env.ctx.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({ name: 'Renamed Person', email });
    expect(await lastEntry(user.id, 'update')).toBeDefined();
    const clash = await admin.post(`/settings/users/${user.id}`, { name: 'Renamed Person', email: ADMIN_EMAIL });
    expect(clash.status).toBe(409);
    expect(await clash.text()).toContain(`A user with email ${ADMIN_EMAIL} already exists`);
    const bad = await admin.post(`/settings/users/${user.id}`, { name: '', email: 'not an address' });
    expect(bad.status).toBe(400);
  });

  test('a reader without settings:update cannot open or post the edit form', async () => {
    const reader = await makeUser(env, { 'settings:read': 'all' });
    const b = await signedInBrowser(env, reader.email, reader.password);
    expect((await b.get(`/settings/users/${reader.id}`)).status).toBe(403);
    expect((await b.post(`/settings/users/${reader.id}`, { name: 'X', email: reader.email })).status).toBe(403);
  });
});

describe('changing one\'s own password', () => {
  test(`wrong current passwords count like wrong sign-ins: after ${MAX_FAILURES_PER_EMAIL} even the right one is refused (429), audited`, async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const here = await signedInBrowser(env, user.email, user.password);
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i += 1) {
      expect((await here.post('/settings/password', { currentPassword: `guess number ${i}`, newPassword: 'a brand new passphrase' })).status).toBe(400);
    }
    const right = await here.post('/settings/password', { currentPassword: user.password, newPassword: 'a brand new passphrase' });
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toBe(String(THROTTLE_WINDOW_MINUTES * 60));
    expect(await right.text()).toContain(CHECKS_THROTTLED_MESSAGE);
    // Nothing changed: the old password is still the one (once the pause is over).
    await env.ctx.db.delete(loginAttempts).where(eq(loginAttempts.email, user.email.toLowerCase()));
    await signedInBrowser(env, user.email, user.password);
    const checks = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'check.failed'), eq(auditLog.recordId, user.id))).orderBy(auditLog.seq);
    expect(checks.map((c) => c.details)).toEqual([
      ...Array(MAX_FAILURES_PER_EMAIL).fill(expect.objectContaining({ what: 'current password', reason: 'wrong' })),
      expect.objectContaining({ what: 'current password', reason: 'throttled' }),
    ]);
  });

  test('a right current password is not counted but does not restart the count either (only a whole sign-in does)', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const here = await signedInBrowser(env, user.email, user.password);
    const guess = async () => (await here.post('/settings/password', { currentPassword: 'not my password at all', newPassword: 'another new passphrase' })).status;
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL - 1; i += 1) expect(await guess()).toBe(400);
    expect((await here.post('/settings/password', { currentPassword: user.password, newPassword: 'a brand new passphrase' })).status).toBe(303);
    // One guess was left before the change and one is left after it.
    expect(await guess()).toBe(400);
    expect((await here.post('/settings/password', { currentPassword: 'a brand new passphrase', newPassword: 'another new passphrase' })).status).toBe(429);
  });

  test('refusals of a paused check are audited like refused sign-ins: folded into one entry per window and client', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const actor = await user.actor();
    // A limiter of its own with folding on (the shared test service writes every refusal), a day-long window so the
    // test does not straddle two windows, and an address no other test uses.
    const refusals = new RefusalLimiter(env.ctx.db, { REFUSAL_WINDOW_SECONDS: 86_400, REFUSALS_PER_CLIENT: 30 });
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const change = (current: string) => changeOwnPassword(env.ctx.db, actor, { current, next: 'a brand new passphrase', keepSessionId: null, ip, refusals })
      .then(() => 'changed', (error: unknown) => (error instanceof AppError ? error.code : error));
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i += 1) expect(await change(`guess number ${i}`)).toBe('INVALID');
    for (let i = 0; i < 3; i += 1) expect(await change(user.password)).toBe('THROTTLED');
    const checks = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'check.failed'), eq(auditLog.recordId, user.id))).orderBy(auditLog.seq);
    const reasons = checks.map((c) => (c.details as { reason: string }).reason);
    expect(reasons).toEqual([...Array(MAX_FAILURES_PER_EMAIL).fill('wrong'), 'throttled']);
    expect(checks.at(-1)!.details).toMatchObject({ what: 'current password', ip, client: ip, window: expect.any(Object) });
  });

  test('the current password is needed; the new one follows the rules; the other sessions end and this one stays', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const here = await signedInBrowser(env, user.email, user.password);
    const elsewhere = await signedInBrowser(env, user.email, user.password);
    const wrong = await here.post('/settings/password', { currentPassword: 'not my password at all', newPassword: 'a brand new passphrase' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('is not your current password');
    const weak = await here.post('/settings/password', { currentPassword: user.password, newPassword: 'aaaaaaaaaaaaaaaa' });
    expect(weak.status).toBe(400);
    const changed = await here.post('/settings/password', { currentPassword: user.password, newPassword: 'a brand new passphrase' });
    expect(changed.status).toBe(303);
    expect((await here.get('/settings/password')).status).toBe(200);
    expect((await elsewhere.get('/settings/password')).status).toBe(303);
    await signedInBrowser(env, user.email, 'a brand new passphrase');
    const entry = await lastEntry(user.id, 'password.change');
    expect(entry.details).toMatchObject({ otherSessionsEnded: 1 });
  });
});

describe('editing and deleting roles', () => {
  test('the role editor grid changes a custom role\'s grants, and members get them at once', async () => {
    const member = await makeUser(env, {});
    const roleId = await env.ctx.db.transaction(async (tx) => {
      const { id } = await createRole(tx, systemActor(), { name: unique('Analysts'), permissions: [{ permission: 'risks:read', level: 'own' }] });
      await assignRoleToGroup(tx, systemActor(), member.groupId, id);
      return id;
    });
    const b = await signedInBrowser(env, member.email, member.password);
    expect((await b.get('/controls')).status).toBe(403);
    const editor = await (await admin.get(`/settings/roles/${roleId}`)).text();
    expect(editor).toMatch(/name="risks:read"[^>]*>[\s\S]*?<option value="own" selected/);
    const saved = await admin.post(`/settings/roles/${roleId}`, { name: 'Control readers', description: 'Reads controls', 'controls:read': 'all' });
    expect(saved.status).toBe(303);
    expect((await b.get('/controls')).status).toBe(200);
    const entry = await lastEntry(roleId, 'update');
    expect(entry).toBeDefined();
  });

  test('a built-in role cannot be edited or deleted, and nobody grants beyond their own rights', async () => {
    const [administrator] = await env.ctx.db.select().from(roles).where(eq(roles.name, ADMINISTRATOR_ROLE));
    expect((await admin.post(`/settings/roles/${administrator.id}`, { name: 'Mine now' })).status).toBe(409);
    expect((await admin.post(`/settings/roles/${administrator.id}/delete`, {})).status).toBe(409);
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'all', 'risks:read': 'own' });
    const roleId = await env.ctx.db.transaction(async (tx) => (await createRole(tx, systemActor(), { name: unique('Small'), permissions: [] })).id);
    const b = await signedInBrowser(env, manager.email, manager.password);
    const beyond = await b.post(`/settings/roles/${roleId}`, { name: 'Small', 'risks:read': 'all' });
    expect(beyond.status).toBe(403);
  });

  test('a role still given to a group answers 409 naming the group; taken from it, the role is deleted', async () => {
    const groupName = unique('Holders');
    const { roleId, groupId } = await env.ctx.db.transaction(async (tx) => {
      const { id: role } = await createRole(tx, systemActor(), { name: unique('Held'), permissions: [{ permission: 'risks:read', level: 'own' }] });
      const { id: group } = await createGroup(tx, systemActor(), { name: groupName });
      await assignRoleToGroup(tx, systemActor(), group, role);
      return { roleId: role, groupId: group };
    });
    const refused = await admin.post(`/settings/roles/${roleId}/delete`, {});
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain(groupName);
    expect((await admin.post(`/settings/groups/${groupId}/roles/${roleId}/remove`, {})).status).toBe(303);
    expect(await lastEntry(groupId, 'role.remove')).toBeDefined();
    expect((await admin.post(`/settings/roles/${roleId}/delete`, {})).status).toBe(303);
    expect(await env.ctx.db.select().from(roles).where(eq(roles.id, roleId))).toEqual([]);
    expect(await lastEntry(roleId, 'delete')).toBeDefined();
  });

  test('the Administrator role cannot be taken from the built-in Administrators group', async () => {
    const [group] = await env.ctx.db.select().from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
    const [role] = await env.ctx.db.select().from(roles).where(eq(roles.name, ADMINISTRATOR_ROLE));
    expect((await admin.post(`/settings/groups/${group.id}/roles/${role.id}/remove`, {})).status).toBe(409);
  });
});

describe('Settings › Sessions', () => {
  test('an administrator sees the active sessions and ends one: its cookie stops working at once, audited', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const b = await signedInBrowser(env, user.email, user.password);
    const page = await (await admin.get('/settings/sessions')).text();
    expect(page).toContain('Active sessions');
    const id = new RegExp(`action="/settings/sessions/([0-9a-f]{64})/end"[^]*?End session of ${user.email.replace(/[.]/g, '\\.')}`).exec(page)?.[1];
    expect(id).toBeDefined();
    expect((await admin.post(`/settings/sessions/${id}/end`, {})).status).toBe(303);
    expect((await b.get('/risks')).status).toBe(303);
    expect(await lastEntry(user.id, 'session.end')).toBeDefined();
  });

  test('a reader at level own sees the settings but not who is signed in', async () => {
    const reader = await makeUser(env, { 'settings:read': 'own' });
    const b = await signedInBrowser(env, reader.email, reader.password);
    const page = await (await b.get('/settings/sessions')).text();
    expect(page).not.toContain('Active sessions');
    expect(page).not.toContain(ADMIN_EMAIL);
  });
});

describe('session lifetime and idle timeout', () => {
  const reset = () => env.ctx.db.delete(settings).where(inArray(settings.key, ['sessions.lifetimeHours', 'sessions.idleMinutes']));

  test('the lifetime set on the Sessions page applies to the next sign-in; bad values are refused', async () => {
    try {
      expect((await admin.post('/settings/sessions/browser', { lifetimeHours: '2', idleMinutes: '0' })).status).toBe(303);
      const user = await makeUser(env, { 'risks:read': 'own' });
      await signedInBrowser(env, user.email, user.password);
      const [session] = await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id));
      const hours = (session.expiresAt.getTime() - Date.now()) / 3_600_000;
      expect(hours).toBeGreaterThan(1.9);
      expect(hours).toBeLessThanOrEqual(2);
      const bad = await admin.post('/settings/sessions/browser', { lifetimeHours: '0', idleMinutes: '-5' });
      expect(bad.status).toBe(400);
      const html = await bad.text();
      expect(html).toContain('must be a whole number of hours from 1 to 720');
      expect(html).toContain('from 0 (no idle timeout)');
      expect((await env.ctx.db.select().from(auditLog).where(eq(auditLog.recordId, 'sessions')).orderBy(desc(auditLog.seq)).limit(1))[0].details)
        .toMatchObject({ changes: { lifetimeHours: { after: 2 } } });
    } finally {
      await reset();
    }
  });

  test('a session idle beyond the idle timeout ends; an active one goes on', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const idle = await signedInBrowser(env, user.email, user.password);
    const active = await signedInBrowser(env, user.email, user.password);
    try {
      expect((await admin.post('/settings/sessions/browser', { lifetimeHours: '12', idleMinutes: '30' })).status).toBe(303);
      const rows = await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id)).orderBy(sessions.createdAt);
      await env.ctx.db.update(sessions).set({ lastSeenAt: new Date(Date.now() - 31 * 60_000) }).where(eq(sessions.id, rows[0].id));
      expect((await idle.get('/risks')).status).toBe(303);
      expect((await active.get('/risks')).status).toBe(200);
    } finally {
      await reset();
    }
  });
});

describe('password reset links', () => {
  const linkIn = (html: string) => /class="secret">(http:\/\/localhost\/reset-password\/[\w-]+)</.exec(html)?.[1];

  test('an administrator makes a one-use link, mailed to the person; it sets a new password and ends their sessions', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const before = await signedInBrowser(env, user.email, user.password);
    const made = await admin.post(`/settings/users/${user.id}/reset-link`, {});
    expect(made.status).toBe(200);
    const link = linkIn(await made.text());
    expect(link).toBeDefined();
    const { outbox } = await import('../../db/schema');
    const mails = await env.ctx.db.select().from(outbox).where(eq(outbox.kind, 'password.reset')).orderBy(desc(outbox.id)).limit(5);
    expect(mails.some((m) => m.recipients.includes(user.email) && m.body.includes(link!))).toBe(true);
    const path = new URL(link!).pathname;
    const visitor = (await import('../helpers/browser')).browser(env);
    const form = await visitor.get(path);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain(user.email);
    expect((await visitor.post(path, { password: 'aaaaaaaaaaaaaaaa' })).status).toBe(400);
    const done = await visitor.post(path, { password: 'my reset passphrase here' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/sign-in?reset=1');
    expect((await before.get('/risks')).status).toBe(303);
    await signedInBrowser(env, user.email, 'my reset passphrase here');
    const again = await visitor.post(path, { password: 'another fine passphrase' });
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('expired or was already used');
    expect(await lastEntry(user.id, 'password.reset')).toBeDefined();
    expect(await lastEntry(user.id, 'password.resetLink')).toBeDefined();
  });

  test('an expired link, a replaced link and an unknown link are refused; only administrators make links', async () => {
    const user = await makeUser(env, { 'risks:read': 'own' });
    const first = linkIn(await (await admin.post(`/settings/users/${user.id}/reset-link`, {})).text())!;
    const second = linkIn(await (await admin.post(`/settings/users/${user.id}/reset-link`, {})).text())!;
    const visitor = (await import('../helpers/browser')).browser(env);
    expect((await visitor.get(new URL(first).pathname)).status).toBe(404);
    const { passwordResets } = await import('../../db/schema');
    await env.ctx.db.update(passwordResets).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(passwordResets.userId, user.id));
    expect((await visitor.get(new URL(second).pathname)).status).toBe(404);
    expect((await visitor.get('/reset-password/not-a-real-secret-at-all-xxxx')).status).toBe(404);
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'own' });
    const b = await signedInBrowser(env, manager.email, manager.password);
    expect((await b.post(`/settings/users/${user.id}/reset-link`, {})).status).toBe(403);
  });
});
