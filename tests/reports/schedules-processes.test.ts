import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { boot } from '../../src/app';
import { readConfig } from '../../src/config';
import { createRecord } from '../../src/platform/records/records';
import { incidentKind } from '../../src/modules/incidents/service';
import { addGroupMember, createGroup } from '../../src/modules/people/service';
import { notificationSettings, saveNotificationSettings } from '../../src/platform/notifications/settings';
import { createSchedule, type ReportScheduleInput } from '../../src/platform/notifications/report-schedules';
import { systemActor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { createTestDatabaseUrl } from '../helpers/db';
import { adminActor, makeRisk, makeUser } from '../helpers/factories';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

const base = process.env.DATABASE_URL;
if (!base) console.warn('reports/schedules-processes: skipped on the embedded database (one process owns it); run with DATABASE_URL to include it');

/** Seeding, two server boots and their sweeps on a busy machine: minutes. */
const LIMIT = 600_000;

interface Seeded {
  url: string;
  today: string;
  /** Each schedule's name and the addresses it must reach, once each. */
  schedules: { name: string; to: string[] }[];
  titles: { alice: string; bob: string };
}

/**
 * A fresh database seeded through the services: reports due from the hour 0 (UTC), two readers of their own risks, an
 * incident and a group, and three schedules due today: daily, weekly on today's weekday, monthly on today's date.
 */
async function seededDatabase(): Promise<Seeded> {
  const url = (await createTestDatabaseUrl())!;
  const ctx = await boot(readConfig({ DATABASE_URL: url, ADMIN_EMAIL, ADMIN_PASSWORD, LOG_LEVEL: 'error' }));
  const env = { ctx, app: null as never, request: null as never };
  const stamp = `${process.pid}-${Date.now().toString(36)}`;
  try {
    const admin = await adminActor(env);
    const alice = await makeUser(env, { 'risks:read': 'own', 'incidents:read': 'all' }, `alice-${stamp}`);
    const bob = await makeUser(env, { 'risks:read': 'own' }, `bob-${stamp}`);
    const titles = { alice: `Alice's open risk ${stamp}`, bob: `Bob's open risk ${stamp}` };
    await makeRisk(env, admin, { title: titles.alice, ownerId: alice.id });
    await makeRisk(env, admin, { title: titles.bob, ownerId: bob.id });
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const schedules = await ctx.db.transaction(async (tx) => {
      await saveNotificationSettings(tx, admin, { ...(await notificationSettings(tx)), reminderHour: 0, timeZone: 'UTC' });
      await createRecord(tx, incidentKind, admin, { title: `Lost laptop ${stamp}` });
      const { id: readers } = await createGroup(tx, systemActor(), { name: `Incident readers ${stamp}` });
      await addGroupMember(tx, systemActor(), readers, alice.id);
      const input = (over: Partial<ReportScheduleInput>): ReportScheduleInput => ({
        name: '', reportKey: 'riskRegister', filters: {}, frequency: 'daily', weekday: null, monthDay: null, userIds: [], groupIds: [], paused: false, ...over,
      });
      const made = [
        { values: input({ name: `Open risks daily ${stamp}`, filters: { status: 'open' }, userIds: [alice.id, bob.id] }), to: [alice.email, bob.email] },
        { values: input({ name: `Incidents weekly ${stamp}`, reportKey: 'incidents', frequency: 'weekly', weekday: ((now.getUTCDay() + 6) % 7) + 1, groupIds: [readers] }), to: [alice.email] },
        { values: input({ name: `Risks monthly ${stamp}`, frequency: 'monthly', monthDay: now.getUTCDate(), userIds: [bob.id] }), to: [bob.email] },
      ];
      for (const m of made) await createSchedule(ctx, tx, admin, m.values);
      return made.map((m) => ({ name: m.values.name, to: m.to }));
    });
    return { url, today, schedules, titles };
  } finally {
    await ctx.close();
  }
}

describe.skipIf(!base)('scheduled reports swept by two server processes on one PostgreSQL database', () => {
  let smtp: TestSmtp;
  const started: ServerProcess[] = [];
  let sql: postgres.Sql | undefined;

  beforeAll(async () => {
    smtp = await startTestSmtp();
  });
  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    await sql?.end({ timeout: 5 });
    await smtp?.close();
  }, LIMIT);

  async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 240_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await check();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await Bun.sleep(250);
    }
  }

  test('both sweeping every second: each schedule is sent once for the period, each recipient mailed once, and later sweeps send nothing more', async () => {
    const seeded = await seededDatabase();
    sql = postgres(seeded.url, { max: 2, onnotice: () => {} });
    const db = sql;
    const expected = seeded.schedules.flatMap((s) => s.to.map((to) => `${s.name} -> ${to}`)).sort();
    const env = { DATABASE_URL: seeded.url, SWEEP_INTERVAL_SECONDS: '1', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'GRC <grc@test.example>' };
    // Started together, so their one-second sweeps meet from the first.
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    started.push(a, b);

    const delivered = () => smtp.received
      .flatMap((m) => seeded.schedules.filter((s) => m.subject.includes(s.name)).map((s) => ({ key: `${s.name} -> ${m.to[0]}`, mail: m })));
    await until('every schedule sent for today', async () => {
      const rows = await db<{ n: number }[]>`select count(*)::int as n from report_schedules where last_period = ${seeded.today}`;
      return rows[0].n === seeded.schedules.length ? true : undefined;
    });
    await until('every mail delivered', async () => (delivered().length >= expected.length ? true : undefined));
    // Several more sweeps by either process: the period is taken, so nothing is queued or sent again.
    const [{ runs }] = await db<{ runs: number }[]>`select runs::int as runs from sweep_runs where name = 'sweep'`;
    await until('four more sweeps', async () => {
      const [now] = await db<{ runs: number }[]>`select runs::int as runs from sweep_runs where name = 'sweep'`;
      return now.runs >= runs + 4 ? true : undefined;
    }, 120_000);
    await Bun.sleep(1_500);

    expect(delivered().map((d) => d.key).sort()).toEqual(expected);
    const queued = await db<{ subject: string; to: string; attempts: number }[]>`
      select subject, recipients[1] as to, attempts from outbox where kind = 'scheduledReport' order by subject, recipients[1]`;
    expect(queued.map((q) => `${seeded.schedules.find((s) => q.subject.includes(s.name))?.name} -> ${q.to}`).sort()).toEqual(expected);
    // One delivery try per mail between the two mailers.
    expect(queued.every((q) => q.attempts === 1)).toBe(true);
    const sent = await db<{ n: number; period: string }[]>`
      select count(*)::int as n, min(details ->> 'period') as period from audit_log where action = 'reportSchedule.sent' group by record_id`;
    expect(sent.map((s) => [s.n, s.period])).toEqual(seeded.schedules.map(() => [1, seeded.today]));
    const outcomes = await db<{ name: string; outcome: string }[]>`select name, last_outcome as outcome from report_schedules order by name`;
    expect(outcomes.map((o) => o.outcome)).toEqual([...seeded.schedules].sort((x, y) => x.name.localeCompare(y.name))
      .map((s) => `Sent to ${s.to.length} ${s.to.length === 1 ? 'person' : 'people'}`));

    // Each recipient's CSV is read with their own rights: Bob's daily mail counts his one open risk, not Alice's.
    const toBob = delivered().find((d) => d.key === `${seeded.schedules[0].name} -> ${seeded.schedules[0].to[1]}`)!.mail;
    expect(toBob.body).toContain('1 row you may read');
    expect(a.alive() && b.alive()).toBe(true);
  }, LIMIT);
});
