import { describe, expect, test } from 'bun:test';
import { asc, gt } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { appendAudit, type AuditEntry } from '../../src/platform/audit/audit';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { systemActor } from '../../src/platform/permissions/permissions';
import { startTestEnv } from '../helpers/app';
import { appendEvents, bareDatabase } from '../helpers/audit-log';
import { adminActor, bearer, classificationId, makeToken } from '../helpers/factories';

/** Booting a private service and 50 concurrent requests can outlast the default limit on a busy machine. */
const SLOW = 60_000;

// On the embedded database (PGlite) one transaction runs at a time, so two writers never meet and the chain lock is
// never put to the test there: these tests run on PostgreSQL only (npm test with DATABASE_URL, as CI does).
if (!process.env.DATABASE_URL) {
  console.warn('platform/audit-log-concurrency: the chain lock tests are skipped on the embedded database (one transaction at a time); run with DATABASE_URL to include them');
}

describe.skipIf(!process.env.DATABASE_URL)('Audit Log under concurrent writers (PostgreSQL: the chain lock)', () => {
  test('a second writer waits for the first one\'s transaction and then appends after its entry', async () => {
    const database = await bareDatabase();
    try {
      await appendEvents(database, 3);
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      let firstAppended!: (entry: AuditEntry) => void;
      const appended = new Promise<AuditEntry>((resolve) => { firstAppended = resolve; });
      const first = database.db.transaction(async (tx) => {
        const [entry] = await appendAudit(tx, systemActor(), [{ module: 'risks', action: 'first' }]);
        firstAppended(entry);
        await held;
      });
      const firstEntry = await appended;
      let secondDone = false;
      const second = database.db.transaction((tx) => appendAudit(tx, systemActor(), [{ module: 'risks', action: 'second' }]))
        .finally(() => { secondDone = true; });
      await Bun.sleep(500);
      expect(secondDone, 'the second writer must wait for the chain lock').toBe(false);
      release();
      await first;
      const [secondEntry] = await second;
      expect(secondEntry).toMatchObject({ seq: firstEntry.seq + 1, prevHash: firstEntry.hash, action: 'second' });
      expect((await verifyAuditLog(database.db)).ok).toBe(true);
    } finally {
      await database.close();
    }
  }, SLOW);

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
