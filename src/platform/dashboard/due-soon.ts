import { sql, type SQL } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { todayIso } from '../core/dates';
import { levelOf, type Actor } from '../permissions/permissions';
import { dueSoonKinds, type DueSoonKind } from './declarations';

/** How far ahead the Dashboard looks: "due in the next 30 days". */
export const DUE_SOON_DAYS = 30;
/** Records named per kind; the rest are counted, with the link to the register. */
export const DUE_SOON_ITEMS = 5;

export interface DueSoonRow {
  kind: DueSoonKind;
  /** Due before today. */
  overdue: number;
  /** Due today or in the next DUE_SOON_DAYS days. */
  soon: number;
  /** The first DUE_SOON_ITEMS by date, each a record the viewer may read. */
  items: { id: string; title: string; due: string }[];
}

/** `day` plus `days` days, as YYYY-MM-DD. */
export const daysAfter = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** One kind's counts and first items, in one statement over the module's query (which holds the viewer's own/all condition). */
export async function dueSoonOf(db: DbOrTx, kind: DueSoonKind, viewer: Actor, today: string): Promise<DueSoonRow> {
  const [row] = await selectRows<{ overdue: number; soon: number; items: { id: string; title: string; due: string }[] | null }>(db, dueSoonStatement(kind, viewer, today));
  return { kind, overdue: row.overdue, soon: row.soon, items: row.items ?? [] };
}

/** The statement of one kind (exported so the benchmark times the same SQL through the driver). */
export function dueSoonStatement(kind: DueSoonKind, viewer: Actor, today: string): SQL {
  const until = daysAfter(today, DUE_SOON_DAYS);
  const first = sql.raw(String(DUE_SOON_ITEMS));
  if (kind.counts) {
    // Counted from what the module keeps; the query is read once, for the first few, so the planner can take them from
    // an index in date order and stop, instead of building every due row.
    const rows = kind.first
      ? kind.first(viewer, sql`${today}::date`, sql`${until}::date`, DUE_SOON_ITEMS)
      : kind.query(viewer, sql`${until}::date`);
    return sql`
      select counts.overdue, counts.soon, named.items
      from (${kind.counts(viewer, sql`${today}::date`, sql`${until}::date`)}) counts,
      (select jsonb_agg(jsonb_build_object('id', record_id, 'title', title, 'due', due_on::text) order by due_on, title, record_id) as items
        from (select record_id, title, due_on from (${rows}) due
          where due_on <= ${until}::date order by due_on, title, record_id limit ${first}) top) named`;
  }
  // Counted in one pass; the first few named by a top-N sort of their keys alone: building a JSON object for every due
  // record and sorting them all cost more than the counts when thousands are overdue.
  return sql`
    with due as (${kind.query(viewer, sql`${until}::date`)})
    select counts.overdue, counts.soon, named.items
    from (select count(*) filter (where due_on < ${today}::date)::int as overdue, count(*) filter (where due_on >= ${today}::date)::int as soon
      from due where due_on <= ${until}::date) counts,
    (select jsonb_agg(jsonb_build_object('id', record_id, 'title', title, 'due', due_on::text) order by due_on, title, record_id) as items
      from (select record_id, title, due_on from due where due_on <= ${until}::date order by due_on, title, record_id limit ${first}) top) named`;
}

/** Every installed kind the viewer may read, in module order; kinds of modules they hold no right in are left out. */
export async function dueSoon(db: DbOrTx, viewer: Actor, today = todayIso()): Promise<DueSoonRow[]> {
  const kinds = dueSoonKinds().filter((kind) => levelOf(viewer, kind.needs) !== null);
  return Promise.all(kinds.map((kind) => dueSoonOf(db, kind, viewer, today)));
}
