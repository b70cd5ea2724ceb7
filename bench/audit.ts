import { appendAudit, type AuditEvent } from '../src/platform/audit/audit';
import { systemActor } from '../src/platform/permissions/permissions';
import { bootBenchService, ms, timeIt } from './lib';
import { listAuditEntries } from '../src/platform/modules/audit-log-entries';

/**
 * The Audit Log screen's query filtered by one record over 1,000,000 entries (50,000 records of 20 entries each, added
 * in bulk after the chain was verified: this measures the read, not the chain): served by audit_log_record_seq_idx.
 */
async function auditScreenByRecord(ctx: Awaited<ReturnType<typeof bootBenchService>>): Promise<{ ms: number; entries: number; rows: number; total: number }> {
  await ctx.database.raw(`insert into audit_log (seq, at, actor_kind, via, module, action, record_type, record_id, details, prev_hash, hash)
    select s, now(), 'system', 'system', 'controls', 'update', 'control', 'bench-' || (s % 50000), '{}', 'bench-prev-' || s, 'bench-hash-' || s
    from generate_series((select max(seq) + 1 from audit_log), 1000000) s`);
  await ctx.database.raw('analyze audit_log');
  const times: number[] = [];
  let last = { rows: 0, total: 0 };
  for (let i = 0; i < 5; i++) {
    const run = await timeIt(() => listAuditEntries(ctx.db, systemActor(), { record: `bench-${1234 + i}` }, 1));
    times.push(run.ms);
    last = { rows: run.result.rows.length, total: run.result.total };
  }
  times.sort((a, b) => a - b);
  return { ms: times[2], entries: 1_000_000, ...last };
}

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
    const screen = await auditScreenByRecord(ctx);
    return {
      'append 10,000 audit entries (one transaction)': ms(append.ms),
      'floor: multi-row INSERT of 10,000 rows': ms(floor.ms),
      'append 1 entry per transaction (mean of 500)': ms(singles.ms / 500),
      [`verify chain of ${verify.result.count.toLocaleString('en')} entries`]: `${ms(verify.ms)} (ok: ${verify.result.ok}; target < 2 s)`,
      [`Audit Log screen by record, ${screen.entries.toLocaleString('en')} entries (median of 5)`]: `${ms(screen.ms)} (page of ${screen.rows}, total ${screen.total}; target < 100 ms)`,
    };
  } finally {
    await ctx.dispose();
  }
}
