import { beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { auditLog, history } from '../../db/schema';
import { changesDigest, type FieldChanges } from '../../src/platform/audit/history';
import { verifyHistorySeals } from '../../src/platform/audit/history-seals';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, unique } from '../helpers/factories';

// A database of its own (closed with the others after the run): these tests tamper with History on purpose.
let env: TestEnv;
let riskId: string;

beforeAll(async () => {
  env = await startTestEnv();
  const admin = await adminActor(env);
  riskId = await makeRisk(env, admin, { title: unique('Sealed risk') });
});

const historyOfRisk = async () =>
  (await env.ctx.db.select().from(history).where(eq(history.recordId, riskId)))[0];

describe('History entries are sealed by the Audit Log', () => {
  test("a record write's audit entry carries the SHA-256 of its History entry's changes", async () => {
    const row = await historyOfRisk();
    const [entry] = await env.ctx.db.select().from(auditLog).where(eq(auditLog.seq, row.auditSeq!));
    expect(entry.details).toMatchObject({ changesSha256: changesDigest(row.changes as FieldChanges) });
    expect(JSON.stringify(entry.details)).not.toContain('Sealed risk');
  });

  test('untouched History verifies', async () => {
    const result = await verifyHistorySeals(env.ctx.db);
    expect(result.firstBad).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.checked).toBeGreaterThan(0);
  });

  test('an edited History entry is named by its audit entry', async () => {
    const row = await historyOfRisk();
    const forged = { ...(row.changes as FieldChanges), title: { before: null, after: 'Something else' } };
    await env.ctx.db.update(history).set({ changes: forged }).where(eq(history.id, row.id));
    try {
      const result = await verifyHistorySeals(env.ctx.db);
      expect(result.ok).toBe(false);
      expect(result.firstBad).toEqual({ seq: row.auditSeq!, reason: `History entry ${row.id} was changed (its changes no longer match the seal)` });
    } finally {
      await env.ctx.db.update(history).set({ changes: row.changes }).where(eq(history.id, row.id));
    }
  });

  test('a removed History entry, and one added under another write, are named', async () => {
    const row = await historyOfRisk();
    await env.ctx.db.delete(history).where(eq(history.id, row.id));
    try {
      const missing = await verifyHistorySeals(env.ctx.db);
      expect(missing.firstBad).toEqual({ seq: row.auditSeq!, reason: 'its History entry is missing' });
    } finally {
      await env.ctx.db.insert(history).values(row);
    }
    const [added] = await env.ctx.db.insert(history).values({ ...row, id: undefined }).returning({ id: history.id });
    try {
      const doubled = await verifyHistorySeals(env.ctx.db);
      expect(doubled.firstBad?.seq).toBe(row.auditSeq!);
      expect(doubled.firstBad?.reason).toContain('2 History entries claim it');
    } finally {
      await env.ctx.db.delete(history).where(eq(history.id, added.id));
    }
    expect((await verifyHistorySeals(env.ctx.db)).ok).toBe(true);
  });

  test('a History entry that names no audit entry is counted as unsealed', async () => {
    const row = await historyOfRisk();
    const [orphan] = await env.ctx.db.insert(history).values({ ...row, id: undefined, auditSeq: null }).returning({ id: history.id });
    try {
      const result = await verifyHistorySeals(env.ctx.db);
      expect(result.ok).toBe(false);
      expect(result.unsealed).toBe(1);
    } finally {
      await env.ctx.db.execute(sql`delete from history where id = ${orphan.id}`);
    }
  });
});
