import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { boot } from '../../src/app';
import { readConfig } from '../../src/config';
import { controlKind } from '../../src/modules/controls/service';
import { collectDay } from '../../src/platform/notifications/reminders';
import { notificationSettings, saveNotificationSettings } from '../../src/platform/notifications/settings';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { createTestDatabaseUrl } from '../helpers/db';
import { adminActor, makeUser } from '../helpers/factories';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

const base = process.env.DATABASE_URL;
if (!base) console.warn('notifications/sweep-processes: skipped on the embedded database (one process owns it); run with DATABASE_URL to include it');

/** Boots, seeding and two or three server processes on a busy machine: minutes. */
const LIMIT = 600_000;
const PEOPLE = 40;

/** A fresh database with PEOPLE owners, each owning one control whose test is due today, and reminders due at any hour (UTC). */
async function seededDatabase(): Promise<{ url: string; emails: string[]; ids: string[]; today: string }> {
  const url = (await createTestDatabaseUrl())!;
  const ctx = await boot(readConfig({ DATABASE_URL: url, ADMIN_EMAIL, ADMIN_PASSWORD, LOG_LEVEL: 'error' }));
  const env = { ctx, app: null as never, request: null as never };
  const admin = await adminActor(env);
  const people: Awaited<ReturnType<typeof makeUser>>[] = [];
  for (let i = 0; i < PEOPLE; i++) people.push(await makeUser(env, { 'controls:read': 'own' }, `owner-${String(i).padStart(2, '0')}-${process.pid}-${Date.now().toString(36)}`));
  await ctx.db.transaction(async (tx) => {
    for (const person of people) await createRecord(tx, controlKind, admin, { name: `Backup check of ${person.email}`, testFrequencyMonths: 12, ownerId: person.id });
    await saveNotificationSettings(tx, admin, { ...(await notificationSettings(tx)), reminderHour: 0, timeZone: 'UTC' });
  });
  await ctx.close();
  return { url, emails: people.map((p) => p.email), ids: people.map((p) => p.id), today: new Date().toISOString().slice(0, 10) };
}

const digestCounts = async (sql: postgres.Sql, day: string) =>
  sql<{ recipient: string; n: number }[]>`select recipients[1] as recipient, count(*)::int as n from outbox where kind = 'digest' and subject like ${`Reminders for ${day}%`} group by 1`;

describe.skipIf(!base)('the reminder sweep in several server processes on one PostgreSQL database', () => {
  let smtp: TestSmtp;
  const started: ServerProcess[] = [];
  const connections: postgres.Sql[] = [];

  beforeAll(async () => {
    smtp = await startTestSmtp();
  });
  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    await Promise.all(connections.map((c) => c.end({ timeout: 5 })));
    await smtp?.close();
  }, LIMIT);

  const start = async (url: string) => {
    const server = await startServerProcess({ DATABASE_URL: url, SWEEP_INTERVAL_SECONDS: '1', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'GRC <grc@test.example>' });
    started.push(server);
    return server;
  };

  async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 240_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await check();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await Bun.sleep(250);
    }
  }

  test('two processes sweeping at once send each person one digest', async () => {
    const seeded = await seededDatabase();
    const sql = postgres(seeded.url, { max: 2, onnotice: () => {} });
    connections.push(sql);
    const [a, b] = await Promise.all([start(seeded.url), start(seeded.url)]);
    await until('the day to be finished', async () => {
      const [run] = await sql<{ finished: boolean }[]>`select finished_at is not null as finished from reminder_runs where day = ${seeded.today}`;
      return run?.finished ? true : undefined;
    });
    const counts = await digestCounts(sql, seeded.today);
    expect(counts.map((c) => c.recipient).sort()).toEqual([...seeded.emails].sort());
    expect(counts.every((c) => c.n === 1)).toBe(true);
    // Both kept sweeping every second meanwhile, and the SMTP server got each digest once.
    await until('every digest delivered', async () => {
      const got = smtp.received.filter((m) => m.subject.startsWith(`Reminders for ${seeded.today}`) && seeded.emails.includes(m.to[0]));
      return got.length >= PEOPLE ? got : undefined;
    });
    await Bun.sleep(3_000);
    const delivered = smtp.received.filter((m) => m.subject.startsWith(`Reminders for ${seeded.today}`) && seeded.emails.includes(m.to[0]));
    expect(delivered.map((m) => m.to[0]).sort()).toEqual([...seeded.emails].sort());
    expect(delivered[0].body).toContain('Control tests due (1)');
    expect(a.alive() && b.alive()).toBe(true);
    await Promise.all([a.stop(), b.stop()]);
  }, LIMIT);

  test('a process killed between digests: the next one sends the rest, and nobody gets the day twice', async () => {
    const seeded = await seededDatabase();
    const sql = postgres(seeded.url, { max: 3, onnotice: () => {} });
    connections.push(sql);
    // The day collected as a sweep would, so the test can hold one person's digest back while a process sends.
    const ctx = await boot(readConfig({ DATABASE_URL: seeded.url, ADMIN_EMAIL, ADMIN_PASSWORD, LOG_LEVEL: 'error' }));
    await ctx.db.transaction((tx) => collectDay(ctx, tx, seeded.today));
    await ctx.close();
    const heldBack = [...seeded.ids].sort()[PEOPLE / 2];
    const reserved = await sql.reserve();
    await reserved`begin`;
    await reserved`select 1 from reminder_digests where day = ${seeded.today} and user_id = ${heldBack} for update`;

    const first = await start(seeded.url);
    await until('every other digest to be queued', async () => {
      const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from reminder_digests where day = ${seeded.today} and outbox_id is not null`;
      return n === PEOPLE - 1 ? n : undefined;
    });
    first.process.kill('SIGKILL');
    await first.process.exited;
    const [run] = await sql<{ finished: Date | null }[]>`select finished_at as finished from reminder_runs where day = ${seeded.today}`;
    expect(run.finished).toBeNull();
    await reserved`rollback`;
    reserved.release();

    const second = await start(seeded.url);
    await until('the day to be finished', async () => {
      const [done] = await sql<{ finished: boolean }[]>`select finished_at is not null as finished from reminder_runs where day = ${seeded.today}`;
      return done?.finished ? true : undefined;
    });
    const counts = await digestCounts(sql, seeded.today);
    expect(counts.map((c) => c.recipient).sort()).toEqual([...seeded.emails].sort());
    expect(counts.every((c) => c.n === 1)).toBe(true);
    expect(second.alive()).toBe(true);
  }, LIMIT);
});
