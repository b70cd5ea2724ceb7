import { and, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { auditLog } from '../../../db/schema';
import { canonicalJson, sha256Hex } from '../core/canonical-json';
import { recordedAt, type Actor } from '../permissions/permissions';
import { insertRows } from '../core/bulk-insert';
import type { PipelinedWrites } from '../core/pipelined-writes';

export const GENESIS_HASH = '0'.repeat(64);
/** Serialises appends across every process sharing the database; released when the transaction ends. */
const AUDIT_CHAIN_LOCK = 7231002;

export interface AuditEvent {
  module: string;
  action: string;
  recordType?: string | null;
  recordId?: string | null;
  details?: Record<string, unknown>;
}

/** An entry as stored; `at` is an ISO-8601 UTC string at millisecond precision (what the column keeps). */
export interface AuditEntry {
  seq: number;
  at: string;
  actorKind: string;
  actorUserId: string | null;
  actorTokenId: string | null;
  via: string;
  module: string;
  action: string;
  recordType: string | null;
  recordId: string | null;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

/** Normalises whatever the driver returns for a timestamptz(3) to the form that was hashed. */
export const canonicalTime = (value: string | Date): string => new Date(value).toISOString();

/** An entry's hashed members in RFC 8785 order (keys sorted by UTF-16 code units), so no entry sorts its keys again. */
const HASHED_KEYS = [
  'action', 'actorKind', 'actorTokenId', 'actorUserId', 'at', 'details', 'module', 'prevHash', 'recordId', 'recordType', 'seq', 'via',
] as const;

/**
 * SHA-256 (hex) of the entry's canonical JSON: exactly `canonicalJson` of its members with `at` in canonical form
 * (tests/platform/audit-chain.test.ts holds the two equal), written member by member because the verifier hashes
 * every entry of the log and the generic walk sorted the same twelve keys each time.
 */
export function hashAuditEntry(entry: Omit<AuditEntry, 'hash'>): string {
  let content = '{';
  for (const key of HASHED_KEYS) {
    const value = key === 'at' ? canonicalTime(entry.at) : entry[key];
    if (value === undefined) continue;
    content += `${content.length > 1 ? ',' : ''}"${key}":${canonicalJson(value)}`;
  }
  return sha256Hex(`${content}}`);
}

/** jsonb cannot hold \u0000 and reorders nothing we hash on, but we round-trip through JSON so what we hash is what we read back. */
function storableDetails(details: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!details) return {};
  return JSON.parse(JSON.stringify(details).replaceAll('\\u0000', '')) as Record<string, unknown>;
}

/**
 * Appends events to the hash chain inside the caller's transaction (the same one as the write they record).
 * Many events go in one multi-row INSERT, so bulk paths pay one lock and one round trip. With `writes` (a bulk path),
 * the INSERT is sent without waiting and later appends of the same transaction reuse the head it leaves.
 */
export async function appendAudit(tx: DbOrTx, actor: Actor, events: AuditEvent[], writes?: PipelinedWrites): Promise<AuditEntry[]> {
  if (events.length === 0) return [];
  const head = writes?.auditHead ?? (await lockedHead(tx));
  let seq = head.seq;
  let prevHash = head.hash;
  const at = recordedAt(actor).toISOString();
  const entries: AuditEntry[] = events.map((event) => {
    seq += 1;
    const unhashed: Omit<AuditEntry, 'hash'> = {
      seq,
      at,
      actorKind: actor.kind,
      actorUserId: actor.userId,
      actorTokenId: actor.tokenId ?? null,
      via: actor.via,
      module: event.module,
      action: event.action,
      recordType: event.recordType ?? null,
      recordId: event.recordId ?? null,
      details: storableDetails(event.details),
      prevHash,
    };
    const entry = { ...unhashed, hash: hashAuditEntry(unhashed) };
    prevHash = entry.hash;
    return entry;
  });
  if (writes) writes.auditHead = { seq, hash: prevHash };
  // One multi-row INSERT with the entries as one jsonb parameter (bulk-insert.ts), in the caller's transaction.
  await insertRows(tx, auditLog, entries, { writes });
  return entries;
}

/** Takes the chain lock (held until the transaction ends) and reads the head it protects. */
async function lockedHead(tx: DbOrTx): Promise<{ seq: number; hash: string }> {
  await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`);
  const [head] = await tx.select({ seq: auditLog.seq, hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
  return { seq: head?.seq ?? 0, hash: head?.hash ?? GENESIS_HASH };
}

/** One record's Audit Log entries, newest first (record screens show them beside the record's History). */
export async function listAuditFor(db: DbOrTx, recordType: string, recordId: string, limit = 100): Promise<AuditEntry[]> {
  const rows = await db.select().from(auditLog)
    .where(and(eq(auditLog.recordType, recordType), eq(auditLog.recordId, recordId)))
    .orderBy(desc(auditLog.seq)).limit(limit);
  return rows.map((row) => ({ ...row, at: canonicalTime(row.at), details: row.details as Record<string, unknown> }));
}
