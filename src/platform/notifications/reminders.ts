import { asc, eq, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { selectRows, type DbOrTx, type Tx } from '../../../db/client';
import { outbox, reminderDigests, reminderRuns, users } from '../../../db/schema';
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
 * day under the background sweep's advisory lock and, in ONE statement over every kind of due date, renders each
 * person's digest in the database (digestsOf) into the day's ledger (reminder_digests: one row per person, with the
 * mail's subject and text). Digests are then queued in batches, one statement each: it locks the batch's ledger rows
 * (SKIP LOCKED, so instances share the work), copies their mails into the outbox and marks the rows in the same
 * transaction. A crash leaves the unmarked rows for the next sweep; nobody gets a day twice. Only a page of items per
 * kind is listed per person (DIGEST_ITEMS), with the count of all. No mail text passes through this process.
 */

/** Items listed per kind in a digest; the rest are counted, with a link to the register. */
export const DIGEST_ITEMS = 20;

const windowOf = (day: string, since: string | null, sinceAt: Date | null): ReminderWindow => ({
  today: sql`${day}::date`,
  since: sql`${since}::date`,
  sinceAt: sql`${sinceAt ? sinceAt.toISOString() : null}::timestamptz`,
});

/** A whole number as an SQL literal (a kind's position: a parameter there would be typed text). */
const int = (n: number) => sql.raw(String(Math.trunc(n)));

/**
 * Every kind's due items, each for its recipient: `user_id`, `kind` (the kind's position in `kinds`, from 1),
 * `record_id`, `title`, `due_on`, `note`. The recipient is the record's owner while active, else each active member of
 * its owner group; kept to people who hold the kind's read right (a `personal` kind needs none) and have not turned
 * digests off. One pass over every kind's items; `only` keeps one person (the preview).
 */
export function dueItemsOf(kinds: readonly DueDateKind[], window: ReminderWindow, only?: string): SQL {
  // A personal kind needs no right: '' stands for that.
  const permissionOf = (kind: DueDateKind) => (kind.personal ? '' : `${kind.module}:read`);
  const permissions = [...new Set(kinds.map(permissionOf))];
  const due = sql.join(kinds.map((kind, i) => sql`select ${int(i + 1)} as kind, ${permissionOf(kind)}::text as permission,
      k.record_id, k.title, k.due_on, k.owner_id, k.owner_group_id, k.note from (${kind.query(window)}) k`), sql` union all `);
  // Owners and groups are resolved against two small sets made once: the active people, whether they get digests and
  // the rights their groups give them; per group and right, the members who get digests and hold it. Each item meets
  // two hashes; no join follows, so the items go straight to the sort. (Owners are the active people joined back to
  // users, so the planner knows there is one row per person and hashes them.)
  const items = sql`with rights as materialized (
      select u.id, array[u.id] as self, coalesce(p.digests, true) as receives, coalesce(r.rights, '{}') || ''::text as rights
      from ${users} u left join mail_preferences p on p.user_id = u.id
        left join (select rm.user_id, array_agg(distinct rp.permission) as rights from group_members rm
            join group_roles gr on gr.group_id = rm.group_id join role_permissions rp on rp.role_id = gr.role_id group by rm.user_id) r
          on r.user_id = u.id
      where u.status = 'active')
    select unnest(case when o.id is not null then case when o.receives and due.permission = any(o.rights) then o.self end else g.members end) as user_id,
      due.kind, due.record_id, due.title, due.due_on, due.note
    from (${due}) due
      left join (select u.id, r.self, r.receives, r.rights from ${users} u join rights r on r.id = u.id) o on o.id = due.owner_id
      left join (select gm.group_id, k.permission, array_agg(gm.user_id) as members
          from group_members gm join rights r on r.id = gm.user_id and r.receives
            join unnest(${sql.param(permissions)}::text[]) k(permission) on k.permission = any(r.rights)
          group by gm.group_id, k.permission) g on g.group_id = due.owner_group_id and g.permission = due.permission`;
  return only ? sql`select * from (${items}) i where i.user_id = ${only}::uuid` : items;
}

/**
 * Items due the same day are listed by title in code-point order: the sort of every item by person, kind, date and
 * title then compares titles byte by byte instead of through the database's collation (a tenth of the sweep's sort).
 */
const byTitle = sql`i.title collate "C"`;

/**
 * One kind's reminders grouped per person: `user_id`, `kind` (its key), `total` and the first DIGEST_ITEMS `items` by
 * date (id, title, due, note), as the digest lists them.
 */
export function remindersOf(kind: DueDateKind, window: ReminderWindow): SQL {
  return sql`select r.user_id, ${kind.key}::text as kind, count(*)::int as total,
      jsonb_agg(jsonb_build_object('id', r.record_id, 'title', r.title, 'due', r.due_on, 'note', r.note) order by r.n)
        filter (where r.n <= ${int(DIGEST_ITEMS)}) as items
    from (select i.*, row_number() over (partition by i.user_id order by i.due_on, ${byTitle}) as n from (${dueItemsOf([kind], window)}) i) r
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
 * The settings digestsOf runs under, for this transaction only. Dates are written as ISO text (YYYY-MM-DD) whatever the
 * server's DateStyle. The planner cannot tell how many people an item goes to, so the statement looks costly enough to
 * compile, and compiling took longer than running it (seconds): it runs interpreted. When writing the day's digests:
 * every due item is sorted once by person, kind, date and title, which with the default 4 MB spills to disk at 100,000
 * items, so the sort gets the memory to stay in RAM; and the mails are compressed with lz4 where the server has it
 * (pglz took as long as rendering them), a compression the outbox keeps when they are copied there.
 */
async function renderingSettings(tx: Tx, { writing }: { writing: boolean }): Promise<void> {
  await tx.execute(sql`set local datestyle = 'ISO'`);
  await tx.execute(sql`set local jit = off`);
  if (!writing) return;
  await tx.execute(sql`set local work_mem = '64MB'`);
  const [lz4] = await selectRows<{ available: boolean }>(tx, sql`select 'lz4' = any(enumvals) as available from pg_settings where name = 'default_toast_compression'`);
  if (lz4?.available) await tx.execute(sql`set local default_toast_compression = 'lz4'`);
}

/**
 * Claims `day` and renders its digests into the ledger, in the caller's transaction (the sweep's, under its lock).
 * Answers false when the day was claimed before (by any instance).
 */
export async function collectDay(ctx: AppContext, tx: Tx, day: string): Promise<boolean> {
  const [previous] = await tx.select({ day: reminderRuns.day, startedAt: reminderRuns.startedAt }).from(reminderRuns)
    .where(lt(reminderRuns.day, day)).orderBy(sql`${reminderRuns.day} desc`).limit(1);
  const claimed = await tx.insert(reminderRuns).values({ day, since: previous?.day ?? null, sinceAt: previous?.startedAt ?? null })
    .onConflictDoNothing().returning({ day: reminderRuns.day });
  if (claimed.length === 0) return false;
  if (dueDateKinds().length === 0) return true;
  await renderingSettings(tx, { writing: true });
  await refreshShownBrand(tx, 0);
  const window = windowOf(day, previous?.day ?? null, previous?.startedAt ?? null);
  const [counts] = await selectRows<{ recipients: number; items: number }>(tx, sql`with ledger as (
      insert into ${reminderDigests} (day, user_id, items, subject, body)
      select ${day}::date, user_id, items, subject, body from (${digestsOf(ctx, day, window)}) d
      returning items)
    select count(*)::int as recipients, coalesce(sum(items), 0)::int as items from ledger`);
  await tx.update(reminderRuns).set({ recipients: counts.recipients, items: counts.items }).where(eq(reminderRuns.day, day));
  return true;
}

/** People queued per transaction: their mails are copied from the ledger to the outbox in the database. */
const SEND_BATCH = 250;

/** Stands for a record's id in a kind's link while the links are made in SQL. */
const RECORD_ID = '__record_id__';

/** A value per kind, chosen by a column holding the kind's position (dueItemsOf's `kind`). */
const perKind = (kinds: readonly DueDateKind[], column: SQL, value: (kind: DueDateKind) => string): SQL =>
  sql`(case ${column} ${sql.join(kinds.map((kind, i) => sql`when ${int(i + 1)} then ${value(kind)}::text`), sql` `)} end)`;

/**
 * Renders digests in one SQL pass over every kind's due items (dueItemsOf): one row per person with anything due or
 * overdue (user_id, email, items: how many in all, subject, body). Items grouped by kind in declaration order, the
 * first DIGEST_ITEMS of each by date (then title) with their links, "… and N more" past them. The items are ranked in
 * one sort and only the listed ones are rendered, with string concatenation; the mail text never travels to this
 * process. Kind labels, links and date wording come from the manifests' declarations.
 */
export function digestsOf(ctx: AppContext, day: string, window: ReminderWindow, only?: string): SQL {
  const kinds = dueDateKinds();
  const links = kinds.map((kind) => {
    const parts = mailLink(ctx.config, kind.href(RECORD_ID)).split(RECORD_ID);
    if (parts.length !== 2) throw new Error(`the link of reminder kind ${kind.key} must contain the record's id once`);
    return parts;
  });
  // The organisation's name from Settings › Branding (mails are plain text: no logo or colour). One piece, so each long
  // digest is copied once more after its items, not once per piece.
  const footer = `You receive this daily digest because these records are yours. Turn digests off for yourself at ${mailLink(ctx.config, '/settings/my-notifications')}.\n\n— ${shownBrand().name}`;
  const listed = int(DIGEST_ITEMS);
  const days = (n: SQL) => sql`${n} || case when ${n} = 1 then ' day' else ' days' end`;
  const diff = sql`(r.due_on - ${day}::date)`;
  // The date as ISO text (renderingSettings); each piece below is evaluated only for the items listed.
  const due = sql`r.due_on::text`;
  const expiring = kinds.flatMap((kind, i) => (kind.dateWord === 'expires' ? [int(i + 1)] : []));
  const words = sql`case when ${expiring.length > 0 ? sql`r.kind in (${sql.join(expiring, sql`, `)})` : sql`false`} then
      case when ${diff} > 0 then 'expires ' || ${due} || ' (in ' || ${days(diff)} || ')' when ${diff} = 0 then 'expires today (' || ${due} || ')' else 'expired ' || ${due} end
    else
      case when ${diff} > 0 then 'due ' || ${due} when ${diff} = 0 then 'due today (' || ${due} || ')' else 'due ' || ${due} || ' (' || ${days(sql`-${diff}`)} || ' overdue)' end
    end`;
  const suffix = links.some(([, after]) => after !== '') ? sql` || ${perKind(kinds, sql`r.kind`, (k) => links[kinds.indexOf(k)][1])}` : sql``;
  const line = sql`'  - ' || coalesce(r.title, '') || ': ' || ${words}
    || case when r.note <> '' then '; ' || r.note else '' end
    || E'\n    ' || ${perKind(kinds, sql`r.kind`, (k) => links[kinds.indexOf(k)][0])} || r.record_id${suffix} || E'\n'`;
  return sql`with ranked as (
      select i.*, row_number() over (partition by i.user_id, i.kind order by i.due_on, ${byTitle}) as n from (${dueItemsOf(kinds, window, only)}) i),
    blocks as (
      select r.user_id, r.kind, count(*)::int as total, string_agg(${line}, '' order by r.n) filter (where r.n <= ${listed}) as lines
      from ranked r group by r.user_id, r.kind),
    digests as (
      select b.user_id, sum(b.total)::int as items,
        string_agg(${perKind(kinds, sql`b.kind`, (k) => k.label)} || ' (' || b.total || E')\\n' || b.lines
          || case when b.total > ${listed} then '  … and ' || (b.total - ${listed}) || E' more.\\n' else '' end || E'\\n', '' order by b.kind) as text
      from blocks b group by b.user_id)
    select d.user_id, u.email, d.items,
      'Reminders for ' || ${day} || ': ' || d.items || case when d.items = 1 then ' item' else ' items' end || ' due or overdue' as subject,
      ('Hello ' || u.name || E',\\n\\n' || d.items || case when d.items = 1 then ' item needs' else ' items need' end
        || ' your attention on ' || ${day} || E'.\\n\\n') || d.text || ${footer}::text as body
    from digests d join ${users} u on u.id = d.user_id`;
}

/**
 * Queues the digests of one batch of people still waiting for `day`'s, in one statement: lock their ledger rows (SKIP
 * LOCKED), copy their mails into the outbox and mark the rows (the text is dropped from the ledger, the outbox keeps
 * it). Answers how many (0: none left unlocked).
 */
async function queueBatch(ctx: AppContext, day: string): Promise<number> {
  const [done] = await selectRows<{ queued: number }>(ctx.db, sql`with batch as (
      select d.user_id, d.subject, d.body from ${reminderDigests} d
      where d.day = ${day}::date and d.outbox_id is null order by d.user_id limit ${SEND_BATCH} for update of d skip locked),
    mails as materialized (
      select nextval(pg_get_serial_sequence('outbox', 'id')) as id, b.user_id, u.email, b.subject, b.body from batch b join ${users} u on u.id = b.user_id),
    queued as (insert into ${outbox} (id, kind, recipients, subject, body) select id, 'digest', array[email], subject, body from mails),
    marked as (update ${reminderDigests} d set outbox_id = m.id, queued_at = now(), subject = null, body = null from mails m
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

/** A day whose every digest is queued is finished: audited once (the outbox keeps the mails). */
async function finishDay(ctx: AppContext, day: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const finished = await selectRows<{ recipients: number; items: number }>(tx, sql`update ${reminderRuns} set finished_at = now()
      where day = ${day}::date and finished_at is null
        and not exists (select 1 from ${reminderDigests} where day = ${day}::date and outbox_id is null)
      returning recipients, items`);
    if (finished.length === 0) return;
    await appendAudit(tx, systemActor(), [{ module: 'notifications', action: 'reminders.sent', details: { day, digests: finished[0].recipients, items: finished[0].items } }]);
  });
}

/**
 * The sweep's part: claims the due day and renders its digests when its hour has come (inside the sweep's locked
 * transaction), answering whether there is sending to do.
 */
export async function claimDueDay(ctx: AppContext, tx: Tx, now = new Date()): Promise<boolean> {
  const day = await dueDay(tx, now);
  const collected = day ? await collectDay(ctx, tx, day) : false;
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
  const rows = kinds.length === 0 ? [] : await db.transaction(async (tx) => {
    await renderingSettings(tx, { writing: false });
    return selectRows<PreviewRow & { people: number }>(tx, sql`with lists as (
        select i.user_id, ${perKind(kinds, sql`i.kind`, (k) => k.key)} as kind, count(*)::int as total from (${dueItemsOf(kinds, window)}) i group by i.user_id, i.kind),
      people as (select user_id, jsonb_object_agg(kind, total) as kinds, sum(total)::int as total from lists group by user_id)
    select p.user_id as "userId", u.name, u.email, p.kinds, p.total, count(*) over ()::int as people
      from people p join ${users} u on u.id = p.user_id order by u.name, u.id offset ${page.offset} limit ${page.limit}`);
  });
  return { ...next, kinds, rows, people: rows[0]?.people ?? 0 };
}

/** One person's digest as the next sweep would send it (null when they get none). */
export async function previewDigest(ctx: AppContext, userId: string, now = new Date()) {
  const next = await nextSweep(ctx.db, now);
  const window = windowOf(next.day, next.since, next.sinceAt);
  if (dueDateKinds().length === 0) return null;
  const [digest] = await ctx.db.transaction(async (tx) => {
    await renderingSettings(tx, { writing: false });
    return selectRows<{ email: string; subject: string; body: string }>(tx, digestsOf(ctx, next.day, window, userId));
  });
  return digest ? { day: next.day, email: digest.email, subject: digest.subject, body: digest.body } : null;
}

/** Past sweeps, newest first, for Settings › Notifications. */
export const recentRuns = (db: DbOrTx) => db.select().from(reminderRuns).orderBy(sql`${reminderRuns.day} desc`).limit(7);
