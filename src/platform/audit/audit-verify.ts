import { selectRows, sql, type DbOrTx } from '../../../db/client';
import { auditLog } from '../../../db/schema';
import { GENESIS_HASH, hashAuditEntry, type AuditEntry } from './audit';
import { AppError } from '../core/errors';

export interface VerifyResult {
  /** The chain is intact AND (when a checkpoint was given) the log still extends it. */
  ok: boolean;
  /** Entries read, including any after the first bad one. */
  count: number;
  /** The last stored entry, whether or not the chain up to it verified. */
  head: { seq: number; hash: string } | null;
  /** `${head.seq}:${head.hash}`, to keep outside the database and pass back as `since` next time. */
  checkpoint: string | null;
  /** The first position in the chain that does not match, named by the seq that belongs there. */
  firstBad?: { seq: number; reason: string };
  since?: { checkpoint: string; extended: boolean; reason?: string };
  /** Set when the log no longer starts at entry 1: entries up to this seq were pruned (or removed from the front). */
  prunedThrough?: number;
}

export interface VerifyOptions {
  /** An earlier checkpoint `<seq>:<hash>` the log must still extend. */
  since?: string;
}

/** Rows per keyset batch: large enough that round trips are negligible, small enough to keep memory flat. */
const BATCH_SIZE = 5000;
const CHECKPOINT_PATTERN = /^(\d{1,15}):([0-9a-f]{64})$/;

export function parseCheckpoint(text: string): { seq: number; hash: string } {
  const match = CHECKPOINT_PATTERN.exec(text.trim().toLowerCase());
  const seq = match ? Number(match[1]) : 0;
  if (!match || seq < 1) {
    throw new AppError('INVALID', `checkpoint must look like <seq>:<64 hex digits> with seq >= 1, got "${text}"`, [
      { field: 'since', message: 'expected <seq>:<sha-256 hex>' },
    ]);
  }
  return { seq, hash: match[2] };
}

export const formatCheckpoint = (head: { seq: number; hash: string }): string => `${head.seq}:${head.hash}`;

/**
 * Walks the chain one entry at a time, so the pure verifier and the streaming one share every rule.
 * Entries must arrive in the order they are stored (ascending seq); any other order is itself a finding.
 */
class ChainWalker {
  private count = 0;
  private expectedSeq = 0;
  private expectedPrevHash = GENESIS_HASH;
  private head: { seq: number; hash: string } | null = null;
  private firstBad: { seq: number; reason: string } | undefined;
  private prunedThrough: number | undefined;
  /** When pruned: the prev_hash the first remaining entry carries, i.e. the hash of the last pruned entry. */
  private prunedStartPrevHash: string | undefined;
  private readonly checkpoint: { seq: number; hash: string } | undefined;
  private readonly checkpointText: string | undefined;
  /** The stored hash of the checkpoint's entry, once the walk has verified its way up to it. */
  private checkpointHashSeen: string | undefined;

  constructor(options: VerifyOptions) {
    if (options.since !== undefined) {
      this.checkpoint = parseCheckpoint(options.since);
      this.checkpointText = formatCheckpoint(this.checkpoint);
    }
  }

  push(entry: AuditEntry): void {
    this.count += 1;
    this.head = { seq: entry.seq, hash: entry.hash };
    if (this.firstBad) return; // past the first break nothing downstream can be trusted; just count and track the head
    if (this.count === 1) this.startAt(entry);
    this.firstBad = this.problemWith(entry);
    if (this.firstBad) return;
    if (this.checkpoint && entry.seq === this.checkpoint.seq) this.checkpointHashSeen = entry.hash;
    this.expectedSeq += 1;
    this.expectedPrevHash = entry.hash;
  }

  /**
   * Pruning deletes the oldest entries, so a log may legitimately start after entry 1; its first entry's
   * prev_hash is then taken on trust. Removing recent entries from the front looks the same, which is why
   * the trigger refuses deleting entries younger than a year and why `prunedThrough` is reported.
   * Only entry 1 can follow the genesis hash, so a first entry that carries it under another seq is no prune.
   */
  private startAt(first: AuditEntry): void {
    const looksPruned = Number.isSafeInteger(first.seq) && first.seq > 1 && first.prevHash !== GENESIS_HASH;
    if (looksPruned) {
      this.expectedSeq = first.seq;
      this.expectedPrevHash = first.prevHash;
      this.prunedThrough = first.seq - 1;
      this.prunedStartPrevHash = first.prevHash;
    } else {
      this.expectedSeq = 1;
    }
  }

  /** Names the seq that belongs at the entry's position, so a break is reported where it happens, not where it is noticed. */
  private problemWith(entry: AuditEntry): { seq: number; reason: string } | undefined {
    const expected = this.expectedSeq;
    if (entry.seq !== expected) {
      if (this.count === 2 && this.prunedThrough !== undefined && entry.seq <= this.prunedThrough) {
        // What looked like a pruned start is followed by an older entry: the first stored entry was put there.
        const firstSeq = this.prunedThrough + 1;
        this.prunedThrough = undefined;
        return {
          seq: Math.max(1, entry.seq - 1),
          reason: `the log starts with entry ${firstSeq} followed by entry ${entry.seq}: an entry was inserted or moved to the front`,
        };
      }
      if (entry.seq > expected) return { seq: expected, reason: `entry ${expected} is missing (the next stored entry is ${entry.seq})` };
      return { seq: expected, reason: `expected entry ${expected} but found entry ${entry.seq} (inserted, duplicated or out of order)` };
    }
    if (entry.prevHash !== this.expectedPrevHash) {
      const reason = expected === 1
        ? 'prev_hash of the first entry is not the genesis hash'
        : `prev_hash does not match the hash of entry ${expected - 1} (an entry was inserted, removed or rewritten)`;
      return { seq: expected, reason };
    }
    if (contentHashOf(entry) !== entry.hash) return { seq: expected, reason: 'content does not match its hash (the entry was edited)' };
    return undefined;
  }

  finish(): VerifyResult {
    const since = this.checkpoint ? this.judgeCheckpoint() : undefined;
    const ok = !this.firstBad && (since?.extended ?? true);
    return {
      ok,
      count: this.count,
      head: this.head,
      checkpoint: this.head ? formatCheckpoint(this.head) : null,
      ...(this.firstBad ? { firstBad: this.firstBad } : {}),
      ...(since ? { since } : {}),
      ...(this.prunedThrough !== undefined ? { prunedThrough: this.prunedThrough } : {}),
    };
  }

  /** The log extends a checkpoint when the checkpoint's entry is still there, unchanged, on an intact chain. */
  private judgeCheckpoint(): NonNullable<VerifyResult['since']> {
    const checkpoint = this.checkpoint!;
    const text = this.checkpointText!;
    const refuse = (reason: string) => ({ checkpoint: text, extended: false, reason });
    if (this.checkpointHashSeen !== undefined) {
      if (this.checkpointHashSeen === checkpoint.hash) return { checkpoint: text, extended: true };
      return refuse(`entry ${checkpoint.seq} now has hash ${this.checkpointHashSeen}: the log was rewritten since the checkpoint`);
    }
    if (!this.head) return refuse('the log is empty: every entry up to the checkpoint was removed');
    if (this.firstBad && this.firstBad.seq <= checkpoint.seq) {
      return refuse(`the chain breaks at entry ${this.firstBad.seq}, before the checkpoint's entry ${checkpoint.seq}`);
    }
    if (this.prunedThrough !== undefined && checkpoint.seq <= this.prunedThrough) {
      // The entry right before the first remaining one is still pinned by that entry's prev_hash.
      if (checkpoint.seq === this.prunedThrough) {
        return this.prunedStartPrevHash === checkpoint.hash
          ? { checkpoint: text, extended: true }
          : refuse(`entry ${checkpoint.seq} was pruned and the first remaining entry does not link to the checkpoint's hash`);
      }
      return refuse(
        `entry ${checkpoint.seq} was pruned (the log now starts at entry ${this.prunedThrough + 1}); ` +
          'it can no longer be checked: verify against a checkpoint taken after the pruning',
      );
    }
    return refuse(`the log ends at entry ${this.head.seq}, before the checkpoint's entry ${checkpoint.seq}: entries were removed from the end`);
  }
}

/** A stored entry cannot fail to hash, but entries handed to the pure verifier might (an unparseable time). */
function contentHashOf(entry: AuditEntry): string | undefined {
  try {
    return hashAuditEntry(entry);
  } catch {
    return undefined;
  }
}

/** Verifies entries already in memory, in the order given. Pure: the mutation tests drive it directly. */
export function verifyEntries(entries: Iterable<AuditEntry>, options: VerifyOptions = {}): VerifyResult {
  const walker = new ChainWalker(options);
  for (const entry of entries) walker.push(entry);
  return walker.finish();
}

/**
 * Streams the Audit Log in keyset batches by seq and verifies it. No transaction is held: entries are
 * immutable and only ever appended at the end (seq is assigned under a lock, in commit order), so reading
 * batch after batch sees one consistent prefix of the chain, and writers are never blocked.
 */
export async function verifyAuditLog(db: DbOrTx, options: VerifyOptions = {}): Promise<VerifyResult> {
  const walker = new ChainWalker(options);
  let pending = fetchBatchAfter(db, null);
  for (;;) {
    const rows = await pending;
    const more = rows.length === BATCH_SIZE;
    // Ask for the next batch before hashing this one, so the database works while we hash.
    if (more) pending = fetchBatchAfter(db, rows[rows.length - 1].seq);
    for (const row of rows) walker.push(entryOf(row));
    if (!more) break;
  }
  return walker.finish();
}

/** An audit_log row as `row_to_json` writes it. */
interface StoredRow {
  seq: number;
  at: string;
  actor_kind: string;
  actor_user_id: string | null;
  actor_token_id: string | null;
  via: string;
  module: string;
  action: string;
  record_type: string | null;
  record_id: string | null;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

/**
 * One batch as a single JSON text: decoding one large value and JSON.parse is far cheaper than the drivers'
 * per-column decoding (on PGlite it halves the time spent reading). `at` arrives with the session's UTC
 * offset; canonicalTime normalises it before hashing.
 */
async function fetchBatchAfter(db: DbOrTx, seq: number | null): Promise<StoredRow[]> {
  // The first batch has no lower bound, so a row smuggled in with seq 0 or below is read (and reported) too.
  const after = seq === null ? sql`true` : sql`${auditLog.seq} > ${seq}`;
  const [{ batch }] = await selectRows<{ batch: string }>(db, sql`
    select coalesce(json_agg(page order by page.seq), '[]')::text as batch
    from (select * from ${auditLog} where ${after} order by ${auditLog.seq} limit ${BATCH_SIZE}) page`);
  return JSON.parse(batch) as StoredRow[];
}

const entryOf = (row: StoredRow): AuditEntry => ({
  seq: row.seq,
  at: row.at,
  actorKind: row.actor_kind,
  actorUserId: row.actor_user_id,
  actorTokenId: row.actor_token_id,
  via: row.via,
  module: row.module,
  action: row.action,
  recordType: row.record_type,
  recordId: row.record_id,
  details: row.details,
  prevHash: row.prev_hash,
  hash: row.hash,
});
