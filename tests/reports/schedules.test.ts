import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { outbox, reportSchedules } from '../../db/schema';
import { selectRows } from '../../db/client';
import { runWrite } from '../../src/platform/http/context';
import { SWEEP_LOCK, sweepOnce } from '../../src/platform/modules/sweep';
import { notificationSettings, saveNotificationSettings } from '../../src/platform/notifications/settings';
import {
  createSchedule, deleteSchedule, dueOn, getSchedule, sendDueReports, setSchedulePaused, updateSchedule, type ReportScheduleInput,
} from '../../src/platform/notifications/report-schedules';
import { removeGroupMember } from '../../src/modules/people/service';
import { systemActor, type Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';

let env: TestEnv;
let admin: Actor;
let alice: TestUser;
let bob: TestUser;
let lost: TestUser;
const titles = { alice: '', aliceClosed: '', bob: '' };

const input = (over: Partial<ReportScheduleInput> = {}): ReportScheduleInput => ({
  name: unique('Open risks to owners'), reportKey: 'riskRegister', filters: { status: 'open' }, frequency: 'daily', weekday: null, monthDay: null,
  userIds: [], groupIds: [], paused: false, ...over,
});

/** The scheduled-report mails of a schedule, each with its recipient and its CSV decoded. */
async function mailsOf(name: string) {
  const rows = await env.ctx.db.select().from(outbox).where(and(eq(outbox.kind, 'scheduledReport'), sql`${outbox.subject} like ${`%${name}%`}`));
  return rows.map((r) => ({
    to: r.recipients[0], subject: r.subject, body: r.body, filename: r.attachments?.[0]?.filename,
    csv: Buffer.from(r.attachments?.[0]?.content ?? '', 'base64').toString('utf8'),
  }));
}

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  // Reports are due from the hour 0 in UTC: every sweep of the test finds today's period due.
  await runWrite(env.ctx, async (tx) => saveNotificationSettings(tx, admin, { ...(await notificationSettings(tx)), reminderHour: 0, timeZone: 'UTC' }));
  alice = await makeUser(env, { 'risks:read': 'own' });
  bob = await makeUser(env, { 'risks:read': 'own' });
  lost = await makeUser(env, { 'risks:read': 'all' });
  titles.alice = unique('Alice open risk');
  titles.aliceClosed = unique('Alice closed risk');
  titles.bob = unique('Bob open risk');
  await makeRisk(env, admin, { title: titles.alice, ownerId: alice.id });
  await makeRisk(env, admin, { title: titles.aliceClosed, ownerId: alice.id, status: 'closed' });
  await makeRisk(env, admin, { title: titles.bob, ownerId: bob.id });
});

describe('a scheduled report mails each recipient the rows they may read', () => {
  test('named people and group members each get their own CSV, filtered; a recipient who lost the right is skipped and named', async () => {
    const values = input({ userIds: [alice.id, lost.id], groupIds: [bob.groupId] });
    const { id } = await runWrite(env.ctx, (tx) => createSchedule(env.ctx, tx, admin, values));
    // The recipient loses the report's right after the schedule was made: their only group is taken from them.
    await runWrite(env.ctx, (tx) => removeGroupMember(tx, systemActor(), lost.groupId, lost.id));
    await env.ctx.db.transaction((tx) => sendDueReports(env.ctx, tx));
    const mails = await mailsOf(values.name);
    expect(mails.map((m) => m.to).sort()).toEqual([alice.email, bob.email].sort());
    const toAlice = mails.find((m) => m.to === alice.email)!;
    expect(toAlice.filename).toMatch(/^riskRegister-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(toAlice.csv.startsWith('\uFEFFTitle,Classification,')).toBe(true);
    expect(toAlice.csv).toContain(titles.alice);
    expect(toAlice.csv).not.toContain(titles.aliceClosed); // the schedule's filter: open risks only
    expect(toAlice.csv).not.toContain(titles.bob); // Bob's risk: Alice reads her own only
    expect(toAlice.body).toContain('Filtered by Status: Open.');
    expect(toAlice.body).toContain('1 row you may read');
    const toBob = mails.find((m) => m.to === bob.email)!;
    expect(toBob.csv).toContain(titles.bob);
    expect(toBob.csv).not.toContain(titles.alice);
    const stored = await getSchedule(env.ctx.db, admin, id);
    expect(stored.lastOutcome).toBe('Sent to 2 people; 1 skipped');
    expect(stored.skipped).toEqual([{ name: lost.email.split('@')[0], reason: 'no longer holds risks:read (the report\'s right)' }]);
    expect(stored.lastRunAt).not.toBeNull();
  });

  test('a period is sent once: two sweeps at the same time, and two senders without the lock, mail each person once', async () => {
    const values = input({ userIds: [alice.id] });
    await runWrite(env.ctx, (tx) => createSchedule(env.ctx, tx, admin, values));
    // On PostgreSQL a sweep while another instance holds the lock does nothing (PGlite serves one process and runs one
    // transaction at a time: no other instance exists there).
    if (process.env.DATABASE_URL) {
      await env.ctx.db.transaction(async (otherInstance) => {
        await otherInstance.execute(sql`select pg_advisory_xact_lock(${SWEEP_LOCK})`);
        expect(await sweepOnce(env.ctx)).toBe(false);
      });
      expect((await mailsOf(values.name)).length).toBe(0);
    }
    // Two sweeps at the same time (they overlap, or, on a busy machine, one follows the other): the period is sent once.
    await Promise.all([sweepOnce(env.ctx), sweepOnce(env.ctx)]);
    // Both senders claim by a conditional UPDATE of last_period: on PostgreSQL the second waits for the first's row lock and then finds the period taken.
    await Promise.all([
      env.ctx.db.transaction((tx) => sendDueReports(env.ctx, tx)),
      env.ctx.db.transaction((tx) => sendDueReports(env.ctx, tx)),
    ]);
    await sweepOnce(env.ctx);
    expect((await mailsOf(values.name)).length).toBe(1);
  });

  test('a paused schedule sends nothing; pause, resume, edit and delete are in History and the Audit Log', async () => {
    const values = input({ userIds: [alice.id] });
    const { id } = await runWrite(env.ctx, (tx) => createSchedule(env.ctx, tx, admin, values));
    await runWrite(env.ctx, (tx) => setSchedulePaused(tx, admin, id, true));
    await env.ctx.db.transaction((tx) => sendDueReports(env.ctx, tx));
    expect(await mailsOf(values.name)).toEqual([]);
    await runWrite(env.ctx, (tx) => setSchedulePaused(tx, admin, id, false));
    await runWrite(env.ctx, (tx) => updateSchedule(env.ctx, tx, admin, id, { ...values, frequency: 'weekly', weekday: 1 }));
    await runWrite(env.ctx, (tx) => deleteSchedule(tx, admin, id));
    const actions = await selectRows<{ action: string }>(env.ctx.db, sql`select action from audit_log where record_id = ${id} order by seq`);
    expect(actions.map((a) => a.action)).toEqual(['create', 'pause', 'resume', 'update', 'delete']);
    expect((await env.ctx.db.select().from(reportSchedules).where(inArray(reportSchedules.id, [id]))).length).toBe(0);
  });

  test('refused: a filter value that does not exist, no recipient, a weekly schedule without its day, and anyone but a settings administrator', async () => {
    const refusal = await runWrite(env.ctx, (tx) => createSchedule(env.ctx, tx, admin, input({ filters: { status: 'nonsense', residualBand: 'Purple' } }))).catch((e) => e);
    expect(refusal.problems).toEqual([
      { field: 'filter.status', message: '"nonsense" is not one of the choices of Status' },
      { field: 'filter.residualBand', message: '"Purple" is not one of the choices of Residual band' },
      { field: 'recipients', message: 'choose at least one person or group to send the report to' },
    ]);
    const weekly = await runWrite(env.ctx, (tx) => createSchedule(env.ctx, tx, admin, input({ userIds: [alice.id], frequency: 'weekly' }))).catch((e) => e);
    expect(weekly.problems).toEqual([{ field: 'weekday', message: 'choose the day of the week' }]);
    const aliceActor = await alice.actor();
    const forbidden = await runWrite(env.ctx, async (tx) => createSchedule(env.ctx, tx, aliceActor, input({ userIds: [alice.id] }))).catch((e) => e);
    expect(forbidden.code).toBe('FORBIDDEN');
    expect(forbidden.reason ?? forbidden.message).toBeDefined();
  });
});

describe('periods', () => {
  test('daily is today; weekly the last chosen weekday; monthly the chosen day, or the month\'s last day in a shorter month', () => {
    expect(dueOn({ frequency: 'daily', weekday: null, monthDay: null }, '2026-11-27')).toBe('2026-11-27');
    // 2026-11-27 is a Friday.
    expect(dueOn({ frequency: 'weekly', weekday: 5, monthDay: null }, '2026-11-27')).toBe('2026-11-27');
    expect(dueOn({ frequency: 'weekly', weekday: 1, monthDay: null }, '2026-11-27')).toBe('2026-11-23');
    expect(dueOn({ frequency: 'weekly', weekday: 6, monthDay: null }, '2026-11-27')).toBe('2026-11-21');
    expect(dueOn({ frequency: 'monthly', weekday: null, monthDay: 15 }, '2026-11-27')).toBe('2026-11-15');
    expect(dueOn({ frequency: 'monthly', weekday: null, monthDay: 28 }, '2026-11-27')).toBe('2026-10-28');
    expect(dueOn({ frequency: 'monthly', weekday: null, monthDay: 31 }, '2026-11-30')).toBe('2026-11-30');
    expect(dueOn({ frequency: 'monthly', weekday: null, monthDay: 31 }, '2026-03-01')).toBe('2026-02-28');
    expect(dueOn({ frequency: 'monthly', weekday: null, monthDay: 5 }, '2026-01-02')).toBe('2025-12-05');
  });
});

describe('the Report Center takes the declared filters', () => {
  test('the printable page and the CSV of the risk register filtered by status; a value that does not exist is refused inside the app shell', async () => {
    const { signIn } = await import('../../src/platform/http/sessions');
    const { sessionCookieName } = await import('../../src/platform/http/screen-auth');
    const session = await signIn(env.ctx.db, alice.email, alice.password, '', { sessionHours: 1 });
    const get = (path: string) => env.request(path, { headers: { cookie: `${sessionCookieName(env.ctx.config)}=${session.secret}` }, redirect: 'manual' });
    const page = await get('/reports/riskRegister?status=closed');
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain(titles.aliceClosed);
    expect(html).not.toContain(titles.alice + '<');
    expect(html).toContain('Filtered by Status: Closed.');
    expect(html).toContain('href="/reports/riskRegister/csv?status=closed"');
    const csv = await (await get('/reports/riskRegister/csv?status=open')).text();
    expect(csv).toContain(titles.alice);
    expect(csv).not.toContain(titles.aliceClosed);
    const bad = await get('/reports/riskRegister?residualBand=Purple');
    const refused = await bad.text();
    expect(bad.status).toBe(400);
    // Refused on the report's own page, the value typed kept in its field and the problem linked to it.
    expect(refused).toContain('<a href="#filter-residualBand">&quot;Purple&quot; is not one of the choices of Residual band</a>');
    expect(refused).toContain('<nav class="sidenav"');
  });
});

describe('the Outbox screen', () => {
  test('names a scheduled report mail\'s attachment', async () => {
    const { signedInBrowser } = await import('../helpers/browser');
    const { ADMIN_EMAIL, ADMIN_PASSWORD } = await import('../helpers/app');
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await (await admin.get('/settings/outbox')).text();
    expect(page).toMatch(/Attached: riskRegister-\d{4}-\d{2}-\d{2}\.csv \(\d+ KB\)/);
  });
});
