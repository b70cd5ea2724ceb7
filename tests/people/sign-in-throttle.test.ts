import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, sql } from 'drizzle-orm';
import { auditLog, loginAttempts } from '../../db/schema';
import { ConfigError, readConfig } from '../../src/config';
import { boot } from '../../src/platform/modules/bootstrap';
import { createUser } from '../../src/modules/people/service';
import { AppError } from '../../src/platform/core/errors';
import { systemActor } from '../../src/platform/permissions/permissions';
import { MAX_FAILURES_PER_EMAIL, MAX_FAILURES_PER_IP, PASSWORD_CHECKS_AT_ONCE, passwordChecks } from '../../src/platform/http/sessions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, testEnv, type TestEnv } from '../helpers/app';
import { browser, sessionCookieOf, signedInBrowser } from '../helpers/browser';
import { makeUser, unique } from '../helpers/factories';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

const signInForm = (email: string, password: string) => ({ email, password });

describe('sign-in throttling holds when attempts arrive together', () => {
  test(`of 100 simultaneous wrong passwords for one email, ${MAX_FAILURES_PER_EMAIL} are checked and the rest refused 429; then the right one is refused too`, async () => {
    const user = await makeUser(env, {});
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => browser(env).post('/sign-in', signInForm(user.email, `wrong guess ${i}`))));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_FAILURES_PER_EMAIL);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - MAX_FAILURES_PER_EMAIL);
    const throttled = answers.find((res) => res.status === 429)!;
    expect(throttled.headers.get('retry-after')).toBeTruthy();

    const right = await browser(env).post('/sign-in', signInForm(user.email, user.password));
    expect(right.status).toBe(429);
    expect(sessionCookieOf(right)).toBeUndefined();
    // Only the attempts whose password was checked count; each is one failure.
    const [{ n }] = await env.ctx.db.select({ n: sql<number>`count(*)::int` }).from(loginAttempts).where(eq(loginAttempts.email, user.email.toLowerCase()));
    expect(n).toBe(MAX_FAILURES_PER_EMAIL);
  }, 120_000);

  test(`a burst of sign-ins checks at most ${PASSWORD_CHECKS_AT_ONCE} password(s) at once; the others wait their turn`, async () => {
    const emails = Array.from({ length: 12 }, () => `${unique('nobody')}@test.example`);
    const answers = await Promise.all(emails.map((email) => browser(env).post('/sign-in', signInForm(email, 'a wrong password'))));
    expect(answers.map((res) => res.status)).toEqual(emails.map(() => 401));
    expect(passwordChecks.peak).toBe(PASSWORD_CHECKS_AT_ONCE);
  }, 120_000);
});

describe('the per-address count', () => {
  let own: TestEnv;
  let base: string;
  beforeAll(async () => {
    // A service of its own, on a socket, so requests carry a client address and no other test shares its count.
    own = await startTestEnv();
    own.app.listen({ hostname: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${own.app.server!.port}`;
  }, 60_000);
  afterAll(async () => {
    await own?.app.stop();
    // Its own database connections go now, not at the end of the whole run.
    await own?.ctx.close();
  });

  const post = (email: string, password: string) =>
    fetch(`${base}/sign-in`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password }).toString(),
    });

  test(`is not reset by the attacker signing in to their own account: the ${MAX_FAILURES_PER_IP + 1}st attempt from the address is refused`, async () => {
    const attacker = await makeUser(own, {});
    for (let i = 0; i < MAX_FAILURES_PER_IP - 1; i++) {
      // Different accounts each time, so no single email reaches its own limit.
      expect((await post(`${unique('victim')}@test.example`, 'a guessed password')).status).toBe(401);
    }
    expect((await post(attacker.email, attacker.password)).status).toBe(303);
    expect((await post(`${unique('victim')}@test.example`, 'a guessed password')).status).toBe(401);
    const paused = await post(attacker.email, attacker.password);
    expect(paused.status).toBe(429);
    expect(await paused.text()).toContain('Too many failed sign-in attempts');
    const audited = await own.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'signin.failed'), sql`${auditLog.details}->>'reason' = 'throttled'`));
    expect(audited.map((entry) => (entry.details as { ip: string }).ip)).toEqual(['127.0.0.1']);
  }, 180_000);
});

describe('password rules', () => {
  const refusals: [string, string][] = [
    ['aaaaaaaaaaaaaaaa', 'must not be one character repeated'],
    ['            ', 'must not be only spaces'],
    ['\t\t\t\t\t\t\t\t\t\t\t\t', 'must not be only spaces'],
    ['password1234', 'is a commonly used password; choose another'],
    ['QWERTY123456', 'is a commonly used password; choose another'],
    ['1q2w 3e4r 5t6y', 'is a commonly used password; choose another'],
    ['short', 'must be 12 to 200 characters'],
  ];

  test('a new password of one repeated character, only spaces, or on the common-password list is refused', async () => {
    for (const [password, message] of refusals) {
      const error = await env.ctx.db.transaction((tx) =>
        createUser(tx, systemActor(), { email: `${unique('pw')}@test.example`, name: 'Password rules', password })).catch((e: unknown) => e);
      expect(error, JSON.stringify(password)).toBeInstanceOf(AppError);
      expect((error as AppError).problems, JSON.stringify(password)).toEqual([{ field: 'password', message }]);
    }
    const email = `${unique('pw')}@test.example`;
    const sameAsEmail = await env.ctx.db.transaction((tx) => createUser(tx, systemActor(), { email, name: 'x', password: email })).catch((e: unknown) => e);
    expect((sameAsEmail as AppError).problems).toEqual([{ field: 'password', message: 'must not be the email address' }]);
  });

  test('the Create user screen shows the rule beside the password field and keeps what was typed', async () => {
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await admin.post('/settings/users', { name: 'Weak Password', email: `${unique('weak')}@test.example`, password: 'password1234', groupId: '' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('is a commonly used password; choose another');
    expect(html).toContain('value="Weak Password"');
  });

  test('the first administrator password from the environment follows the same rules, refused before the database opens', async () => {
    // The data directory does not exist: a refusal that came after opening the database would fail differently.
    const settings = (password: string) => readConfig({ ADMIN_PASSWORD: password, DATA_DIR: '/nonexistent/never-opened' });
    await expect(boot(settings('password1234'))).rejects.toThrow(ConfigError);
    await expect(boot(settings('zzzzzzzzzzzzzz'))).rejects.toThrow('ADMIN_PASSWORD: must not be one character repeated');
    expect(settings('a sound long passphrase').ADMIN_PASSWORD).toBe('a sound long passphrase');
  });
});
