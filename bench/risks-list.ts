import { createApp } from '../src/app';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { riskListQueries } from '../src/modules/risks/service';
import { createToken } from '../src/modules/apiTokens/service';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const RISKS = 100_000;
const CONCURRENCY = 8;
const REQUESTS = 2_000;

/** GET /api/v1/risks?pageSize=200 over loopback HTTP against the same page's SQL run directly through the driver. */
export async function benchRiskList(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('risks');
  try {
    const seeded = await timeIt(() => ctx.database.raw(`
      insert into risks (title, description, classification_id, inherent_likelihood, inherent_impact, owner_id, status, created_at)
      select 'Risk ' || g, 'Seeded for the benchmark', (select id from risk_classifications order by name limit 1),
             1 + g % 5, 1 + (g / 5) % 5, (select id from users order by created_at limit 1),
             (array['open','closed','archived'])[1 + g % 3], now() - g * interval '1 second'
      from generate_series(1, ${RISKS}) g`));
    await ctx.database.raw('vacuum analyze risks');
    const admin = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'api');
    const { secret } = await ctx.db.transaction((tx) => createToken(tx, admin, { name: 'bench', scopes: ['risks:read'] }));

    // Floor: the exact SQL of the page and its count, prepared, through the driver, run concurrently as the API runs them.
    const queries = riskListQueries(ctx.db, { ...admin, via: 'api' }, { pageSize: 200 });
    const pageSql = queries.page.toSQL();
    const totalSql = queries.total.toSQL();
    const floorSamples: number[] = [];
    for (let i = 0; i < 300; i++) {
      const start = performance.now();
      await Promise.all([ctx.database.raw(pageSql.sql, pageSql.params, { prepare: true }), ctx.database.raw(totalSql.sql, totalSql.params, { prepare: true })]);
      if (i >= 50) floorSamples.push(performance.now() - start);
    }
    const floor = summarise(floorSamples);

    const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
    const url = `http://127.0.0.1:${server.server!.port}/api/v1/risks?pageSize=200`;
    const check = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
    if (check.status !== 200) throw new Error(`list answered ${check.status}: ${await check.text()}`);
    const run = async (requests: number) => {
      const child = Bun.spawn([process.execPath, 'bench/http-load.ts', url, secret, String(CONCURRENCY), String(requests)], { stdout: 'pipe' });
      const output = await new Response(child.stdout).text();
      await child.exited;
      return JSON.parse(output) as { latencies: number[]; seconds: number; failures: number };
    };
    await run(200); // warm-up
    const load = await run(REQUESTS);
    await server.stop();
    const api = summarise(load.latencies);
    return {
      'risks seeded': `${RISKS.toLocaleString('en')} in ${ms(seeded.ms)}`,
      'GET /api/v1/risks?pageSize=200 p50': ms(api.p50),
      'GET /api/v1/risks?pageSize=200 p99': ms(api.p99),
      'GET /api/v1/risks?pageSize=200 requests/s': `${(load.latencies.length / load.seconds).toFixed(0)} (${CONCURRENCY} concurrent clients, ${load.failures} failures)`,
      'direct SQL floor p50 (page + count)': ms(floor.p50),
      'ratio API p50 / floor p50': `${(api.p50 / floor.p50).toFixed(2)}x (target: p50 < 5 ms and <= 3x)`,
    };
  } finally {
    await ctx.dispose();
  }
}
