import { selectRows, sql, type DbOrTx } from '../../../db/client';
import { canonicalJson } from '../core/canonical-json';
import { changesDigest, type FieldChanges } from './history';

/**
 * History entries are sealed by the Audit Log: the entry of every record write carries `changesSha256`, the SHA-256
 * of the canonical JSON of its History entry's changes (history.ts). Entries written before the seal carry the changes
 * themselves. Given an intact chain (verifyAuditLog), this proves each History entry is the one the write recorded:
 * a History entry edited, removed, added or moved to another audit entry is named by the audit entry it breaks.
 */
export interface SealResult {
  ok: boolean;
  /** History entries compared with their audit entry. */
  checked: number;
  /** The first audit entry (by seq) whose History does not match. */
  firstBad?: { seq: number; reason: string };
  /** History entries that name no audit entry, or one after the last (every write through a service names one). */
  unsealed: number;
  /** History entries of audit entries pruned after a year: no longer checkable. */
  beforeLog: number;
}

const BATCH_SEQS = 5000;

interface SealingEntry {
  seq: number;
  digest: string | null;
  legacy: unknown;
}
interface HistoryRow {
  id: number;
  audit_seq: number;
  changes: unknown;
}

const digestOf = (changes: unknown) => changesDigest(changes as FieldChanges);

/** The audit entries of one seq range that record a write, and the History entries pointing into the range. */
async function batch(db: DbOrTx, from: number, to: number): Promise<{ entries: SealingEntry[]; rows: HistoryRow[] }> {
  const [row] = await selectRows<{ entries: string; rows: string }>(db, sql`select
    (select coalesce(json_agg(json_build_object('seq', seq, 'digest', details->>'changesSha256', 'legacy', details->'changes') order by seq), '[]')
       from audit_log where seq >= ${from} and seq < ${to} and record_type is not null)::text as entries,
    (select coalesce(json_agg(json_build_object('id', id, 'audit_seq', audit_seq, 'changes', changes) order by audit_seq, id), '[]')
       from history where audit_seq >= ${from} and audit_seq < ${to})::text as rows`);
  return { entries: JSON.parse(row.entries) as SealingEntry[], rows: JSON.parse(row.rows) as HistoryRow[] };
}

/** Compares one range; returns the first problem by seq. */
function judge(entries: SealingEntry[], rows: HistoryRow[]): { checked: number; firstBad?: { seq: number; reason: string } } {
  const bySeq = new Map(entries.map((e) => [e.seq, e]));
  const pointing = new Map<number, HistoryRow[]>();
  for (const row of rows) pointing.set(row.audit_seq, [...(pointing.get(row.audit_seq) ?? []), row]);
  const problems: { seq: number; reason: string }[] = [];
  for (const entry of entries) {
    const found = pointing.get(entry.seq) ?? [];
    if (entry.digest === null) continue; // a legacy entry or a setting: judged from the History side below
    if (found.length === 0) problems.push({ seq: entry.seq, reason: 'its History entry is missing' });
    else if (found.length > 1) problems.push({ seq: entry.seq, reason: `${found.length} History entries claim it (${found.map((r) => r.id).join(', ')})` });
    else if (digestOf(found[0].changes) !== entry.digest) problems.push({ seq: entry.seq, reason: `History entry ${found[0].id} was changed (its changes no longer match the seal)` });
  }
  for (const [seq, found] of pointing) {
    const entry = bySeq.get(seq);
    if (entry?.digest) continue;
    const sealedByCopy = entry && entry.legacy !== null && found.length === 1 && canonicalJson(entry.legacy) === canonicalJson(found[0].changes);
    if (!sealedByCopy) {
      problems.push({ seq, reason: `History entry ${found.map((r) => r.id).join(', ')} names this audit entry, which does not record it` });
    }
  }
  problems.sort((a, b) => a.seq - b.seq);
  return { checked: rows.length, firstBad: problems[0] };
}

/** Walks the Audit Log in seq ranges with the History entries that point into each range. */
export async function verifyHistorySeals(db: DbOrTx): Promise<SealResult> {
  const [bounds] = await selectRows<{ low: number | null; high: number | null; unsealed: number; before_log: number }>(db, sql`
    with log as (select min(seq) as low, max(seq) as high from audit_log)
    select log.low::float8 as low, log.high::float8 as high,
      (select count(*) from history h where h.audit_seq is null or log.high is null or h.audit_seq > log.high)::int as unsealed,
      (select count(*) from history h where h.audit_seq < log.low)::int as before_log
    from log`);
  const outcome = { unsealed: bounds.unsealed, beforeLog: bounds.before_log };
  let checked = 0;
  if (bounds.low !== null && bounds.high !== null) {
    for (let from = bounds.low; from <= bounds.high; from += BATCH_SEQS) {
      const { entries, rows } = await batch(db, from, from + BATCH_SEQS);
      const result = judge(entries, rows);
      checked += result.checked;
      if (result.firstBad) return { ok: false, checked, firstBad: result.firstBad, ...outcome };
    }
  }
  return { ok: bounds.unsealed === 0, checked, ...outcome };
}
