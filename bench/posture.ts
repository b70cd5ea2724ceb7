import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { importShippedPackage } from '../src/modules/compliance/shipped';
import { packageScoreAt, packageScoresAt, packageScoresAtQuery } from '../src/modules/compliance/posture';
import { riskBandsAt, riskBandsAtQuery } from '../src/modules/risks/posture';
import { monthEnds } from '../src/platform/dashboard/posture';
import { systemActor, type Actor, type Level, type Permission } from '../src/platform/permissions/permissions';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const HISTORY = 1_000_000;
const RISKS = 100_000;
const RUNS = 30;
const DAY = '2026-03-31';

/**
 * Posture at a past date with 1,000,000 History entries: a shipped package (imported on 2025-01-01) whose analyses
 * change status 300,000 times (a quarter of the changes touch only notes) from 2025 to late 2026, 100,000 risks each
 * created and changed once, and the rest entries of other records. Each figure next to its floor: the same statement
 * through the driver.
 */
export async function benchPosture(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('posture');
  const figures: Record<string, string> = {};
  try {
    const { id: packageId } = await ctx.db.transaction((tx) => importShippedPackage(tx, { ...systemActor('loader'), writtenAt: new Date('2025-01-01T00:00:00Z') }, 'nist-800-53-rev5-moderate'));
    const [{ n: analyses }] = await ctx.database.raw<{ n: number }>(`select count(*)::int as n from compliance_analyses where package_id = $1`, [packageId]);
    const perAnalysis = Math.ceil(300_000 / analyses);
    const seeds: Record<string, string> = {
      [`${(analyses * perAnalysis).toLocaleString('en')} changes of the package's ${analyses} analyses`]: `
        insert into history (at, record_type, record_id, action, via, changes)
        select timestamptz '2025-01-02' + random() * interval '690 days', 'complianceAnalysis', a.id::text, 'update', 'system',
          case when g % 4 = 0 then jsonb_build_object('notes', jsonb_build_object('before', '', 'after', 'note ' || g))
          else jsonb_build_object('status', jsonb_build_object('before', 'not_assessed',
            'after', (array['compliant','partially_compliant','non_compliant','not_applicable','not_assessed'])[1 + (g + a.n) % 5])) end
        from (select id, row_number() over (order by id) as n from compliance_analyses where package_id = '${packageId}') a, generate_series(1, ${perAnalysis}) g`,
      [`${RISKS.toLocaleString('en')} risks, created and changed once each`]: `
        with r as (
          insert into risks (title, description, classification_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, status, review_frequency_months)
          select 'Risk ' || g, '', (select id from risk_classifications order by name limit 1), 1 + g % 5, 1 + (g / 5) % 5,
            1 + (g % 5) / 2, 1 + ((g / 5) % 5) / 2, (array['open','closed'])[1 + g % 2], 12
          from generate_series(1, ${RISKS}) g returning id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, status
        ), t as (select r.*, timestamptz '2025-01-02' + random() * interval '400 days' as born from r)
        insert into history (at, record_type, record_id, action, via, changes)
        select born, 'risk', id::text, 'create', 'system', jsonb_build_object(
            'status', jsonb_build_object('before', null, 'after', 'open'),
            'inherentLikelihood', jsonb_build_object('before', null, 'after', inherent_likelihood),
            'inherentImpact', jsonb_build_object('before', null, 'after', inherent_impact),
            'title', jsonb_build_object('before', null, 'after', 'Risk'))
        from t
        union all
        select born + interval '200 days', 'risk', id::text, 'update', 'system', jsonb_build_object(
            'status', jsonb_build_object('before', 'open', 'after', status),
            'residualLikelihood', jsonb_build_object('before', null, 'after', residual_likelihood),
            'residualImpact', jsonb_build_object('before', null, 'after', residual_impact))
        from t`,
      'other records\' entries, to 1,000,000': `
        insert into history (at, record_type, record_id, action, via, changes)
        select timestamptz '2025-01-02' + random() * interval '690 days', 'control', gen_random_uuid()::text, 'update', 'system',
          jsonb_build_object('name', jsonb_build_object('before', 'a', 'after', 'b'))
        from generate_series(1, ${HISTORY} - (select count(*) from history)) g`,
    };
    for (const [what, seed] of Object.entries(seeds)) figures[`seeded: ${what}`] = ms((await timeIt(() => ctx.database.raw(seed))).ms);
    await ctx.database.raw('vacuum analyze');
    await ctx.database.raw('checkpoint');
    const [{ n: total }] = await ctx.database.raw<{ n: number }>('select count(*)::int as n from history');
    figures['History entries'] = total.toLocaleString('en');

    const admin: Actor = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'screen');
    const dialect = new PgDialect();
    const driver = (statement: SQL) => {
      const q = dialect.sqlToQuery(statement);
      return () => ctx.database.raw(q.sql, q.params, { prepare: true });
    };
    const measure = async (label: string, work: () => Promise<unknown>, floor: () => Promise<unknown>, target?: string, runs = RUNS) => {
      for (let i = 0; i < Math.min(3, runs); i++) { await work(); await floor(); }
      const w: number[] = [];
      const f: number[] = [];
      for (let i = 0; i < runs; i++) { f.push((await timeIt(floor)).ms); w.push((await timeIt(work)).ms); }
      const p = summarise(w);
      const fl = summarise(f);
      figures[label] = `p50 ${ms(p.p50)}, p99 ${ms(p.p99)}${target ? ` (target ${target})` : ''}`;
      figures[`  floor of ${label}`] = `p50 ${ms(fl.p50)} (the statement via the driver); ratio ${(p.p50 / fl.p50).toFixed(2)}x`;
    };
    const days = monthEnds(DAY);
    await measure(`one package's score at ${DAY}`, () => packageScoreAt(ctx.db, admin, packageId, DAY), driver(packageScoresAtQuery(admin, [packageId], [DAY], true)), 'p50 < 200 ms');
    await measure('its twelve month ends (the trend)', () => packageScoresAt(ctx.db, admin, [packageId], days), driver(packageScoresAtQuery(admin, [packageId], days, true)));
    for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(48)} ${v}`);
    // Read from the spans and day sums the database derives from History as it is written (migration 0050).
    const [{ spans, sums }] = await ctx.database.raw<{ spans: number; sums: number }>(
      'select (select count(*) from risk_open_spans)::int as spans, (select count(*) from risk_open_day_deltas)::int as sums');
    figures['  kept from History'] = `${spans.toLocaleString('en')} open spans, ${sums.toLocaleString('en')} day sums`;
    await measure(`open risks per band at ${DAY} (100,000 risks)`, () => riskBandsAt(ctx.db, admin, [DAY]), driver(riskBandsAtQuery(admin, [DAY])), 'p50 < 200 ms');
    await measure('their twelve month ends (the trend)', () => riskBandsAt(ctx.db, admin, days), driver(riskBandsAtQuery(admin, days)), 'p50 < 200 ms');
    // A reader at level own reads the spans of the risks they own: here one owner holding a tenth of them.
    await ctx.database.raw(`update risks set owner_id = $1 where id in (select id from risks order by id limit ${RISKS / 10})`, [admin.userId]);
    const own: Actor = { ...admin, rights: new Map<Permission, Level>([['risks:read', 'own']]) };
    await measure('the trend for a reader at level own (10,000 risks theirs)', () => riskBandsAt(ctx.db, own, days), driver(riskBandsAtQuery(own, days)), 'p50 < 200 ms', 10);
    const plan = dialect.sqlToQuery(packageScoresAtQuery(admin, [packageId], [DAY], true));
    const explained = await ctx.database.raw<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${plan.sql}`, plan.params);
    figures['  its plan'] = explained.map((r) => r['QUERY PLAN']).filter((l) => /Index|Execution/.test(l)).map((l) => l.trim()).slice(0, 3).join(' | ');
    return figures;
  } finally {
    await ctx.dispose();
  }
}
