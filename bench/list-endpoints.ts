import { createApp } from '../src/app';
import { createToken } from '../src/modules/apiTokens/service';
import { controlKind } from '../src/modules/controls/service';
import { incidentKind } from '../src/modules/incidents/service';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { riskListQueries } from '../src/modules/risks/service';
import type { Actor } from '../src/platform/permissions/permissions';
import { listQueries } from '../src/platform/records/records';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const ROWS = 100_000;
const CONCURRENCY = 8;
const REQUESTS = 2_000;
/** Each measurement is taken in this many rounds; the median round is reported. */
const ROUNDS = 3;

const OWNER = '(select id from users order by created_at limit 1)';
const SEEDS: Record<string, string> = {
  risks: `insert into risks (title, description, classification_id, inherent_likelihood, inherent_impact, owner_id, status, created_at)
    select 'Risk ' || g, 'Seeded for the benchmark', (select id from risk_classifications order by name limit 1),
      1 + g % 5, 1 + (g / 5) % 5, ${OWNER}, (array['open','closed','archived'])[1 + g % 3], now() - g * interval '1 second'
    from generate_series(1, ${ROWS}) g`,
  controls: `insert into controls (name, description, type, status, owner_id, created_at)
    select 'Control ' || g, 'Seeded for the benchmark', (array['policy','process','technical','physical','other'])[1 + g % 5],
      (array['planned','active','retired'])[1 + g % 3], ${OWNER}, now() - g * interval '1 second'
    from generate_series(1, ${ROWS}) g`,
  incidents: `insert into incidents (title, description, opened_at, owner_id, status, resolution, created_at)
    select 'Incident ' || g, 'Seeded for the benchmark', current_date - (g % 900), ${OWNER},
      case when g % 2 = 0 then 'closed' else 'open' end, case when g % 2 = 0 then 'Fixed' else '' end, now() - g * interval '1 second'
    from generate_series(1, ${ROWS}) g`,
};

interface Compiled {
  page: { toSQL(): { sql: string; params: unknown[] } };
  total: { toSQL(): { sql: string; params: unknown[] } };
}

/**
 * For each register: GET /api/v1/<register>?pageSize=200 over loopback HTTP (a separate load process, concurrent
 * clients) next to the floor, the same page and total SQL prepared and run directly through the driver.
 */
export async function benchListEndpoints(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('lists');
  const figures: Record<string, string> = {};
  try {
    for (const [table, seed] of Object.entries(SEEDS)) {
      const seeded = await timeIt(() => ctx.database.raw(seed));
      figures[`${table} seeded`] = `${ROWS.toLocaleString('en')} rows in ${ms(seeded.ms)}`;
    }
    await ctx.database.raw('vacuum analyze');
    // Write the seeded pages out now, so a checkpoint does not land in the middle of the first measurement.
    await ctx.database.raw('checkpoint');
    const admin: Actor = { ...userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'api') };
    const { secret } = await ctx.db.transaction((tx) =>
      createToken(tx, admin, { name: 'bench', scopes: ['risks:read', 'controls:read', 'incidents:read'] }));
    const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
    const targets: [string, Compiled][] = [
      ['risks', riskListQueries(ctx.db, admin, { pageSize: 200 })],
      ['controls', listQueries(ctx.db, controlKind, admin, { pageSize: 200 })],
      ['incidents', listQueries(ctx.db, incidentKind, admin, { pageSize: 200 })],
    ];
    for (const [name, queries] of targets) {
      const url = `http://127.0.0.1:${server.server!.port}/api/v1/${name}?pageSize=200`;
      const check = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
      if (check.status !== 200) throw new Error(`${name} list answered ${check.status}: ${await check.text()}`);
      const path = `GET /api/v1/${name}?pageSize=200`;
      // The floor runs whatever total query the API runs: the delta counts for these unfiltered level-all lists.
      figures[`  ${name} total query`] = queries.total.toSQL().sql.includes('row_counts') ? 'sum of row_counts deltas' : 'count(*)';
      // One client measures latency without queueing; eight measure throughput (and latency under load).
      for (const clients of [1, CONCURRENCY]) {
        await load(url, secret, clients, 100);
        // Rounds of floor-then-API, so both see the same machine: this 2-core machine is shared, and a busy spell
        // during one round should move one round, not the figure. Reported: the median round.
        const rounds: { floor: number; api: number }[] = [];
        const latencies: number[] = [];
        let seconds = 0;
        let failures = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const floor = await timeFloor(ctx.database.raw, queries, clients);
          const run = await load(url, secret, clients, (clients === 1 ? REQUESTS / 2 : REQUESTS) / ROUNDS);
          rounds.push({ floor, api: summarise(run.latencies).p50 });
          latencies.push(...run.latencies);
          seconds += run.seconds;
          failures += run.failures;
        }
        const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
        const api = median(rounds.map((r) => r.api));
        const floor = median(rounds.map((r) => r.floor));
        const ratio = median(rounds.map((r) => r.api / r.floor));
        const rate = (latencies.length / seconds).toFixed(0);
        figures[`${path}, ${clients} client(s)`] =
          `p50 ${ms(api)} (rounds ${rounds.map((r) => r.api.toFixed(2)).join(' / ')}), p99 ${ms(summarise(latencies).p99)}, ${rate} requests/s${failures ? `, ${failures} FAILED` : ''}`;
        figures[`  ${name} floor: same SQL via driver, ${clients} client(s)`] =
          `p50 ${ms(floor)}; ratio ${ratio.toFixed(2)}x (target <= 3x${name === 'risks' && clients === 1 ? ', p50 < 5 ms' : ''})`;
      }
    }
    await server.stop();
    return figures;
  } finally {
    await ctx.dispose();
  }
}

type Raw = (text: string, params?: unknown[], options?: { prepare?: boolean }) => Promise<unknown[]>;

async function timeFloor(raw: Raw, queries: Compiled, clients: number): Promise<number> {
  const page = queries.page.toSQL();
  const total = queries.total.toSQL();
  const samples: number[] = [];
  const client = async (runs: number) => {
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await Promise.all([raw(page.sql, page.params, { prepare: true }), raw(total.sql, total.params, { prepare: true })]);
      if (i >= 20) samples.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: clients }, () => client(Math.ceil(600 / clients) + 20)));
  return summarise(samples).p50;
}

async function load(url: string, token: string, clients: number, requests: number) {
  const child = Bun.spawn([process.execPath, 'bench/http-load.ts', url, token, String(clients), String(requests)], { stdout: 'pipe' });
  const output = await new Response(child.stdout).text();
  await child.exited;
  return JSON.parse(output) as { latencies: number[]; seconds: number; failures: number };
}
