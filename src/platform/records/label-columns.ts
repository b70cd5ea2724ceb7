import { inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { labels } from '../../../db/schema';
import type { FieldProblem } from '../core/errors';
import { isUuid } from '../core/uuid';

/** The register kit's label rules on a kind's `labels` column (labels.ts tells the whole of labels on records). */

/**
 * Ids added to a record that name no label: a 400 naming `labelIds` and the id. Labels kept as they were are not judged
 * again. The labels found stay locked (FOR KEY SHARE, which a rename does not wait for) until the write commits, so a
 * deletion of one of them waits for it and then counts the record (the labels module's 409), never leaving an id that
 * names nothing.
 */
export async function labelProblems(db: DbOrTx, ids: readonly string[] | undefined, before: readonly string[] | undefined): Promise<FieldProblem[]> {
  const kept = new Set(before ?? []);
  const added = (ids ?? []).filter((id) => !kept.has(id));
  if (added.length === 0) return [];
  const valid = added.filter(isUuid);
  const rows = valid.length ? await db.select({ id: labels.id }).from(labels).where(inArray(labels.id, valid)).for('key share') : [];
  const found = new Set(rows.map((row) => row.id));
  return added.filter((id) => !found.has(id)).map((id) => ({ field: 'labelIds', message: `Label ${id} not found` }));
}

/** The list filter `label`: the records carrying that label (an id naming none finds nothing). */
export const labelFilter = (column: PgColumn) => (value: string): SQL => (isUuid(value) ? sql`${value}::uuid = any(${column})` : sql`false`);

/**
 * The names of a record's labels, by name, computed with every read of the record (the kit's computed `labels`): the
 * views' `labels`, the lists' Labels column. A label cannot be deleted while a record carries it (labelUse).
 */
export const labelNamesSql = (column: PgColumn) =>
  sql<string[]>`(select coalesce(array_agg(${labels.name} order by lower(${labels.name})), '{}'::text[]) from ${labels} where ${labels.id} = any(${column}))`;
