import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, gt, max, sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { auditLog, controls } from '../../db/schema';
import { controlKind } from '../../src/modules/controls/service';
import { keepOnlyWhenImported, type ImportMode, type ImportResult } from '../../src/platform/csv/engine';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord, createRecords, loadOwnerLookup } from '../../src/platform/records/records';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, unique } from '../helpers/factories';

// The run states of every CSV import (keepOnlyWhenImported): a check is a rehearsal that is never kept; an apply is kept
// only when it answers "imported", and leaves one summary Audit Log entry whether it was imported or refused.

let env: TestEnv;

beforeAll(async () => {
  env = await testEnv();
});

const importer = async (fileName: string): Promise<Actor> => ({ ...(await adminActor(env)), via: 'import', source: `CSV import of ${fileName}` });
const answer = (outcome: ImportResult['outcome'], fileName: string): ImportResult => ({
  outcome, fileName, counts: { create: 1, update: 0, unchanged: 0, error: outcome === 'refused' ? 1 : 0 }, rows: [{ line: 2, outcome: 'create' }],
});
const auditHead = async () => (await env.ctx.db.select({ head: max(auditLog.seq) }).from(auditLog))[0].head ?? 0;
const entriesAfter = (seq: number) =>
  env.ctx.db.select({ module: auditLog.module, action: auditLog.action, via: auditLog.via, details: auditLog.details })
    .from(auditLog).where(and(gt(auditLog.seq, seq), eq(auditLog.module, 'controls'))).orderBy(auditLog.seq);

/** Runs keepOnlyWhenImported with a run that creates one control and answers `outcome`. */
async function runCreatingOne(mode: ImportMode, outcome: ImportResult['outcome'], fileName: string) {
  const name = unique('Run state');
  const result = await keepOnlyWhenImported(env.ctx.db, await importer(fileName), mode, fileName, { module: 'controls', recordType: null, recordId: null }, async (tx, actor) => {
    const [created] = await createRecords(tx, controlKind, actor, [{ name, description: '' }], { owners: await loadOwnerLookup(tx) });
    expect(created.ok).toBe(true);
    return answer(outcome, fileName);
  });
  return { name, result, kept: await env.ctx.db.$count(controls, sql`name = ${name}`) };
}

describe('Check file is a rehearsal', () => {
  test('a check writes its records in the rolled-back transaction but no Audit Log or History entries', async () => {
    const name = unique('Rehearsed');
    const seen: { records: number; history: number; audit: number } = { records: -1, history: -1, audit: -1 };
    await keepOnlyWhenImported(env.ctx.db, await importer('rehearsal.csv'), 'check', 'rehearsal.csv', { module: 'controls', recordType: null, recordId: null }, async (tx, actor) => {
      const [outcome] = await createRecords(tx, controlKind, actor, [{ name, description: '' }], { owners: await loadOwnerLookup(tx) });
      expect(outcome.ok).toBe(true);
      const count = async (query: ReturnType<typeof sql>) => (await selectRows<{ n: number }>(tx, query))[0].n;
      seen.records = await count(sql`select count(*)::int as n from controls where name = ${name}`);
      seen.history = await count(sql`select count(*)::int as n from history where source = 'CSV import of rehearsal.csv'`);
      seen.audit = await count(sql`select count(*)::int as n from audit_log where details->>'source' = 'CSV import of rehearsal.csv'`);
      return answer('checked', 'rehearsal.csv');
    });
    expect(seen).toEqual({ records: 1, history: 0, audit: 0 });
    expect(await env.ctx.db.$count(controls, sql`name = ${name}`)).toBe(0);
  });

  // PGlite is one connection: another writer cannot run while the check's transaction is open.
  test.skipIf(!process.env.DATABASE_URL)('a check does not hold back other writers while its transaction is open (PostgreSQL)', async () => {
    const admin = await adminActor(env);
    const other = unique('Written during a check');
    // The other write appends to the audit chain on another connection and is awaited inside the check: were the
    // check holding the chain lock, this would wait for the check, which waits for it.
    await keepOnlyWhenImported(env.ctx.db, await importer('rehearsal.csv'), 'check', 'rehearsal.csv', { module: 'controls', recordType: null, recordId: null }, async (tx, actor) => {
      await createRecords(tx, controlKind, actor, [{ name: unique('Rehearsed'), description: '' }], { owners: await loadOwnerLookup(tx) });
      await env.ctx.db.transaction((otherTx) => createRecord(otherTx, controlKind, admin, { name: other, description: '' }));
      return answer('checked', 'rehearsal.csv');
    });
    expect(await env.ctx.db.$count(controls, sql`name = ${other}`)).toBe(1);
    expect((await verifyAuditLog(env.ctx.db)).ok).toBe(true);
  });
});

describe('Check file keeps nothing, whatever it answers', () => {
  test('a check whose run answers "imported" is still rolled back and writes no summary entry', async () => {
    const before = await auditHead();
    const { result, kept } = await runCreatingOne('check', 'imported', 'answers-imported.csv');
    expect(result.outcome).toBe('imported');
    expect(kept).toBe(0);
    expect(await entriesAfter(before)).toEqual([]);
  });
});

describe('Import rows keeps the writes only when the run answers imported', () => {
  test('an imported run is kept: the record, its own entry marked as an import, then one summary entry', async () => {
    const before = await auditHead();
    const { kept } = await runCreatingOne('apply', 'imported', 'kept.csv');
    expect(kept).toBe(1);
    expect(await entriesAfter(before)).toEqual([
      { module: 'controls', action: 'create', via: 'import', details: expect.objectContaining({ source: 'CSV import of kept.csv' }) },
      { module: 'controls', action: 'import', via: 'import', details: { file: 'kept.csv', rows: 1, counts: { create: 1, update: 0, unchanged: 0, error: 0 }, outcome: 'imported' } },
    ]);
  });

  test('a refused run is rolled back, and its summary entry is written on its own, after the rollback', async () => {
    const before = await auditHead();
    const { kept } = await runCreatingOne('apply', 'refused', 'refused.csv');
    expect(kept).toBe(0);
    expect(await entriesAfter(before)).toEqual([
      { module: 'controls', action: 'import', via: 'import', details: { file: 'refused.csv', rows: 1, counts: { create: 1, update: 0, unchanged: 0, error: 1 }, outcome: 'refused' } },
    ]);
    expect((await verifyAuditLog(env.ctx.db)).ok).toBe(true);
  });

  test('a run that fails is not turned into an answer: the error reaches the caller, nothing is kept and nothing audited', async () => {
    const before = await auditHead();
    const name = unique('Failed run');
    const run = keepOnlyWhenImported(env.ctx.db, await importer('failed.csv'), 'apply', 'failed.csv', { module: 'controls', recordType: null, recordId: null }, async (tx, actor) => {
      await createRecords(tx, controlKind, actor, [{ name, description: '' }], { owners: await loadOwnerLookup(tx) });
      throw new Error('the run broke');
    });
    await expect(run).rejects.toThrow('the run broke');
    expect(await env.ctx.db.$count(controls, sql`name = ${name}`)).toBe(0);
    expect(await entriesAfter(before)).toEqual([]);
  });
});
