import { createApp } from '../src/app';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { PgDialect } from 'drizzle-orm/pg-core';
import { registerStatement } from '../src/modules/dataPrivacy/register';
import { sessionCookieName } from '../src/platform/http/screen-auth';
import { signIn } from '../src/platform/http/sessions';
import type { Actor } from '../src/platform/permissions/permissions';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const ACTIVITIES = 5_000;
const ASSETS = 1_000;
const VENDORS = 300;
const CONTROLS = 500;
const RUNS = 15;

const OWNER = '(select id from users order by created_at limit 1)';
/** Set-based fixture: each activity links 5 assets, 3 vendors and 2 controls, chosen by arithmetic so every one is used. */
const SEEDS: Record<string, string> = {
  [`${ASSETS.toLocaleString('en')} assets`]: `insert into assets (name, owner_id) select 'System ' || g, ${OWNER} from generate_series(1, ${ASSETS}) g`,
  [`${VENDORS} third parties`]: `insert into third_parties (name, owner_id) select 'Processor ' || g, ${OWNER} from generate_series(1, ${VENDORS}) g`,
  [`${CONTROLS} controls`]: `insert into controls (name, description, owner_id) select 'Measure ' || g, 'Encryption, access control', ${OWNER} from generate_series(1, ${CONTROLS}) g`,
  [`${ACTIVITIES.toLocaleString('en')} processing activities, 5 assets, 3 vendors and 2 controls each`]: `
    with a as (select array_agg(id order by name, id) as ids from assets), v as (select array_agg(id order by name, id) as ids from third_parties),
      c as (select array_agg(id order by name, id) as ids from controls)
    insert into processing_activities (name, role, status, purposes, legal_basis, special_category_condition, data_subject_categories,
      personal_data_categories, recipients, retention, system_asset_ids, processor_third_party_ids, control_ids, joint_controllers, security_measures, owner_id)
    select 'Processing ' || lpad(g::text, 5, '0'), (array['controller','processor'])[1 + g % 2], (array['active','active','draft','retired'])[1 + g % 4],
      'Purpose of processing ' || g, (array['consent','contract','legal_obligation','legitimate_interests'])[1 + g % 4],
      case when g % 3 = 0 then 'employment_and_social_security' end, array['employees','customers'],
      case when g % 3 = 0 then array['identification','contact_details','health_data'] else array['identification','contact_details'] end,
      'Tax authority; pension fund', '10 years', array(select a.ids[1 + (g * 5 + k) % ${ASSETS}] from generate_series(0, 4) k),
      array(select v.ids[1 + (g * 3 + k) % ${VENDORS}] from generate_series(0, 2) k),
      array(select c.ids[1 + (g * 2 + k) % ${CONTROLS}] from generate_series(0, 1) k), '', 'Encryption at rest; access reviews', ${OWNER}
    from generate_series(1, ${ACTIVITIES}) g, a, v, c`,
};

const memoryMb = () => process.memoryUsage().rss / 1024 / 1024;

/**
 * The Article 30 register with 5,000 processing activities, each linked to 5 assets, 3 vendors and 2 controls, on PostgreSQL: the
 * screen `/data-privacy/register` over HTTP (p50) next to its one statement through the driver in the same run (the
 * floor), and the CSV download streamed with the service's RSS before, at its peak and after.
 */
export async function benchPrivacy(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('privacy');
  const figures: Record<string, string> = {};
  const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
  try {
    for (const [what, seed] of Object.entries(SEEDS)) figures[`seeded: ${what}`] = ms((await timeIt(() => ctx.database.raw(seed))).ms);
    await ctx.database.raw('vacuum analyze');
    const admin: Actor = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'screen');
    const signedIn = await signIn(ctx.db, ctx.config.ADMIN_EMAIL, 'benchmark password', '', { sessionHours: 1 });
    const headers = { cookie: `${sessionCookieName(ctx.config)}=${signedIn.secret}` };
    const base = `http://127.0.0.1:${server.server!.port}`;
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      return res;
    };
    const page = async () => (await get('/data-privacy/register')).text();
    // The floor: the page's one statement through the driver.
    const statement = new PgDialect().sqlToQuery(registerStatement(admin));
    const floor = () => ctx.database.raw(statement.sql, statement.params, { prepare: true });

    const html = await page();
    const [{ listed }] = await ctx.database.raw<{ listed: number }>(`select count(*)::int as listed from processing_activities where status <> 'retired'`);
    figures['activities in the register (retired left out)'] = `${listed.toLocaleString('en')}; page ${(html.length / 1024 / 1024).toFixed(1)} MiB`;
    for (let i = 0; i < 3; i++) { await page(); await floor(); }
    const pageTimes: number[] = [];
    const floorTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      floorTimes.push((await timeIt(floor)).ms);
      pageTimes.push((await timeIt(page)).ms);
    }
    const p = summarise(pageTimes);
    const f = summarise(floorTimes);
    figures['GET /data-privacy/register over HTTP'] = `p50 ${ms(p.p50)}, p99 ${ms(p.p99)} (target p50 < 300 ms)`;
    figures['  floor: its statement via the driver'] = `p50 ${ms(f.p50)}; ratio ${(p.p50 / f.p50).toFixed(2)}x (target <= 2x)`;

    // The CSV, streamed: read chunk by chunk (never held whole), the service's RSS sampled while it runs.
    Bun.gc(true);
    const before = memoryMb();
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, memoryMb()); }, 10);
    const csv = await timeIt(async () => {
      const res = await get('/data-privacy/register.csv');
      let bytes = 0;
      let lines = 0;
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
        for (const byte of value) if (byte === 10) lines++;
      }
      return { bytes, lines };
    });
    clearInterval(sampler);
    Bun.gc(true);
    const after = memoryMb();
    figures['GET /data-privacy/register.csv, streamed'] = `${ms(csv.ms)}, ${(csv.result.bytes / 1024 / 1024).toFixed(1)} MiB, ${(csv.result.lines - 1).toLocaleString('en')} rows`;
    figures['  RSS before / peak / after'] = `${before.toFixed(0)} / ${peak.toFixed(0)} / ${after.toFixed(0)} MB (peak +${(peak - before).toFixed(0)} MB; the page's HTML alone is ${(html.length / 1024 / 1024).toFixed(1)} MiB)`;
    return figures;
  } finally {
    await server.stop();
    await ctx.dispose();
  }
}
