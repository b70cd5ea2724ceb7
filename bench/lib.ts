import postgres from 'postgres';
import { readConfig } from '../src/config';
import { boot } from '../src/app';
import type { Booted } from '../src/platform/modules/bootstrap';

/** A fresh database on DATABASE_URL's server for a benchmark (none on PGlite), and how to drop it afterwards. */
export async function benchDatabase(label: string): Promise<{ url?: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { drop: async () => {} };
  const name = `grc_bench_${label}_${process.pid}`;
  const run = async (statement: string) => {
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    await admin.unsafe(statement);
    await admin.end();
  };
  await run(`drop database if exists ${name} with (force)`);
  await run(`create database ${name}`);
  const parsed = new URL(base);
  parsed.pathname = `/${name}`;
  return { url: parsed.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

/** A throw-away service for a benchmark: a fresh database on DATABASE_URL's server (dropped afterwards) or in-memory PGlite. */
export async function bootBenchService(label: string, overrides: Record<string, string> = {}): Promise<Booted & { dispose(): Promise<void> }> {
  const database = await benchDatabase(label);
  const url = database.url;
  const ctx = await boot(readConfig({ LOG_LEVEL: 'error', ADMIN_PASSWORD: 'benchmark password', ...(url ? { DATABASE_URL: url } : {}), ...overrides }), { memory: !url });
  return Object.assign(ctx, {
    async dispose() {
      await ctx.close();
      await database.drop();
    },
  });
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export function summarise(samplesMs: number[]) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

export const ms = (value: number) => `${value.toFixed(2)} ms`;

export async function timeIt<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const start = performance.now();
  const result = await work();
  return { ms: performance.now() - start, result };
}

type BenchDatabase = Awaited<ReturnType<typeof bootBenchService>>['database'];

/**
 * Milliseconds the database itself takes for `body`, timed inside it and rolled back: one DO block (so one
 * transaction on either driver) that declares `declare`, runs `setup` untimed, then `body`, and ends by raising an
 * exception that carries the time, which leaves nothing behind. The best of three runs.
 */
export async function timedInDatabase(database: BenchDatabase, block: { declare: string; setup: string; body: string }): Promise<number> {
  const once = async (): Promise<number> => {
    try {
      await database.raw(`do $$
        declare ${block.declare} started timestamptz;
        begin
          ${block.setup};
          started := clock_timestamp();
          ${block.body};
          raise exception 'bench-ms:%', extract(epoch from clock_timestamp() - started) * 1000;
        end $$`);
    } catch (error) {
      const took = /bench-ms:([\d.]+)/.exec(String((error as Error)?.message ?? error));
      if (took) return Number(took[1]);
      throw error;
    }
    throw new Error('the timed block was not rolled back');
  };
  return Math.min(await once(), await once(), await once());
}

/** The SQL that reads the Audit Log head into `head_seq` and `head_hash` (declared bigint and text) inside a timed block. */
export const READ_AUDIT_HEAD = `
  select coalesce(max(seq), 0) into head_seq from audit_log;
  select coalesce((select hash from audit_log where seq = head_seq), repeat('0', 64)) into head_hash`;
