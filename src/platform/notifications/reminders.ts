import { asc, eq, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { selectRows, type DbOrTx, type Tx } from '../../../db/client';
import { outbox, reminderDigests, reminderLists, reminderRuns, users } from '../../../db/schema';
import { appendAudit } from '../audit/audit';
import type { AppContext } from '../http/context';
import { log } from '../core/log';
import { dueDateKinds } from './declarations';
import { systemActor } from '../permissions/permissions';
import type { DueDateKind, ReminderWindow } from './declarations';
import { notificationSettings } from './settings';
import { refreshShownBrand } from '../branding/branding';
import { shownBrand } from '../../../views/brand';
import { dayAndHourIn, mailLink } from './wording';

/**
 * The daily reminder sweep. Once a day, at the configured hour in the configured time zone, one instance claims the
 * day under the background sweep's advisory lock and collects, with ONE statement per kind of due date, every person's
 * reminders grouped per kind (reminder_lists), and the ledger row of each person's digest (reminder_digests). Digests
 * are then queued in batches, one statement each: it locks the batch's ledger rows (SKIP LOCKED, so instances share the
 * work), renders the digests in the database (digestsOf), queues one
 * outbox mail per person and marks the rows in the same transaction. A crash leaves the unmarked rows for the next
 * sweep; nobody gets a day twice. Only a page of items per kind is kept per person (DIGEST_ITEMS), the count of all.
 */

/** Items listed per kind in a digest; the rest are counted, with a link to the register. */
export const DIGEST_ITEMS = 20;

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
      jsonb_agg(jsonb_build_object('id', r.record_id, 'title', r.title, 'due', r.due_on, 'note', r.note) order by r.due_on, r.title)
        filter (where r.n <= ${sql.raw(String(DIGEST_ITEMS))}) as items
    from (select r.*, row_number() over (partition by r.user_id order by r.due_on, r.title) as n
      from recipients r join users u on u.id = r.user_id and u.status = 'active'
      where ${kind.personal ? sql`true` : sql`r.user_id in (select gm.user_id from group_members gm join group_roles gr on gr.group_id = gm.group_id
          join role_permissions rp on rp.role_id = gr.role_id where rp.permission = ${permission})`}
        and r.user_id not in (select p.user_id from mail_preferences p where not p.digests)) r
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
  // Each kind sorts all its due items by person, date and title: with the default 4 MB they spill to disk at 100,000
  // items; this transaction alone gets the memory to keep them in RAM.
  await tx.execute(sql`set local work_mem = '64MB'`);
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

/** People queued per transaction: the digests are rendered and queued in the database, so a batch holds no mail here. */
const SEND_BATCH = 250;

/** Stands for a record's id in a kind's link while the links are made in SQL. */
const RECORD_ID = '__record_id__';

/**
 * Renders digests in one SQL pass: `people` (user_id, name, email) and their `lists` (user_id, kind, total, items as
 * kept in reminder_lists) become one row per person (user_id, email, subject, body, lists: how many kinds), so the
 * mail text never travels to this process and back. Everything due or overdue, grouped by kind in declaration order,
 * each item with its link; "… and N more" past the listed items.
 */
export function digestsOf(ctx: AppContext, day: string, people: SQL, lists: SQL): SQL {
  const kinds = dueDateKinds();
  const links = kinds.map((kind) => {
    const link = mailLink(ctx.config, kind.href(RECORD_ID));
    if (link.split(RECORD_ID).length !== 2) throw new Error(`the link of reminder kind ${kind.key} must contain the record's id once`);
    return link;
  });
  const param = (values: unknown[], type: string) => sql`${sql.param(values)}::${sql.raw(type)}[]`;
  const days = (n: SQL) => sql`${n} || case when ${n} = 1 then ' day' else ' days' end`;
  const diff = sql`((i.item->>'due')::date - ${day}::date)`;
  const due = sql`(i.item->>'due')`;
  const words = sql`case when k.date_word = 'expires' then
      case when ${diff} > 0 then 'expires ' || ${due} || ' (in ' || ${days(diff)} || ')' when ${diff} = 0 then 'expires today (' || ${due} || ')' else 'expired ' || ${due} end
    else
      case when ${diff} > 0 then 'due ' || ${due} when ${diff} = 0 then 'due today (' || ${due} || ')' else 'due ' || ${due} || ' (' || ${days(sql`-${diff}`)} || ' overdue)' end
    end`;
  return sql`with people as (${people}), lists as (${lists}),
    kinds as (select * from unnest(${param(kinds.map((k) => k.key), 'text')}, ${param(kinds.map((k) => k.label), 'text')},
        ${param(links, 'text')}, ${param(kinds.map((k) => k.dateWord), 'text')}) with ordinality k(key, label, link, date_word, position)),
    blocks as (
      select l.user_id, k.position, k.label || ' (' || l.total || ')' || E'\\n'
        || coalesce((select string_agg('  - ' || coalesce(i.item->>'title', '') || ': ' || ${words}
              || case when coalesce(i.item->>'note', '') <> '' then '; ' || (i.item->>'note') else '' end
              || E'\\n    ' || replace(k.link, ${RECORD_ID}, i.item->>'id') || E'\\n', '' order by i.n)
            from jsonb_array_elements(l.items) with ordinality i(item, n)), '')
        || case when l.total > jsonb_array_length(l.items) then '  … and ' || (l.total - jsonb_array_length(l.items)) || E' more.\\n' else '' end
        || E'\\n' as text
      from lists l join kinds k on k.key = l.kind),
    totals as (select user_id, sum(total)::int as total, count(*)::int as lists from lists group by user_id)
    select p.user_id, p.email, coalesce(t.lists, 0) as lists,
      'Reminders for ' || ${day} || ': ' || coalesce(t.total, 0) || case when coalesce(t.total, 0) = 1 then ' item' else ' items' end || ' due or overdue' as subject,
      'Hello ' || p.name || E',\\n\\n' || coalesce(t.total, 0) || case when coalesce(t.total, 0) = 1 then ' item needs' else ' items need' end
        || ' your attention on ' || ${day} || E'.\\n\\n'
        || coalesce((select string_agg(b.text, '' order by b.position) from blocks b where b.user_id = p.user_id), '')
        || 'You receive this daily digest because these records are yours. Turn digests off for yourself at '
        || ${mailLink(ctx.config, '/settings/my-notifications')} || '.'
        -- The organisation's name from Settings › Branding (mails are plain text: no logo or colour).
        || E'\n\n— ' || ${shownBrand().name} as body
    from people p left join totals t on t.user_id = p.user_id`;
}

/**
 * Queues the digests of one batch of people still waiting for `day`'s, in one statement: lock their ledger rows (SKIP
 * LOCKED), render their digests, insert them into the outbox and mark the rows. Answers how many (0: none left unlocked).
 */
async function queueBatch(ctx: AppContext, day: string): Promise<number> {
  const people = sql`select d.user_id, u.name, u.email from ${reminderDigests} d join ${users} u on u.id = d.user_id
    where d.day = ${day}::date and d.outbox_id is null order by d.user_id limit ${SEND_BATCH} for update of d skip locked`;
  const lists = sql`select l.user_id, l.kind, l.total, l.items from ${reminderLists} l
    where l.day = ${day}::date and l.user_id in (select user_id from people)`;
  const [done] = await selectRows<{ queued: number }>(ctx.db, sql`with mails as materialized (
      select nextval(pg_get_serial_sequence('outbox', 'id')) as id, m.* from (${digestsOf(ctx, day, people, lists)}) m),
    queued as (insert into ${outbox} (id, kind, recipients, subject, body) select id, 'digest', array[email], subject, body from mails),
    marked as (update ${reminderDigests} d set outbox_id = m.id, queued_at = now() from mails m
      where d.day = ${day}::date and d.user_id = m.user_id returning 1)
    select count(*)::int as queued from marked`);
  return done.queued;
}

/** Per context: one sender at a time in this process (other instances share the work through SKIP LOCKED). */
const sending = new WeakMap<AppContext, Promise<number>>();

/** Queues every digest still waiting, of any unfinished day; marks a day finished when none is left. */
export function sendDigests(ctx: AppContext): Promise<number> {
  let running = sending.get(ctx);
  if (!running) {
    running = (async () => {
      await refreshShownBrand(ctx.db, 0);
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
  const people = sql`select id as user_id, name, email from ${users} where id = ${userId}::uuid`;
  const lists = sql`select * from (${sql.join(kinds.map((kind) => sql`(${remindersOf(kind, window)})`), sql` union all `)}) lists where user_id = ${userId}::uuid`;
  const [digest] = await selectRows<{ email: string; lists: number; subject: string; body: string }>(ctx.db, digestsOf(ctx, next.day, people, lists));
  if (!digest || digest.lists === 0) return null;
  return { day: next.day, email: digest.email, subject: digest.subject, body: digest.body };
}

/** Past sweeps, newest first, for Settings › Notifications. */
export const recentRuns = (db: DbOrTx) => db.select().from(reminderRuns).orderBy(sql`${reminderRuns.day} desc`).limit(7);
