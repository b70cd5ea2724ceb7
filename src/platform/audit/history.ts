import { and, desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { history, users } from '../../../db/schema';
import { appendAudit } from './audit';
import { canonicalJson, sha256Hex } from '../core/canonical-json';
import type { Actor } from '../permissions/permissions';
import { insertRows } from '../core/bulk-insert';
import type { PipelinedWrites } from '../core/pipelined-writes';

export type FieldChanges = Record<string, { before: unknown; after: unknown }>;

export interface RecordChange {
  module: string;
  recordType: string;
  recordId: string;
  action: 'create' | 'update' | 'delete' | string;
  /** The record's fields before (null on create) and after (null on delete). */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** Extra facts for the Audit Log entry beyond the changed fields. */
  details?: Record<string, unknown>;
}

const comparable = (value: unknown): string => JSON.stringify(value instanceof Date ? value.toISOString() : value ?? null);

/** The fields whose values differ; timestamps managed by the database are left out as noise. */
export function diffFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  ignore: readonly string[] = ['updatedAt', 'createdAt'],
): FieldChanges {
  const changes: FieldChanges = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    if (ignore.includes(key)) continue;
    const old = before?.[key] ?? null;
    const next = after?.[key] ?? null;
    if (comparable(old) !== comparable(next)) changes[key] = { before: normalise(old), after: normalise(next) };
  }
  return changes;
}

const normalise = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value ?? null);

/**
 * SHA-256 of the canonical JSON of a History entry's changes. The Audit Log entry of a record write carries it
 * instead of a second copy of the changes: the chain then seals the History entry too (any edit of its changes no
 * longer matches), and a bulk write stores and hashes each change once.
 */
export const changesDigest = (changes: FieldChanges): string => sha256Hex(canonicalJson(changes));

/**
 * The one way a service records a write: an Audit Log entry (sealing the changes by their digest) and a History
 * entry (the changes themselves) per changed record,
 * in the caller's transaction. Records whose fields did not change produce nothing. Bulk paths pass `writes` to send
 * the inserts without waiting (see PipelinedWrites).
 */
export async function recordChanges(tx: DbOrTx, actor: Actor, changes: RecordChange[], writes?: PipelinedWrites): Promise<void> {
  // A rehearsal's rollback would discard the entries and no record can be refused by them; writing them would also
  // take the audit chain lock and hold every other writer back for the whole Check file.
  if (actor.rehearsal) return;
  const effective = changes
    .map((change) => ({ change, fields: diffFields(change.before, change.after) }))
    .filter(({ change, fields }) => change.action !== 'update' || Object.keys(fields).length > 0);
  if (effective.length === 0) return;
  const entries = await appendAudit(
    tx,
    actor,
    effective.map(({ change, fields }) => ({
      module: change.module,
      action: change.action,
      recordType: change.recordType,
      recordId: change.recordId,
      details: { ...change.details, changesSha256: changesDigest(fields), ...(actor.source ? { source: actor.source } : {}) },
    })),
    writes,
  );
  // History's time defaults to the database's now(); the system actor's chosen time is written as the Audit Log's is.
  const at = actor.kind === 'system' && actor.writtenAt ? actor.writtenAt : undefined;
  const rows = effective.map(({ change, fields }, index) => ({
    at,
    recordType: change.recordType,
    recordId: change.recordId,
    action: change.action,
    actorUserId: actor.userId,
    actorTokenId: actor.tokenId ?? null,
    via: actor.via,
    source: actor.source ?? null,
    changes: fields,
    auditSeq: entries[index].seq,
  }));
  await insertRows(tx, history, rows, { writes });
}

export const recordChange = (tx: DbOrTx, actor: Actor, change: RecordChange) => recordChanges(tx, actor, [change]);

export interface HistoryView {
  at: string;
  action: string;
  via: string;
  source: string | null;
  actor: string | null;
  /** Who acted, by id (the History formatter names them; REST answers leave it out). */
  actorUserId?: string | null;
  tokenId: string | null;
  changes: FieldChanges;
  auditSeq: number | null;
}

/** A record's History, newest first, with who made each change. */
export async function listHistory(db: DbOrTx, recordType: string, recordId: string, limit = 200): Promise<HistoryView[]> {
  const rows = await db.select({ h: history, email: users.email }).from(history)
    .leftJoin(users, eq(users.id, history.actorUserId))
    .where(and(eq(history.recordType, recordType), eq(history.recordId, recordId)))
    .orderBy(desc(history.id)).limit(limit);
  return rows.map(({ h, email }) => ({
    at: h.at.toISOString(), action: h.action, via: h.via, source: h.source, actor: email, tokenId: h.actorTokenId,
    changes: h.changes as FieldChanges, auditSeq: h.auditSeq,
  }));
}
