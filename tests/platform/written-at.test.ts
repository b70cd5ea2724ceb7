import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { auditLog, history } from '../../db/schema';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { systemActor } from '../../src/platform/permissions/permissions';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, unique } from '../helpers/factories';

// The demo loader and tests of posture at a past date write the past through the services with a chosen time.
let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});

const historyOf = async (recordId: string) => (await env.ctx.db.select().from(history).where(eq(history.recordId, recordId)))[0];
const auditOf = async (seq: number) => (await env.ctx.db.select().from(auditLog).where(eq(auditLog.seq, seq)))[0];

describe('the time a write is recorded at', () => {
  test('the system actor with a chosen time writes its Audit Log and History entries at that time, and the chain verifies', async () => {
    const past = new Date('2026-03-14T09:30:00.000Z');
    const riskId = await makeRisk(env, { ...systemActor('loader'), writtenAt: past }, { title: unique('Risk of March') });
    const row = await historyOf(riskId);
    expect(row.at.toISOString()).toBe(past.toISOString());
    expect(new Date((await auditOf(row.auditSeq!)).at).toISOString()).toBe(past.toISOString());
    expect((await verifyAuditLog(env.ctx.db)).ok).toBe(true);
  });

  test('a person cannot write the past: a chosen time on a user actor is ignored', async () => {
    const before = Date.now();
    const riskId = await makeRisk(env, { ...(await adminActor(env)), writtenAt: new Date('2020-01-01T00:00:00Z') }, { title: unique('Risk of now') });
    const row = await historyOf(riskId);
    expect(row.at.getTime()).toBeGreaterThanOrEqual(before - 5_000);
    expect(Date.parse((await auditOf(row.auditSeq!)).at)).toBeGreaterThanOrEqual(before - 5_000);
  });
});
