import { count, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { isUuid } from '../core/uuid';
import type { Actor } from '../permissions/permissions';
import { recordRows, recordTypes, typedRecordAsSeen, type RecordTypeDeclaration } from './record-types';

/**
 * Labels (Settings › Labels) on records of any register: a register carries labels by declaring the column holding
 * their ids (`labels` on its RecordKind, an uuid[] column `label_ids`), and the kit then writes, diffs (History) and
 * reads them with the record, validates the ids added, answers `labels` (the names) with every read and filters lists
 * by `label`. Its record-type declaration says the same (registerType copies it), so the labels module finds every
 * record carrying a label through the registry, without a list of types of its own. The screens' parts are in
 * record-screens/label-screens.ts.
 *
 * A label is a tag, not a record with an owner: anyone who may read the record reads its labels' names, and anyone who
 * may change the record may put any label on it.
 */

export { labelFilter, labelNamesSql, labelProblems } from './label-columns';

/** A view with its computed `labels` typed (the kit puts computed values on the view untyped). */
export const withLabels = <R extends object>(record: R): R & { labels: string[] } =>
  ({ ...record, labels: ((record as { labels?: string[] | null }).labels) ?? [] });


/** The declared record types carrying labels (their declaration names the column), in module order. */
export const labelCarriers = (): RecordTypeDeclaration[] => recordTypes().filter((type) => type.labels !== undefined);

/** The records of one type carrying a label: how many, and the first of them as the reader may see them. */
export interface LabelUse {
  kind: string;
  /** What they are, in the number's form: "processing activities", "DPIA" (the count is `count`). */
  label: string;
  count: number;
  /** Up to `limit`, by title: named and linked where the reader may read them, "(restricted)" and unlinked otherwise. */
  records: { title: string; href: string | null }[];
  /** How many more carry it than are listed. */
  more: number;
}

/** A type's noun inside a sentence: "processing activities", but "DPIAs" (an acronym keeps its capitals). */
const inSentence = (noun: string) => (/^[A-Z][A-Z]/.test(noun) ? noun : noun.charAt(0).toLowerCase() + noun.slice(1));

/** The records carrying a label, by type (types carrying none left out), each with up to `limit` of them as `reader` may see them. */
export async function labelUse(db: DbOrTx, reader: Actor, labelId: string, limit = 10): Promise<LabelUse[]> {
  if (!isUuid(labelId)) return [];
  const uses = await Promise.all(labelCarriers().map(async (type): Promise<LabelUse | null> => {
    const carries = sql`${labelId}::uuid = any(${type.labels!})`;
    const [{ n }] = await db.select({ n: count() }).from(type.table).where(carries);
    if (n === 0) return null;
    const ids = limit > 0
      ? (await db.select({ id: sql<string>`${type.id}::text` }).from(type.table).where(carries).orderBy(type.id).limit(limit)).map((row) => row.id)
      : [];
    const rows = await recordRows(db, type, ids);
    const records = ids.map((id) => typedRecordAsSeen(reader, type, id, rows.get(id)))
      .sort((a, b) => Number(a.href === null) - Number(b.href === null) || a.title.localeCompare(b.title));
    return { kind: type.kind, label: inSentence(n === 1 ? type.label : type.plural), count: n, records, more: n - ids.length };
  }));
  return uses.filter((use): use is LabelUse => use !== null);
}
