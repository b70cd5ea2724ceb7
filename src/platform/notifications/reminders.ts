import { and, asc, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { selectRows, type DbOrTx, type Tx } from '../../../db/client';
import { outbox, reminderDigests, reminderLists, reminderRuns, users } from '../../../db/schema';
import { appendAudit } from '../audit/audit';
import type { AppContext } from '../http/context';
import { log } from '../core/log';
import { dueDateKinds } from './declarations';
import { systemActor } from '../permissions/permissions';
import type { DueDateKind, ReminderWindow } from './declarations';
import { notificationSettings } from './settings';
import { dayAndHourIn, daysBetween, mailLink, plural } from './wording';

/**
 * The daily reminder sweep. Once a day, at the configured hour in the configured time zone, one instance claims the
 * day under the background sweep's advisory lock and collects, with ONE statement per kind of due date, every person's
 * reminders grouped per kind (reminder_lists), and the ledger row of each person's digest (reminder_digests). Digests
 * are then queued in batches: each batch locks its ledger rows (SKIP LOCKED, so instances share the work), queues one
 * outbox mail per person and marks the rows in the same transaction. A crash leaves the unmarked rows for the next
 * sweep; nobody gets a day twice. Only a page of items per kind is kept per person (DIGEST_ITEMS), the count of all.
 */

/** Items listed per kind in a digest; the rest are counted, with a link to the register. */
export const DIGEST_ITEMS = 20;
const SEND_BATCH = 100;

export interface DigestItem {
  id: string;
  title: string;
  due: string;
  note: string | null;
}

const windowOf = (day: string, since: string | null, sinceAt: Date | null): ReminderWindow => ({
  today: sql`${day}::date`,
  since: sql`${since}::date`,
  sinceAt: sql`${sinceAt ? sinceAt.toISOString() : null}::timestamptz`,
});

/**
 * A kind's statement: its records due, each for its recipient (the owner while active, else the owner group's members),
 * kept to people who are active, hold the kind's read right and have not turned digests off; grouped per person with
 * the count and the first DIGEST_ITEMS items by date.
 */
export function remindersOf(kind: DueDateKind, window: ReminderWindow): SQL {
  const permission = `${kind.module}:read`;
  return sql`with due as (${kind.query(window)}),
    recipients as (
      select o.id as user_id, due.* from due join users o on o.id = due.owner_id and o.status = 'active'
      union all
      select gm.user_id, due.* from due join group_members gm on gm.group_id = due.owner_group_id
        where not exists (select 1 from users o where o.id = due.owner_id and o.status = 'active')
    )
    select r.user_id, ${kind.key}::text as kind, count(*)::int as total,
      to_jsonb((array_agg(jsonb_build_object('id', r.record_id, 'title', r.title, 'due', r.due_on, 'note', r.note) order by r.due_on, r.title))[1:${sql.raw(String(DIGEST_ITEMS))}]) as items
    from recipients r join users u on u.id = r.user_id and u.status = 'active'
    where ${kind.personal ? sql`true` : sql`r.user_id in (select gm.user_id from group_members gm join group_roles gr on gr.group_id = gm.group_id
        join role_permissions rp on rp.role_id = gr.role_id where rp.permission = ${permission})`}
      and r.user_id not in (select p.user_id from mail_preferences p where not p.digests)
    group by r.user_id`;
}

/** The day due now (in the configured zone, at or after the configured hour), or null. */
export async function dueDay(db: DbOrTx, now = new Date()): Promise<string | null> {
  const settings = await notificationSettings(db);
  if (settings.paused) return null;
  const { day, hour } = dayAndHourIn(now, settings.timeZone);
  return hour >= settings.reminderHour ? day : null;
}

/**
 * Claims `day` and collects its reminders, in the caller's transaction (the sweep's, under its lock). Answers false when
 * the day was claimed before (by any instance).
 */
export async function collectDay(tx: Tx, day: string): Promise<boolean> {
  const [previous] = await tx.select({ day: reminderRuns.day, startedAt: reminderRuns.startedAt }).from(reminderRuns)
    .where(lt(reminderRuns.day, day)).orderBy(sql`${reminderRuns.day} desc`).limit(1);
  const claimed = await tx.insert(reminderRuns).values({ day, since: previous?.day ?? null, sinceAt: previous?.startedAt ?? null })
    .onConflictDoNothing().returning({ day: reminderRuns.day });
  if (claimed.length === 0) return false;
  const window = windowOf(day, previous?.day ?? null, previous?.startedAt ?? null);
  for (const kind of dueDateKinds()) {
    await tx.execute(sql`insert into ${reminderLists} (day, user_id, kind, total, items)
      select ${day}::date, user_id, kind, total, items from (${remindersOf(kind, window)}) lists`);
  }
  const [counts] = await selectRows<{ recipients: number; items: number }>(tx, sql`with ledger as (
      insert into ${reminderDigests} (day, user_id, items)
      select day, user_id, sum(total)::int from ${reminderLists} where day = ${day}::date group by day, user_id
      returning items)
    select count(*)::int as recipients, coalesce(sum(items), 0)::int as items from ledger`);
  await tx.update(reminderRuns).set({ recipients: counts.recipients, items: counts.items }).where(eq(reminderRuns.day, day));
  return true;
}

interface Person {
  userId: string;
  name: string;
  email: string;
}

/** Queues the digests of one batch of people still waiting for `day`'s; answers how many (0: none left unlocked). */
async function queueBatch(ctx: AppContext, day: string): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const people = await selectRows<Person>(tx, sql`select d.user_id as "userId", u.name, u.email
      from ${reminderDigests} d join ${users} u on u.id = d.user_id
      where d.day = ${day}::date and d.outbox_id is null
      order by d.user_id limit ${SEND_BATCH} for update of d skip locked`);
    if (people.length === 0) return 0;
    const lists = await tx.select().from(reminderLists)
      .where(and(eq(reminderLists.day, day), inArray(reminderLists.userId, people.map((p) => p.userId))));
    const byPerson = new Map<string, typeof lists>();
    for (const list of lists) byPerson.set(list.userId, [...(byPerson.get(list.userId) ?? []), list]);
    const mails = people.map((person) => ({ kind: 'digest', recipients: [person.email], ...renderDigest(ctx, day, person, byPerson.get(person.userId) ?? []) }));
    const queued = await tx.insert(outbox).values(mails).returning({ id: outbox.id });
    await tx.execute(sql`update ${reminderDigests} d set outbox_id = q.outbox_id, queued_at = now()
      from (select unnest(${sql.param(people.map((p) => p.userId))}::uuid[]) as user_id, unnest(${sql.param(queued.map((q) => q.id))}::bigint[]) as outbox_id) q
      where d.day = ${day}::date and d.user_id = q.user_id`);
    return people.length;
  });
}

const ORDER = () => new Map(dueDateKinds().map((kind, i) => [kind.key, { kind, i }]));

/** One person's digest: everything due or overdue for them, grouped by kind, with links. */
export function renderDigest(ctx: AppContext, day: string, person: Pick<Person, 'name'>, lists: { kind: string; total: number; items: unknown }[]) {
  const kinds = ORDER();
  const sorted = [...lists].sort((a, b) => (kinds.get(a.kind)?.i ?? 99) - (kinds.get(b.kind)?.i ?? 99));
  const total = sorted.reduce((n, l) => n + l.total, 0);
  const lines = [`Hello ${person.name},`, '', `${plural(total, 'item')} ${total === 1 ? 'needs' : 'need'} your attention on ${day}.`, ''];
  for (const list of sorted) {
    const kind = kinds.get(list.kind)?.kind;
    if (!kind) continue;
    lines.push(`${kind.label} (${list.total})`);
    for (const item of list.items as DigestItem[]) {
      lines.push(`  - ${item.title}: ${dueWords(kind, day, item.due)}${item.note ? `; ${item.note}` : ''}`, `    ${mailLink(ctx.config, kind.href(item.id))}`);
    }
    if (list.total > (list.items as DigestItem[]).length) lines.push(`  … and ${list.total - (list.items as DigestItem[]).length} more.`);
    lines.push('');
  }
  lines.push(`You receive this daily digest because these records are yours. Turn digests off for yourself at ${mailLink(ctx.config, '/settings/my-notifications')}.`);
  return { subject: `Reminders for ${day}: ${plural(total, 'item')} due or overdue`, body: lines.join('\n') };
}

function dueWords(kind: DueDateKind, day: string, date: string): string {
  const days = daysBetween(day, date);
  if (kind.dateWord === 'expires') {
    return days > 0 ? `expires ${date} (in ${plural(days, 'day')})` : days === 0 ? `expires today (${date})` : `expired ${date}`;
  }
  return days > 0 ? `due ${date}` : days === 0 ? `due today (${date})` : `due ${date} (${plural(-days, 'day')} overdue)`;
}

/** Per context: one sender at a time in this process (other instances share the work through SKIP LOCKED). */
const sending = new WeakMap<AppContext, Promise<number>>();

/** Queues every digest still waiting, of any unfinished day; marks a day finished when none is left. */
export function sendDigests(ctx: AppContext): Promise<number> {
  let running = sending.get(ctx);
  if (!running) {
    running = (async () => {
      let queued = 0;
      const open = await ctx.db.select({ day: reminderRuns.day }).from(reminderRuns).where(isNull(reminderRuns.finishedAt)).orderBy(asc(reminderRuns.day));
      for (const { day } of open) {
        for (let n = await queueBatch(ctx, day); n > 0; n = await queueBatch(ctx, day)) queued += n;
        await finishDay(ctx, day);
      }
      return queued;
    })().finally(() => sending.delete(ctx));
    sending.set(ctx, running);
  }
  return running;
}

/** A day whose every digest is queued is finished: audited once, and its lists dropped (the outbox keeps the mails). */
async function finishDay(ctx: AppContext, day: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const finished = await selectRows<{ recipients: number; items: number }>(tx, sql`update ${reminderRuns} set finished_at = now()
      where day = ${day}::date and finished_at is null
        and not exists (select 1 from ${reminderDigests} where day = ${day}::date and outbox_id is null)
      returning recipients, items`);
    if (finished.length === 0) return;
    await tx.delete(reminderLists).where(eq(reminderLists.day, day));
    await appendAudit(tx, systemActor(), [{ module: 'notifications', action: 'reminders.sent', details: { day, digests: finished[0].recipients, items: finished[0].items } }]);
  });
}

/**
 * The sweep's part: claims and collects the due day when its hour has come (inside the sweep's locked transaction),
 * answering whether there is sending to do.
 */
export async function claimDueDay(tx: Tx, now = new Date()): Promise<boolean> {
  const day = await dueDay(tx, now);
  const collected = day ? await collectDay(tx, day) : false;
  if (collected) log.info('reminders collected', { day });
  const [open] = await tx.select({ day: reminderRuns.day }).from(reminderRuns).where(isNull(reminderRuns.finishedAt)).limit(1);
  return collected || open !== undefined;
}

/* ---------- Preview: the next sweep's digests, without writing anything ---------- */

/** The day the next sweep will remind of, and the window it will use. */
export async function nextSweep(db: DbOrTx, now = new Date()) {
  const settings = await notificationSettings(db);
  const { day: today, hour } = dayAndHourIn(now, settings.timeZone);
  const [done] = await db.select({ day: reminderRuns.day }).from(reminderRuns).where(eq(reminderRuns.day, today));
  const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const day = done ? tomorrow : today;
  const [previous] = await db.select({ day: reminderRuns.day, startedAt: reminderRuns.startedAt }).from(reminderRuns)
    .where(lt(reminderRuns.day, day)).orderBy(sql`${reminderRuns.day} desc`).limit(1);
  return { day, hourPassed: !done && hour >= settings.reminderHour, settings, since: previous?.day ?? null, sinceAt: previous?.startedAt ?? null };
}

export interface PreviewRow {
  userId: string;
  name: string;
  email: string;
  kinds: Record<string, number>;
  total: number;
}

/** Who gets what at the next sweep: per person the count per kind (a page of people by name), and the number of people. */
export async function previewNextSweep(db: DbOrTx, page: { offset: number; limit: number }, now = new Date()) {
  const next = await nextSweep(db, now);
  const window = windowOf(next.day, next.since, next.sinceAt);
  const kinds = dueDateKinds();
  const lists = sql.join(kinds.map((kind) => sql`(${remindersOf(kind, window)})`), sql` union all `);
  const rows = kinds.length === 0 ? [] : await selectRows<PreviewRow & { people: number }>(db, sql`with lists as (${lists}),
      people as (select user_id, jsonb_object_agg(kind, total) as kinds, sum(total)::int as total from lists group by user_id)
    select p.user_id as "userId", u.name, u.email, p.kinds, p.total, count(*) over ()::int as people
    from people p join ${users} u on u.id = p.user_id order by u.name, u.id offset ${page.offset} limit ${page.limit}`);
  return { ...next, kinds, rows, people: rows[0]?.people ?? 0 };
}

/** One person's digest as the next sweep would send it (null when they get none). */
export async function previewDigest(ctx: AppContext, userId: string, now = new Date()) {
  const next = await nextSweep(ctx.db, now);
  const window = windowOf(next.day, next.since, next.sinceAt);
  const kinds = dueDateKinds();
  if (kinds.length === 0) return null;
  const lists = await selectRows<{ kind: string; total: number; items: DigestItem[] }>(ctx.db, sql`select * from (${sql.join(kinds.map((kind) => sql`(${remindersOf(kind, window)})`), sql` union all `)}) lists where user_id = ${userId}::uuid`);
  const [person] = await ctx.db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, userId));
  if (!person || lists.length === 0) return null;
  return { day: next.day, email: person.email, ...renderDigest(ctx, next.day, person, lists) };
}

/** Past sweeps, newest first, for Settings › Notifications. */
export const recentRuns = (db: DbOrTx) => db.select().from(reminderRuns).orderBy(sql`${reminderRuns.day} desc`).limit(7);
