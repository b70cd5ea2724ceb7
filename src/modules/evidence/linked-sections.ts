import { sql, type SQL } from 'drizzle-orm';
import { evidence, evidenceLinks } from '../../../db/schema';
import { valueLabel } from '../../platform/core/value-labels';
import { linkedRecordsSection } from '../../platform/records/linked-records';
import type { RecordSection, RecordTypeDeclaration } from '../../platform/records/record-types';
import { EVIDENCE_KINDS, EVIDENCE_STATUSES, linkableTypes } from './schema';
import { statusSql } from './service';

/** A stored value as its label, written by PostgreSQL (the one labels table). */
const inWords = (value: SQL, values: readonly string[]): SQL<string> =>
  sql<string>`case ${value} ${sql.join(values.map((v) => sql`when ${v} then ${valueLabel(v)}::text`), sql` `)} else ${value}::text end`;

/**
 * Evidence proving a record, on the page of every record type evidence can be linked to (its manifest's `sections`):
 * what is linked to the record itself and to the records that are part of it (a control's tests). A what-links-here
 * section: paged with the total, sorted by title or validity, exported; evidence the reader may not read is counted.
 */
export function evidenceSection(type: RecordTypeDeclaration): RecordSection | null {
  if (!type.evidence) return null;
  const parts = linkableTypes().filter((child) => child.parent?.kind === type.kind);
  return linkedRecordsSection(type, {
    key: 'evidence', listed: 'evidence', heading: 'Evidence', empty: 'No evidence linked.',
    ids: (hostId) => sql`select ${evidenceLinks.evidenceId} from ${evidenceLinks} where (${evidenceLinks.recordType} = ${type.kind} and ${evidenceLinks.recordId} = ${hostId}::uuid)${
      sql.join(parts.flatMap((part) => (part.parent
        ? [sql` or (${evidenceLinks.recordType} = ${part.kind} and ${evidenceLinks.recordId} in (select ${part.id} from ${part.table} where ${part.parent.id} = ${hostId}::uuid))`]
        : [])))}`,
    detail: { header: 'Valid until', value: () => sql<string | null>`${evidence.validUntil}::text` },
    columns: [
      { header: 'Kind', value: () => inWords(sql`${evidence.kind}`, EVIDENCE_KINDS) },
      { header: 'Status', value: () => inWords(statusSql, EVIDENCE_STATUSES) },
      { header: 'Locked', value: () => sql<string>`case when ${evidence.locked} then 'Yes' else 'No' end` },
    ],
  });
}
