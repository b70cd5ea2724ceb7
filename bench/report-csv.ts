import postgres from 'postgres';
import { createApp } from '../src/app';
import { sessionCookieName } from '../src/platform/http/screen-auth';
import { signIn } from '../src/platform/http/sessions';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const RISKS = Number(process.env.BENCH_REPORT_RISKS ?? 100_000);
const RUNS = 5;

const OWNER = '(select id from users order by created_at limit 1)';
/** As bench/dashboard.ts seeds them: half the risks rated residually, owned by the administrator. */
const SEED = `insert into risks (title, description, classification_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, owner_id, status, review_frequency_months, created_at)
  select 'Risk ' || g, 'Seeded for the benchmark', (select id from risk_classifications order by name limit 1),
    1 + g % 5, 1 + (g / 5) % 5, case when g % 2 = 0 then 1 + (g % 5) / 2 end, case when g % 2 = 0 then 1 + ((g / 5) % 5) / 2 end,
    ${OWNER}, (array['open','closed','archived'])[1 + g % 3], 12, now() - (g % 500) * interval '1 day'
  from generate_series(1, ${RISKS}) g`;

/**
 * The floor: the risk register report's fifteen columns (title, classification, both ratings' likelihood and impact
 * named, score and band, owner, owner group, status, review frequency, updated day) in the report's order, written
 * by PostgreSQL itself as CSV.
 */
const COPY = `copy (
  select r.title, c.name, r.inherent_likelihood || ' – ' || il.name, r.inherent_impact || ' – ' || ii.name, isc.score, ib.name,
    r.residual_likelihood || ' – ' || rl.name, r.residual_impact || ' – ' || ri.name, rsc.score, rb.name,
    coalesce(u.name, g.name), g.name, initcap(r.status), r.review_frequency_months, to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD')
  from risks r
    join risk_classifications c on c.id = r.classification_id
    join risk_likelihood_levels il on il.value = r.inherent_likelihood
    join risk_impact_levels ii on ii.value = r.inherent_impact
    left join risk_scale_cells isc on isc.likelihood = r.inherent_likelihood and isc.impact = r.inherent_impact
    left join risk_bands ib on isc.score between ib.min_score and ib.max_score
    left join risk_likelihood_levels rl on rl.value = r.residual_likelihood
    left join risk_impact_levels ri on ri.value = r.residual_impact
    left join risk_scale_cells rsc on rsc.likelihood = r.residual_likelihood and rsc.impact = r.residual_impact
    left join risk_bands rb on rsc.score between rb.min_score and rb.max_score
    left join users u on u.id = r.owner_id
    left join groups g on g.id = r.owner_group_id
  order by r.title, r.id
) to stdout with (format csv, header)`;

const memoryMb = () => process.memoryUsage().rss / 1024 / 1024;

/** Reads a byte stream to its end without keeping it: its size and its line count. */
async function drain(stream: AsyncIterable<Uint8Array>): Promise<{ bytes: number; lines: number }> {
  let bytes = 0;
  let lines = 0;
  for await (const chunk of stream) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  return { bytes, lines };
}

/**
 * The risk register report's CSV (`GET /reports/riskRegister/csv`, every row, streamed) with 100,000 risks on
 * PostgreSQL, over HTTP, with the service's RSS before, at its peak and after; next to its floor in the same run:
 * PostgreSQL's own `COPY (select …the same columns…) TO STDOUT` read whole through postgres.js (`.readable()`).
 */
export async function benchReportCsv(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('report_csv');
  const figures: Record<string, string> = {};
  if (ctx.database.kind !== 'postgres') {
    await ctx.dispose();
    return { skipped: 'PostgreSQL only (set DATABASE_URL): the floor is COPY … TO STDOUT' };
  }
  const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
  try {
    figures[`seeded: ${RISKS.toLocaleString('en')} risks`] = ms((await timeIt(() => ctx.database.raw(SEED))).ms);
    await ctx.database.raw('vacuum analyze');
    const signedIn = await signIn(ctx.db, ctx.config.ADMIN_EMAIL, 'benchmark password', '', { sessionHours: 1 });
    const headers = { cookie: `${sessionCookieName(ctx.config)}=${signedIn.secret}` };
    const url = `http://127.0.0.1:${server.server!.port}/reports/riskRegister/csv`;
    const report = async () => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`the report answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return drain(res.body! as unknown as AsyncIterable<Uint8Array>);
    };
    // A connection of its own for each COPY, opened before the clock starts: postgres.js (3.4) left a second COPY on
    // one connection waiting for ever after the first one's stream was read to its end.
    const floor = async () => {
      const direct = postgres(ctx.config.DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        await direct`select 1`;
        return await timeIt(async () => drain(await direct.unsafe(COPY).readable()));
      } finally {
        await direct.end({ timeout: 5 });
      }
    };

    // Warm both once (plans, caches), then alternate.
    const warm = await report();
    const copied = (await floor()).result;
    if (warm.lines !== copied.lines) throw new Error(`the report has ${warm.lines} lines, COPY ${copied.lines}`);
    figures['rows (header line apart)'] = `${(warm.lines - 1).toLocaleString('en')}; report ${(warm.bytes / 1024 / 1024).toFixed(1)} MiB, COPY ${(copied.bytes / 1024 / 1024).toFixed(1)} MiB`;
    const reportTimes: number[] = [];
    const floorTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      floorTimes.push((await floor()).ms);
      reportTimes.push((await timeIt(report)).ms);
    }
    // Memory in a run of its own, untimed: sampling RSS every 10 ms costs the process about a third more time.
    Bun.gc(true);
    const before = memoryMb();
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, memoryMb()); }, 10);
    await report();
    clearInterval(sampler);
    Bun.gc(true);
    const after = memoryMb();
    const r = summarise(reportTimes);
    const f = summarise(floorTimes);
    figures['GET /reports/riskRegister/csv, streamed'] = `p50 ${ms(r.p50)} of ${RUNS} (target <= 2x the floor)`;
    figures['  floor: COPY (same columns) TO STDOUT'] = `p50 ${ms(f.p50)}; ratio ${(r.p50 / f.p50).toFixed(2)}x`;
    figures['  RSS before / peak / after (a run apart)'] = `${before.toFixed(0)} / ${peak.toFixed(0)} / ${after.toFixed(0)} MB (peak +${(peak - before).toFixed(0)} MB for a ${(warm.bytes / 1024 / 1024).toFixed(1)} MiB file)`;
    return figures;
  } finally {
    await server.stop();
    await ctx.dispose();
  }
}
