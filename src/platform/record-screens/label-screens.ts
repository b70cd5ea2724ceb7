import { asc } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { labels } from '../../../db/schema';
import type { FieldSpec, ListColumn, ListFilter } from './record-views';

/** The screens of a register carrying labels (records/labels.ts): the same field, column and filter on each. */

/** Every label, by name: the form's choices, the list filter's options and the names shown. */
export async function labelChoices(db: DbOrTx): Promise<{ value: string; label: string }[]> {
  const rows = await db.select({ id: labels.id, name: labels.name }).from(labels).orderBy(asc(labels.name));
  return rows.map((row) => ({ value: row.id, label: row.name }));
}

/** The screens' label parts: the form's checkboxes, the lists' column and filter (the same on every register carrying labels). */
export const labelScreens = (db: DbOrTx) => ({
  field: { name: 'labelIds', label: 'Labels', kind: 'checkboxes', options: () => labelChoices(db), hint: 'Labels of Settings › Labels' } satisfies FieldSpec,
  column: <V>(): ListColumn<V> => ({ header: 'Labels', value: (view) => ((view as { labels?: string[] }).labels ?? []).join(', ') }),
  filter: async (): Promise<ListFilter> => ({ name: 'label', label: 'Label', options: await labelChoices(db) }),
});
