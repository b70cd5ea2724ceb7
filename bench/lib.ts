import postgres from 'postgres';
import { readConfig } from '../src/config';
import { boot, type Booted } from '../src/platform/bootstrap';

/** A throw-away service for a benchmark: a fresh database on DATABASE_URL's server (dropped afterwards) or in-memory PGlite. */
export async function bootBenchService(label: string): Promise<Booted & { dispose(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  let url: string | undefined;
  const name = `grc_bench_${label}_${process.pid}`;
  if (base) {
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const parsed = new URL(base);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
  }
  const ctx = await boot(readConfig({ LOG_LEVEL: 'error', ADMIN_PASSWORD: 'benchmark password', ...(url ? { DATABASE_URL: url } : {}) }), { memory: !url });
  return Object.assign(ctx, {
    async dispose() {
      await ctx.close();
      if (base) {
        const admin = postgres(base, { max: 1, onnotice: () => {} });
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
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
