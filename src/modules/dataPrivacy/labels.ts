import { asc, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { labels } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { isUuid } from '../../platform/core/uuid';
import type { FieldSpec, ListColumn, ListFilter } from '../../platform/record-screens/record-views';

/**
 * Labels (Settings › Labels) on privacy records: ids kept as an array on the record (`label_ids`), so the register kit
 * writes, diffs (History) and reads them with the record. A label is a tag, not a record with an owner: anyone who may
 * read the record reads its labels' names, and anyone who may change the record may put any label on it.
 */

/** Every label, by name: the form's choices, the list filter's options and the names shown. */
export async function labelChoices(db: DbOrTx): Promise<{ value: string; label: string }[]> {
  const rows = await db.select({ id: labels.id, name: labels.name }).from(labels).orderBy(asc(labels.name));
  return rows.map((row) => ({ value: row.id, label: row.name }));
}

/** Ids added to a record that name no label: a 400 naming `labelIds` and the id. Labels kept as they were are not judged again. */
export async function labelProblems(db: DbOrTx, ids: readonly string[] | undefined, before: readonly string[] | undefined): Promise<FieldProblem[]> {
  const kept = new Set(before ?? []);
  const added = (ids ?? []).filter((id) => !kept.has(id));
  if (added.length === 0) return [];
  const found = new Set((await db.select({ id: labels.id }).from(labels).where(inArray(labels.id, added.filter(isUuid)))).map((row) => row.id));
  return added.filter((id) => !found.has(id)).map((id) => ({ field: 'labelIds', message: `Label ${id} not found` }));
}

/** The list filter `label`: the records carrying that label (an id naming none finds nothing). */
export const labelFilter = (column: PgColumn) => (value: string): SQL => (isUuid(value) ? sql`${value}::uuid = any(${column})` : sql`false`);

/**
 * The names of a record's labels, by name, computed with every read of the record (the kit's `computed`): the views'
 * `labels`, the lists' Labels column. A label deleted since is left out.
 */
export const labelNamesSql = (column: PgColumn) =>
  sql<string[]>`(select coalesce(array_agg(${labels.name} order by lower(${labels.name})), '{}'::text[]) from ${labels} where ${labels.id} = any(${column}))`;

/** A view with its computed `labels` typed (the kit puts computed values on the view untyped). */
export const withLabels = <R extends object>(record: R): R & { labels: string[] } =>
  ({ ...record, labels: ((record as { labels?: string[] | null }).labels) ?? [] });

/** The screens' label parts: the form's checkboxes, the lists' column and filter (the same on every privacy register). */
export const labelScreens = (db: DbOrTx) => ({
  field: { name: 'labelIds', label: 'Labels', kind: 'checkboxes', options: () => labelChoices(db), hint: 'Labels of Settings › Labels' } satisfies FieldSpec,
  column: <V>(): ListColumn<V> => ({ header: 'Labels', value: (view) => ((view as { labels?: string[] }).labels ?? []).join(', ') }),
  filter: async (): Promise<ListFilter> => ({ name: 'label', label: 'Label', options: await labelChoices(db) }),
});
