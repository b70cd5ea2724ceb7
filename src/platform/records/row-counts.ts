import { count, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { selectRows, type DbOrTx } from '../../../db/client';
import { rowCounts } from '../../../db/schema';
import { countedTables } from '../http/installed';

/**
 * Exact totals of the register lists without scanning the table (docs/decisions.md, "Exact totals from delta
 * counts"). Triggers (db/migrations/0018_row_count_triggers.sql) append a signed delta per writing statement to
 * row_counts; a table's row count is the sum of its deltas, and the background sweep folds them into one row.
 */


/** Held (transaction-scoped) by whoever rewrites deltas: the sweep's compaction and a recount never interleave. */
const REWRITE_LOCK = 7231005;

/** The tables whose triggers keep deltas: the modules' manifests name them (tests/platform/row-counts.test.ts checks them against the triggers). */
const isCounted = (name: string) => countedTables().includes(name);

/**
 * The total query of a list over `table` restricted by `where`. When nothing restricts the list (no filter, and
 * the reader sees every record) the delta sum answers in a few index reads; any condition at all, including the
 * own-level ownership one, needs the exact count(*) of what matches.
 */
export function listTotalQuery(db: DbOrTx, table: PgTable, where: SQL | undefined) {
  const name = getTableName(table);
  if (where === undefined && isCounted(name)) {
    return db.select({ total: sql<number>`coalesce(sum(${rowCounts.delta}), 0)`.mapWith(Number) })
      .from(rowCounts).where(sql`${rowCounts.tableName} = ${name}`);
  }
  return db.select({ total: count() }).from(table).where(where);
}

/**
 * Folds each table's deltas into one row. The DELETE removes only the deltas its snapshot sees, and the sum of
 * exactly those replaces them in the same statement, so a delta committed meanwhile survives beside the new row and
 * every reader's sum stays exact before, during and after. Tables with a single row are left alone; a zero sum
 * leaves no row (no rows sum to zero).
 */
export async function compactRowCounts(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${REWRITE_LOCK})`);
  await tx.execute(sql`
    with gone as (
      delete from ${rowCounts}
       where ${rowCounts.tableName} in (select table_name from ${rowCounts} group by table_name having count(*) > 1)
      returning table_name, delta
    )
    insert into ${rowCounts} (table_name, delta)
    select table_name, sum(delta) from gone group by table_name having sum(delta) <> 0`);
}

export interface Recount {
  table: string;
  /** The total the deltas gave before. */
  counted: number;
  /** The rows the table holds, now its only delta. */
  rows: number;
}

/**
 * Replaces every counted table's deltas by its exact count(*). For when the deltas no longer match the table:
 * something wrote with the triggers off (a data-only restore with --disable-triggers, session_replication_role
 * replica). One statement per table, like compaction: its DELETE and its count(*) see the same snapshot, so a write
 * committed later keeps its own delta and is not in the count, and one committed earlier is in the count with its
 * delta gone. Nobody waits but a compaction (the shared advisory lock).
 */
export async function recountRows(tx: DbOrTx): Promise<Recount[]> {
  await tx.execute(sql`select pg_advisory_xact_lock(${REWRITE_LOCK})`);
  const recounts: Recount[] = [];
  for (const table of countedTables()) {
    const [{ counted, rows }] = await selectRows<{ counted: number; rows: number }>(tx, sql`
      with gone as (delete from ${rowCounts} where ${rowCounts.tableName} = ${table} returning ${rowCounts.delta}),
           present as (select count(*) as n from ${sql.identifier(table)}),
           kept as (insert into ${rowCounts} (table_name, delta) select ${table}, n from present where n <> 0)
      select (select coalesce(sum(delta), 0) from gone)::int as counted, (select n from present)::int as rows`);
    recounts.push({ table, counted, rows });
  }
  return recounts;
}
