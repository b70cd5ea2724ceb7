import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { asc, eq, gt } from 'drizzle-orm';
import { openDatabase, runMigrations, type Database } from '../../db/client';
import { auditLog } from '../../db/schema';
import { appendAudit, GENESIS_HASH, hashAuditEntry, type AuditEntry } from '../../src/platform/audit/audit';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { systemActor } from '../../src/platform/permissions/permissions';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { createTestDatabaseUrl } from '../helpers/db';
import { adminActor, bearer, classificationId, makeToken } from '../helpers/factories';

/** Booting a private service and 50 concurrent requests can outlast the default limit on a busy machine. */
const SLOW = 60_000;

// Every test here tampers with (or needs an exact view of) the log, so each uses a database of its own, never the shared one.

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

async function appendEvents(database: Database, count: number): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => ({ module: 'risks', action: 'update', recordType: 'risk', recordId: `r-${i}`, details: { step: i } }));
  await database.db.transaction((tx) => appendAudit(tx, systemActor('cli'), events));
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

describe('Audit Log in the database: tampering is found at the entry it touched', () => {
  let env: TestEnv;
  let database: Database;
  beforeAll(async () => {
    env = await startTestEnv();
    database = env.ctx.database;
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
  let database: Database;
  beforeAll(async () => {
    // A bare database (migrations only) so the log can start with entries dated two years ago.
    const databaseUrl = await createTestDatabaseUrl();
    database = await openDatabase(databaseUrl ? { databaseUrl } : { memory: true });
    await runMigrations(database);
  }, SLOW);
  afterAll(() => database.close());

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

describe('Audit Log under concurrent writers', () => {
  test('50 concurrent API writes leave one linear chain', async () => {
    const env = await startTestEnv();
    const token = await makeToken(env, await adminActor(env), ['risks:create']);
    const classification = await classificationId(env);
    const before = await verifyAuditLog(env.ctx.db);

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const body = JSON.stringify({ title: `Concurrent risk ${i}`, classificationId: classification, inherentLikelihood: 2, inherentImpact: 3 });
        return env.request('/api/v1/risks', bearer(token, { method: 'POST', body }));
      }),
    );
    for (const res of responses) expect(res.status, await res.clone().text()).toBe(201);

    const after = await verifyAuditLog(env.ctx.db, { since: before.checkpoint! });
    expect(after.firstBad, JSON.stringify(after.firstBad)).toBeUndefined();
    expect(after.ok).toBe(true);
    expect(after.count - before.count).toBeGreaterThanOrEqual(50);

    const written = await env.ctx.db.select({ seq: auditLog.seq, prevHash: auditLog.prevHash, hash: auditLog.hash, action: auditLog.action, module: auditLog.module })
      .from(auditLog).where(gt(auditLog.seq, before.head!.seq - 1)).orderBy(asc(auditLog.seq));
    for (let i = 1; i < written.length; i += 1) {
      expect(written[i].seq, `after entry ${written[i - 1].seq}`).toBe(written[i - 1].seq + 1);
      expect(written[i].prevHash, `entry ${written[i].seq}`).toBe(written[i - 1].hash);
    }
    expect(written.filter((entry) => entry.module === 'risks' && entry.action === 'create')).toHaveLength(50);
  }, SLOW);
});
