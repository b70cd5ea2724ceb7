import { appendAudit, type AuditEvent } from '../src/platform/audit/audit';
import { systemActor } from '../src/platform/permissions/permissions';
import { bootBenchService, ms, timeIt } from './lib';

const events = (n: number, offset = 0): AuditEvent[] =>
  Array.from({ length: n }, (_, i) => ({ module: 'bench', action: 'update', recordType: 'risk', recordId: String(offset + i), details: { changes: { title: { before: 'a', after: `b${i}` } } } }));

/** Appending 10,000 entries in one transaction vs a plain multi-row insert floor, and verifying a 100,000-entry chain. */
export async function benchAudit(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('audit');
  try {
    const actor = systemActor();
    await ctx.database.raw('create table bench_floor (seq bigint primary key, payload jsonb not null, h text not null)');
    const floor = await timeIt(async () => {
      for (let start = 0; start < 10_000; start += 2000) {
        const values = Array.from({ length: 2000 }, (_, i) => `(${start + i + 1}, '{"module":"bench"}', md5('${start + i}'))`).join(',');
        await ctx.database.raw(`insert into bench_floor values ${values}`);
      }
    });
    const append = await timeIt(() => ctx.db.transaction((tx) => appendAudit(tx, actor, events(10_000))));
    const singles = await timeIt(async () => {
      for (let i = 0; i < 500; i++) await ctx.db.transaction((tx) => appendAudit(tx, actor, events(1, i)));
    });
    for (let batch = 0; batch < 9; batch++) await ctx.db.transaction((tx) => appendAudit(tx, actor, events(10_000, batch * 10_000)));
    const { verifyAuditLog } = await import('../src/platform/audit/audit-verify');
    const verify = await timeIt(() => verifyAuditLog(ctx.db));
    return {
      'append 10,000 audit entries (one transaction)': ms(append.ms),
      'floor: multi-row INSERT of 10,000 rows': ms(floor.ms),
      'append 1 entry per transaction (mean of 500)': ms(singles.ms / 500),
      [`verify chain of ${verify.result.count.toLocaleString('en')} entries`]: `${ms(verify.ms)} (ok: ${verify.result.ok}; target < 2 s)`,
    };
  } finally {
    await ctx.dispose();
  }
}
