import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { outbox } from '../../db/schema';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { csvOf, inOrder, listScreen } from '../helpers/lists';
import { MAX_ATTEMPTS, queueMail } from '../../src/platform/mail/mail';

/**
 * Settings › Outbox as a list paged in SQL: search over subjects and recipients, status and kind selects, headers that
 * sort, paging with the total, and Export CSV of exactly the filtered mails (kinds and states in words, times in the
 * reader's zone, never a body: mails carry password reset links). Only for who holds every right, like the Outbox.
 */

let env: TestEnv;
let admin: Browser;
const TAG = unique('Mailed');
const subjects = { alert: `${TAG} alert`, reset: `${TAG} reset`, failed: `${TAG} failed`, crowd: (i: number) => `${TAG} crowd ${String(i).padStart(2, '0')}` };

beforeAll(async () => {
  env = await testEnv();
  await env.ctx.db.transaction(async (tx) => {
    await queueMail(tx, { kind: 'security-alert', recipients: ['ops@test.example'], subject: subjects.alert, body: 'An API token was created.' });
    await queueMail(tx, { kind: 'password.reset', recipients: ['ann@test.example'], subject: subjects.reset, body: 'SECRET-RESET-LINK' });
    await queueMail(tx, { kind: 'rule', recipients: ['bob@test.example'], subject: subjects.failed, body: 'A risk changed.' });
    for (let i = 0; i < 52; i++) await queueMail(tx, { kind: 'digest', recipients: [`crowd${i}@test.example`], subject: subjects.crowd(i), body: 'Due soon' });
  });
  // The reset was delivered; the rule mail failed for good (the states the delivery leaves behind).
  await env.ctx.db.update(outbox).set({ sentAt: new Date(), attempts: 1 }).where(eq(outbox.subject, subjects.reset));
  await env.ctx.db.update(outbox).set({ attempts: MAX_ATTEMPTS, lastError: '550 No such mailbox' }).where(eq(outbox.subject, subjects.failed));
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 60_000);

const q = encodeURIComponent(TAG);
const three = [subjects.alert, subjects.reset, subjects.failed];

describe('Settings › Outbox as a list', () => {
  test('searches subjects and recipients; filters by status and by kind, kinds in words', async () => {
    const found = await listScreen(admin, `/settings/outbox?q=${q}`, 'mail');
    expect(found.status).toBe(200);
    expect(found.total).toBe('55 mails match these filters');
    expect((await listScreen(admin, `/settings/outbox?q=${encodeURIComponent('ann@test.example')}`, 'mail')).rows.some((r) => r.includes(subjects.reset))).toBe(true);
    const sent = await listScreen(admin, `/settings/outbox?q=${q}&state=sent`, 'mail');
    expect(inOrder(sent.rows, three)).toEqual([subjects.reset]);
    const failed = await listScreen(admin, `/settings/outbox?q=${q}&state=failed`, 'mail');
    expect(inOrder(failed.rows, three)).toEqual([subjects.failed]);
    expect(failed.rows[0]).toContain('Notification rule');
    const alerts = await listScreen(admin, `/settings/outbox?q=${q}&kind=security-alert`, 'mail');
    expect(inOrder(alerts.rows, three)).toEqual([subjects.alert]);
    expect(alerts.html).toContain('<option value="security-alert" selected>Security alert</option>');
    expect(alerts.rows[0]).toContain('Security alert');
    expect(alerts.rows[0]).not.toContain('security-alert');
  });

  test('newest first, 50 to a page with the total; a header sorts and paging keeps the filters and sort', async () => {
    const first = await listScreen(admin, `/settings/outbox?q=${encodeURIComponent(`${TAG} crowd`)}`, 'mail');
    expect(first.rows).toHaveLength(50);
    expect(first.rows[0]).toContain(subjects.crowd(51));
    expect(first.pager).toBe('1–50 of 52');
    const bySubject = await listScreen(admin, `/settings/outbox?q=${encodeURIComponent(`${TAG} crowd`)}&sort=subject`, 'mail');
    expect(bySubject.rows[0]).toContain(subjects.crowd(0));
    expect(bySubject.html).toContain(`href="/settings/outbox?q=${encodeURIComponent(`${TAG} crowd`).replace(/%20/g, '+')}&sort=subject&page=2"`);
    const second = await listScreen(admin, `/settings/outbox?q=${encodeURIComponent(`${TAG} crowd`)}&sort=subject&page=2`, 'mail');
    expect(second.rows.map((r) => r.includes(subjects.crowd(50)) || r.includes(subjects.crowd(51)))).toEqual([true, true]);
    expect(second.pager).toBe('51–52 of 52');
  });

  test('Export: the filtered mails in the list order, words for kinds and states, times in the zone the link carries, no bodies', async () => {
    const screen = await listScreen(admin, `/settings/outbox?q=${q}&kind=password.reset`, 'mail');
    expect(screen.html).toContain(`href="/settings/outbox/export.csv?q=${q}&kind=password.reset" download="" data-reader-zone=""`);
    const { bom, lines } = await csvOf(admin, `/settings/outbox/export.csv?q=${q}&state=sent&tz=America%2FNew_York`, 'outbox');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Queued (America/New_York),Kind,To,Subject,Status,Sent (America/New_York),Refused for,Attempts,Last error,Attachments');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2},Password reset,ann@test.example,${subjects.reset},Sent,\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2},,1,,$`));
    expect(lines.join('\n')).not.toContain('SECRET-RESET-LINK');
    const all = await csvOf(admin, `/settings/outbox/export.csv?q=${q}&sort=subject`, 'outbox');
    expect(all.lines).toHaveLength(56);
    expect(all.lines[1]).toContain(`,${subjects.alert},Queued,`);
    expect(all.lines.find((l) => l.includes(subjects.failed))).toContain(',Failed,,,10,550 No such mailbox,');
  });

  test('the download, like the Outbox, needs every right at level all', async () => {
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'all' });
    const b = await signedInBrowser(env, manager.email, manager.password);
    expect(await refusalOf(env, async () => b.get('/settings/outbox/export.csv'))).toEqual(refusedWith(403, undefined, 'every right at level all needed to read the Outbox'));
  });
});
