import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { auditLog } from '../../db/schema';
import { appendAudit, GENESIS_HASH, hashAuditEntry, listAuditFor, type AuditEntry } from '../../src/platform/audit/audit';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { systemActor } from '../../src/platform/permissions/permissions';
import { PipelinedWrites } from '../../src/platform/core/pipelined-writes';
import { appendEvents, bareDatabase } from '../helpers/audit-log';

/** Migrating a database and appending thousands of entries can outlast the default limit on a busy machine. */
const SLOW = 60_000;
/** Migrating an embedded (PGlite) database took over a minute on the shared machine under load. */
const MIGRATING = 180_000;

// Every test here tampers with (or needs an exact view of) the log, so each uses a database of its own (migrations
// only, no service), never the shared one. Concurrent writers and the chain lock: audit-log-concurrency.test.ts.

const GUARD_TRIGGER = 'audit_log_no_update_delete';

/** Tampering as someone with table-owner rights would: switch the guard off, change rows, switch it back on. */
async function tamper(database: Database, statement: string, params: unknown[] = []): Promise<void> {
  await database.raw(`alter table audit_log disable trigger ${GUARD_TRIGGER}`);
  try {
    await database.raw(statement, params);
  } finally {
    await database.raw(`alter table audit_log enable trigger ${GUARD_TRIGGER}`);
  }
}

/** What the database raises, or undefined when the statement went through. */
async function errorOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

// One database (migrations only) for the file, its log emptied before each group: creating a database is the slow part.
let database: Database;
beforeAll(async () => {
  database = await bareDatabase();
}, MIGRATING);
afterAll(() => database?.close());
const emptyLog = () => tamper(database, 'delete from audit_log');

describe('Audit Log in the database: tampering is found at the entry it touched', () => {
  beforeAll(async () => {
    await emptyLog();
    await appendEvents(database, 40);
  }, SLOW);

  test('the untouched log verifies, and its checkpoint is its last entry', async () => {
    const result = await verifyAuditLog(database.db);
    const [last] = await database.raw<{ seq: string; hash: string }>('select seq::text, hash from audit_log order by audit_log.seq desc limit 1');
    expect(result.firstBad, JSON.stringify(result.firstBad)).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.checkpoint).toBe(`${last.seq}:${last.hash}`);
    expect(result.count).toBe(Number(last.seq));
  });

  test('an edited field, an edited hash and a removed entry are each named by seq', async () => {
    const [{ seq: headSeq }] = await database.raw<{ seq: string }>('select max(seq)::text as seq from audit_log');
    const target = Number(headSeq) - 20;
    const [original] = await database.raw<{ details: string; hash: string }>('select details::text as details, hash from audit_log where seq = $1', [target]);
    const edits: [string, string, string][] = [
      [`update audit_log set details = '{"step": "changed"}' where seq = $1`, `update audit_log set details = $2::jsonb where seq = $1`, original.details],
      [`update audit_log set at = at + interval '1 second' where seq = $1`, `update audit_log set at = at - interval '1 second' where seq = $1`, ''],
      [`update audit_log set hash = repeat('e', 64) where seq = $1`, `update audit_log set hash = $2 where seq = $1`, original.hash],
    ];
    for (const [change, undo, saved] of edits) {
      await tamper(database, change, [target]);
      const result = await verifyAuditLog(database.db);
      expect(result.firstBad?.seq, `${change}: ${JSON.stringify(result.firstBad)}`).toBe(target);
      expect(result.ok).toBe(false);
      await tamper(database, undo, saved ? [target, saved] : [target]);
      expect((await verifyAuditLog(database.db)).ok, `after undoing ${change}`).toBe(true);
    }

    const [removed] = await database.db.select().from(auditLog).where(eq(auditLog.seq, target));
    await tamper(database, 'delete from audit_log where seq = $1', [target]);
    const afterDelete = await verifyAuditLog(database.db);
    expect(afterDelete.firstBad).toEqual({ seq: target, reason: `entry ${target} is missing (the next stored entry is ${target + 1})` });
    await database.db.insert(auditLog).values(removed);
    expect((await verifyAuditLog(database.db)).ok).toBe(true);
  });

  test('a row slipped in ahead of entry 1 is read and reported, not skipped', async () => {
    const [first] = await database.db.select().from(auditLog).where(eq(auditLog.seq, 1));
    await database.db.insert(auditLog).values({ ...first, seq: 0, prevHash: 'f'.repeat(64), hash: 'e'.repeat(64) });
    const result = await verifyAuditLog(database.db);
    expect(result.firstBad).toEqual({ seq: 1, reason: 'expected entry 1 but found entry 0 (inserted, duplicated or out of order)' });
    await tamper(database, 'delete from audit_log where seq = 0');
    expect((await verifyAuditLog(database.db)).ok).toBe(true);
  });

  test('entries removed from the end are caught only against an earlier checkpoint', async () => {
    await appendEvents(database, 5);
    const before = await verifyAuditLog(database.db);
    expect(before.ok).toBe(true);
    await tamper(database, 'delete from audit_log where seq > $1', [before.head!.seq - 3]);

    const alone = await verifyAuditLog(database.db);
    expect(alone.ok, 'a shortened chain is still a valid chain').toBe(true);
    expect(alone.count).toBe(before.count - 3);

    const against = await verifyAuditLog(database.db, { since: before.checkpoint! });
    expect(against.ok).toBe(false);
    expect(against.since).toMatchObject({ checkpoint: before.checkpoint, extended: false });
    expect(against.since?.reason).toContain('removed from the end');
  });

  test('UPDATE, DELETE of a recent entry and TRUNCATE are refused by the database', async () => {
    const [{ seq }] = await database.raw<{ seq: string }>('select max(seq)::text as seq from audit_log');
    for (const statement of [
      `update audit_log set action = 'forged' where seq = ${seq}`,
      `delete from audit_log where seq = ${seq}`,
      'truncate audit_log',
    ]) {
      expect(await errorOf(() => database.raw(statement)), statement).toContain('audit_log is append-only');
    }
    expect((await database.raw<{ n: number }>('select count(*)::int as n from audit_log where seq = $1', [seq]))[0].n).toBe(1);
  });
});

describe('Audit Log pruning', () => {
  beforeAll(async () => {
    // An empty log, so it can start with entries dated two years ago.
    await emptyLog();
  }, SLOW);

  test('entries older than a year can be deleted, recent ones cannot, and the pruned log still verifies', async () => {
    const twoYearsAgo = Date.now() - 2 * 365 * 24 * 3600 * 1000;
    const old: AuditEntry[] = [];
    for (let seq = 1; seq <= 3; seq += 1) {
      const unhashed = {
        seq, at: new Date(twoYearsAgo + seq).toISOString(), actorKind: 'system', actorUserId: null, actorTokenId: null, via: 'system',
        module: 'settings', action: 'update', recordType: null, recordId: null, details: { seq }, prevHash: old[seq - 2]?.hash ?? GENESIS_HASH,
      };
      old.push({ ...unhashed, hash: hashAuditEntry(unhashed) });
    }
    await database.db.insert(auditLog).values(old);
    await appendEvents(database, 4);
    const beforePruning = await verifyAuditLog(database.db);
    expect(beforePruning).toMatchObject({ ok: true, count: 7 });

    expect(await errorOf(() => database.raw('delete from audit_log where seq = 4'))).toContain('audit_log is append-only: DELETE refused');
    const pruned = await database.raw<{ seq: string }>(`delete from audit_log where at < now() - interval '1 year' returning seq::text`);
    expect(pruned.map((row) => Number(row.seq)).sort()).toEqual([1, 2, 3]);

    const afterPruning = await verifyAuditLog(database.db);
    expect(afterPruning).toMatchObject({ ok: true, count: 4, prunedThrough: 3, checkpoint: beforePruning.checkpoint });
    expect((await verifyAuditLog(database.db, { since: beforePruning.checkpoint! })).ok).toBe(true);
    // Entry 3 is gone but entry 4's prev_hash still pins it; entry 2 can no longer be checked.
    expect((await verifyAuditLog(database.db, { since: `3:${old[2].hash}` })).since?.extended).toBe(true);
    const tooOld = await verifyAuditLog(database.db, { since: `2:${old[1].hash}` });
    expect(tooOld.since?.extended).toBe(false);
    expect(tooOld.since?.reason).toContain('was pruned');
  });
});

describe('Audit Log appends', () => {
  beforeAll(async () => {
    await emptyLog();
  }, SLOW);

  test('an empty log verifies: nothing read, no head and no checkpoint to keep', async () => {
    expect(await verifyAuditLog(database.db)).toEqual({ ok: true, count: 0, head: null, checkpoint: null });
  });

  test('the first entry of an empty log is entry 1 after the genesis hash, stored exactly as it was hashed', async () => {
    const [entry] = await database.db.transaction((tx) => appendAudit(tx, systemActor('cli'), [{ module: 'settings', action: 'update' }]));
    expect(entry).toMatchObject({
      seq: 1, prevHash: GENESIS_HASH, actorKind: 'system', actorUserId: null, actorTokenId: null, via: 'cli',
      module: 'settings', action: 'update', recordType: null, recordId: null, details: {},
    });
    const { hash, ...unhashed } = entry;
    expect(hash).toBe(hashAuditEntry(unhashed));
    const [stored] = await database.db.select().from(auditLog).where(eq(auditLog.seq, 1));
    expect({ ...stored, at: new Date(stored.at).toISOString() }).toEqual(entry);
    expect((await verifyAuditLog(database.db)).ok).toBe(true);
  });

  test('details lose NUL characters before hashing, so the stored entry still verifies', async () => {
    const [entry] = await database.db.transaction((tx) =>
      appendAudit(tx, systemActor(), [{ module: 'risks', action: 'update', recordType: 'risk', recordId: 'r-nul', details: { title: 'a\u0000b', kept: [1, 'x'] } }]));
    expect(entry.details).toEqual({ title: 'ab', kept: [1, 'x'] });
    const [stored] = await database.db.select().from(auditLog).where(eq(auditLog.seq, entry.seq));
    expect(stored.details).toEqual({ title: 'ab', kept: [1, 'x'] });
    expect((await verifyAuditLog(database.db)).ok).toBe(true);
  });

  test('appending no events returns no entries and writes nothing', async () => {
    const [{ count: before }] = await database.db.select({ count: sql<number>`count(*)::int` }).from(auditLog);
    expect(await database.db.transaction((tx) => appendAudit(tx, systemActor(), []))).toEqual([]);
    const [{ count: after }] = await database.db.select({ count: sql<number>`count(*)::int` }).from(auditLog);
    expect(after).toBe(before);
  });

  test('appends of one transaction sharing pipelined writes continue one chain', async () => {
    const entries = await database.db.transaction(async (tx) => {
      const writes = new PipelinedWrites();
      const first = await appendAudit(tx, systemActor(), [{ module: 'risks', action: 'create' }, { module: 'risks', action: 'update' }], writes);
      const second = await appendAudit(tx, systemActor(), [{ module: 'risks', action: 'delete' }], writes);
      await writes.drain();
      return [...first, ...second];
    });
    for (let i = 1; i < entries.length; i += 1) {
      expect(entries[i].seq).toBe(entries[i - 1].seq + 1);
      expect(entries[i].prevHash).toBe(entries[i - 1].hash);
    }
    expect((await verifyAuditLog(database.db)).ok).toBe(true);
  });

  test("a record's entries are listed newest first, only its own, at most the limit", async () => {
    const events = ['create', 'update', 'delete'].map((action) => ({ module: 'controls', action, recordType: 'control', recordId: 'c-listed' }));
    await database.db.transaction((tx) => appendAudit(tx, systemActor(), [...events, { module: 'controls', action: 'create', recordType: 'control', recordId: 'c-other' }]));
    await database.db.transaction((tx) => appendAudit(tx, systemActor(), [{ module: 'risks', action: 'create', recordType: 'risk', recordId: 'c-listed' }]));
    const listed = await listAuditFor(database.db, 'control', 'c-listed');
    expect(listed.map((entry) => entry.action)).toEqual(['delete', 'update', 'create']);
    expect(listed[0].at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const { hash, ...unhashed } = listed[0];
    expect(hashAuditEntry(unhashed)).toBe(hash);
    expect((await listAuditFor(database.db, 'control', 'c-listed', 2)).map((entry) => entry.action)).toEqual(['delete', 'update']);
  });
});

describe('Audit Log longer than one verification batch (5,000 entries)', () => {
  const TOTAL = 5_060;
  beforeAll(async () => {
    await emptyLog();
    await appendEvents(database, 5_030);
    await appendEvents(database, TOTAL - 5_030);
  }, SLOW);

  test('every entry is read and checked, and a checkpoint in the second batch is extended', async () => {
    const [at5040] = await database.db.select().from(auditLog).where(eq(auditLog.seq, 5_040));
    const result = await verifyAuditLog(database.db, { since: `5040:${at5040.hash}` });
    expect(result).toMatchObject({ ok: true, count: TOTAL, head: { seq: TOTAL }, since: { extended: true } });
  }, SLOW);

  test('tampering after the first batch is found where it happened', async () => {
    await tamper(database, `update audit_log set details = '{"step": "forged"}' where seq = 5020`);
    try {
      const result = await verifyAuditLog(database.db);
      expect(result).toMatchObject({ ok: false, count: TOTAL, firstBad: { seq: 5_020, reason: 'content does not match its hash (the entry was edited)' } });
    } finally {
      await tamper(database, `update audit_log set details = '{"step": 5019}' where seq = 5020`);
    }
    const [removed] = await database.db.select().from(auditLog).where(eq(auditLog.seq, 5_001));
    await tamper(database, 'delete from audit_log where seq = 5001');
    try {
      const result = await verifyAuditLog(database.db);
      expect(result).toMatchObject({ ok: false, count: TOTAL - 1, firstBad: { seq: 5_001, reason: 'entry 5001 is missing (the next stored entry is 5002)' } });
    } finally {
      await database.db.insert(auditLog).values(removed);
    }
    expect((await verifyAuditLog(database.db)).ok).toBe(true);
  }, SLOW);
});
