import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { selectRows, type Database } from '../../db/client';
import { auditLog, history } from '../../db/schema';
import { appendAudit, type AuditEvent } from '../../src/platform/audit/audit';
import { changesDigest, recordChange, type FieldChanges } from '../../src/platform/audit/history';
import { verifyHistorySeals } from '../../src/platform/audit/history-seals';
import { systemActor } from '../../src/platform/permissions/permissions';
import { bareDatabase } from '../helpers/audit-log';
import { unique } from '../helpers/factories';

// A database of its own with migrations only (no service booted, so a mutation run starts fast): these tests tamper
// with History on purpose. Records are written as a service writes them: recordChange, in a transaction.
let database: Database;
let riskId: string;

/** Writes a risk's creation (Audit Log entry with its seal, and History) and returns its id. */
async function makeRisk(title: string): Promise<string> {
  const recordId = unique('risk');
  await database.db.transaction((tx) => recordChange(tx, systemActor('cli'), {
    module: 'risks', recordType: 'risk', recordId, action: 'create', before: null, after: { title, score: 12 },
  }));
  return recordId;
}

beforeAll(async () => {
  database = await bareDatabase();
  riskId = await makeRisk(unique('Sealed risk'));
}, 180_000);
afterAll(() => database?.close());

const historyOfRisk = async () =>
  (await database.db.select().from(history).where(eq(history.recordId, riskId)))[0];

describe('History entries are sealed by the Audit Log', () => {
  test("a record write's audit entry carries the SHA-256 of its History entry's changes", async () => {
    const row = await historyOfRisk();
    const [entry] = await database.db.select().from(auditLog).where(eq(auditLog.seq, row.auditSeq!));
    expect(entry.details).toMatchObject({ changesSha256: changesDigest(row.changes as FieldChanges) });
    expect(JSON.stringify(entry.details)).not.toContain('Sealed risk');
  });

  test('untouched History verifies', async () => {
    const result = await verifyHistorySeals(database.db);
    expect(result.firstBad).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.checked).toBeGreaterThan(0);
  });

  test('an edited History entry is named by its audit entry', async () => {
    const row = await historyOfRisk();
    const forged = { ...(row.changes as FieldChanges), title: { before: null, after: 'Something else' } };
    await database.db.update(history).set({ changes: forged }).where(eq(history.id, row.id));
    try {
      const result = await verifyHistorySeals(database.db);
      expect(result.ok).toBe(false);
      expect(result.firstBad).toEqual({ seq: row.auditSeq!, reason: `History entry ${row.id} was changed (its changes no longer match the seal)` });
    } finally {
      await database.db.update(history).set({ changes: row.changes }).where(eq(history.id, row.id));
    }
  });

  test('a removed History entry, and one added under another write, are named', async () => {
    const row = await historyOfRisk();
    await database.db.delete(history).where(eq(history.id, row.id));
    try {
      const missing = await verifyHistorySeals(database.db);
      expect(missing.firstBad).toEqual({ seq: row.auditSeq!, reason: 'its History entry is missing' });
    } finally {
      await database.db.insert(history).values(row);
    }
    const [added] = await database.db.insert(history).values({ ...row, id: undefined }).returning({ id: history.id });
    try {
      const doubled = await verifyHistorySeals(database.db);
      expect(doubled.firstBad).toEqual({ seq: row.auditSeq!, reason: `2 History entries claim it (${row.id}, ${added.id})` });
    } finally {
      await database.db.delete(history).where(eq(history.id, added.id));
    }
    expect((await verifyHistorySeals(database.db)).ok).toBe(true);
  });

  test('a History entry that names no audit entry is counted as unsealed', async () => {
    const row = await historyOfRisk();
    const [orphan] = await database.db.insert(history).values({ ...row, id: undefined, auditSeq: null }).returning({ id: history.id });
    try {
      const result = await verifyHistorySeals(database.db);
      expect(result.ok).toBe(false);
      expect(result.unsealed).toBe(1);
    } finally {
      await database.db.execute(sql`delete from history where id = ${orphan.id}`);
    }
  });
});

/** Appends one Audit Log entry as the system would and returns its seq. */
const appendEntry = async (event: AuditEvent): Promise<number> =>
  (await database.db.transaction((tx) => appendAudit(tx, systemActor('cli'), [event])))[0].seq;

/** A History entry that claims the audit entry `auditSeq` (null: none), written directly as tampering would. */
const insertHistory = async (auditSeq: number | null, changes: FieldChanges): Promise<number> =>
  (await database.db.insert(history).values({ recordType: 'risk', recordId: unique('claimed'), action: 'update', via: 'cli', changes, auditSeq })
    .returning({ id: history.id }))[0].id;

const removeHistory = (...ids: number[]) => database.db.execute(sql`delete from history where id in ${sql.raw(`(${ids.join(', ')})`)}`);
const historyRowsInLog = async () => Number((await selectRows<{ n: number }>(database.db, sql`
  select count(*)::int as n from history where audit_seq between (select min(seq) from audit_log) and (select max(seq) from audit_log)`))[0].n);
const notRecording = (id: number) => `History entry ${id} names this audit entry, which does not record it`;

describe('History seals: how each disagreement is named', () => {
  test('every History entry in the log is counted as checked', async () => {
    const result = await verifyHistorySeals(database.db);
    expect(result).toMatchObject({ ok: true, checked: await historyRowsInLog(), unsealed: 0, beforeLog: 0 });
  });

  test('an entry written before the seal (its changes copied into the audit entry) verifies when its History holds the same changes', async () => {
    const changes = { title: { before: 'Old', after: 'New' }, score: { before: 3, after: 4 } };
    const seq = await appendEntry({ module: 'risks', action: 'update', recordType: 'risk', recordId: unique('legacy'), details: { changes } });
    // The same changes with their keys in another order: compared in canonical form.
    const id = await insertHistory(seq, { score: { before: 3, after: 4 }, title: { before: 'Old', after: 'New' } });
    try {
      expect(await verifyHistorySeals(database.db)).toMatchObject({ ok: true, checked: await historyRowsInLog() });
      await database.db.update(history).set({ changes: { ...changes, title: { before: 'Old', after: 'Forged' } } }).where(eq(history.id, id));
      expect(await verifyHistorySeals(database.db)).toMatchObject({ ok: false, firstBad: { seq, reason: notRecording(id) } });
      await database.db.update(history).set({ changes }).where(eq(history.id, id));
      const second = await insertHistory(seq, changes);
      try {
        expect((await verifyHistorySeals(database.db)).firstBad).toEqual({ seq, reason: `History entry ${id}, ${second} names this audit entry, which does not record it` });
      } finally {
        await removeHistory(second);
      }
    } finally {
      await removeHistory(id);
    }
    expect((await verifyHistorySeals(database.db)).ok).toBe(true);
  });

  test('a History entry claiming an audit entry that records no write, or one with neither seal nor copy, is named', async () => {
    const setting = await appendEntry({ module: 'settings', action: 'update' });
    const bare = await appendEntry({ module: 'risks', action: 'update', recordType: 'risk', recordId: unique('bare'), details: { note: 'no changes' } });
    for (const seq of [setting, bare]) {
      const id = await insertHistory(seq, { title: { before: null, after: 'Claimed' } });
      try {
        expect(await verifyHistorySeals(database.db)).toMatchObject({ ok: false, firstBad: { seq, reason: notRecording(id) } });
      } finally {
        await removeHistory(id);
      }
    }
  });

  test('a History entry whose changes are the JSON value null is not sealed by an audit entry that copied no changes', async () => {
    const bare = await appendEntry({ module: 'risks', action: 'update', recordType: 'risk', recordId: unique('no copy') });
    const [{ id }] = await selectRows<{ id: number }>(database.db, sql`
      insert into history (record_type, record_id, action, via, changes, audit_seq)
      values ('risk', ${unique('null changes')}, 'update', 'cli', 'null'::jsonb, ${bare}) returning id`);
    try {
      expect(await verifyHistorySeals(database.db)).toMatchObject({ ok: false, firstBad: { seq: bare, reason: notRecording(Number(id)) } });
    } finally {
      await removeHistory(Number(id));
    }
  });

  test('of two problems the one at the lower seq is reported, whichever check found it', async () => {
    // A History entry claiming a setting's entry (found by the History side) before an edited sealed entry (found by the Audit Log side).
    const setting = await appendEntry({ module: 'settings', action: 'update' });
    const laterRisk = await makeRisk(unique('Later risk'));
    const [later] = await database.db.select().from(history).where(eq(history.recordId, laterRisk));
    const claim = await insertHistory(setting, { title: { before: null, after: 'Claimed' } });
    await database.db.update(history).set({ changes: { title: { before: null, after: 'Forged' } } }).where(eq(history.id, later.id));
    try {
      expect((await verifyHistorySeals(database.db)).firstBad).toEqual({ seq: setting, reason: notRecording(claim) });
    } finally {
      await removeHistory(claim);
    }
    // And the other way round: the edited sealed entry first, a claim on a later setting's entry after it.
    const laterSetting = await appendEntry({ module: 'settings', action: 'update' });
    const laterClaim = await insertHistory(laterSetting, { title: { before: null, after: 'Claimed' } });
    try {
      expect((await verifyHistorySeals(database.db)).firstBad).toEqual({
        seq: later.auditSeq!, reason: `History entry ${later.id} was changed (its changes no longer match the seal)`,
      });
    } finally {
      await removeHistory(laterClaim);
      await database.db.update(history).set({ changes: later.changes }).where(eq(history.id, later.id));
    }
    expect((await verifyHistorySeals(database.db)).ok).toBe(true);
  });

  test('History of pruned audit entries is counted apart; History beyond the last entry is unsealed', async () => {
    const before = await insertHistory(0, { title: { before: null, after: 'Before the log' } });
    try {
      expect(await verifyHistorySeals(database.db)).toMatchObject({ ok: true, beforeLog: 1, unsealed: 0, checked: await historyRowsInLog() });
      const [{ high }] = await selectRows<{ high: number }>(database.db, sql`select max(seq)::int as high from audit_log`);
      const beyond = await insertHistory(Number(high) + 1, { title: { before: null, after: 'Beyond the log' } });
      try {
        expect(await verifyHistorySeals(database.db)).toMatchObject({ ok: false, beforeLog: 1, unsealed: 1 });
      } finally {
        await removeHistory(beyond);
      }
    } finally {
      await removeHistory(before);
    }
  });

  test('History beyond the first range of 5,000 audit entries is checked: every range is read', async () => {
    const filler = Array.from({ length: 5_050 }, (_, i) => ({ module: 'risks', action: 'update', recordType: 'risk', recordId: `filler-${i}`, details: { step: i } }));
    await database.db.transaction((tx) => appendAudit(tx, systemActor('cli'), filler));
    const farRisk = await makeRisk(unique('Far risk'));
    const [far] = await database.db.select().from(history).where(eq(history.recordId, farRisk));
    expect(far.auditSeq!).toBeGreaterThan(5_050);
    expect(await verifyHistorySeals(database.db)).toMatchObject({ ok: true, checked: await historyRowsInLog() });
    await database.db.update(history).set({ changes: { title: { before: null, after: 'Forged' } } }).where(eq(history.id, far.id));
    try {
      expect((await verifyHistorySeals(database.db)).firstBad).toEqual({
        seq: far.auditSeq!, reason: `History entry ${far.id} was changed (its changes no longer match the seal)`,
      });
    } finally {
      await database.db.update(history).set({ changes: far.changes }).where(eq(history.id, far.id));
    }
  }, 60_000);
});
