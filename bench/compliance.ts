import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createApp } from '../src/app';
import { readOscalText } from '../src/modules/compliance/oscal';
import { createToken } from '../src/modules/apiTokens/service';
import type { PackageInput } from '../src/modules/compliance/schema';
import { importShippedPackage } from '../src/modules/compliance/shipped';
import { linkRecords, updateAnalysis } from '../src/modules/compliance/analyses-service';
import { packageTreeView, rememberAllHeadings, treeItemsQuery } from '../src/modules/compliance/tree-service';
import { ANALYSIS_STATUSES, MAPPING_KIND_NAMES } from '../src/modules/compliance/schema';
import { controlKind } from '../src/modules/controls/service';
import { policyKind } from '../src/modules/policies/service';
import { projectKind } from '../src/modules/projects/service';
import { createRisk } from '../src/modules/risks/service';
import { createRecord } from '../src/platform/records/records';
import { complianceAnalyses, riskClassifications } from '../db/schema';
import { eq } from 'drizzle-orm';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import type { Actor } from '../src/platform/permissions/permissions';
import { sessionCookieName } from '../src/platform/http/screen-auth';
import { signIn } from '../src/platform/http/sessions';
import { bootBenchService, ms, READ_AUDIT_HEAD, summarise, timedInDatabase } from './lib';

const ITEMS = 10_000;
const ROUNDS = 5;

/** A framework of 100 headings with 99 items each; every seventh item is additional, the rest requirements. */
function framework(round: number): PackageInput {
  return {
    name: `Benchmark framework ${round}`,
    standard: 'Benchmark',
    version: String(round),
    description: 'Generated for bench/compliance.ts',
    items: Array.from({ length: ITEMS }, (_, i) => {
      const heading = i - (i % 100);
      return {
        code: `B-${String(i).padStart(5, '0')}`,
        name: `Requirement ${i}: ${'the organization shall document, approve and review the control '.repeat(3)}`.slice(0, 150),
        description: `Guidance for requirement ${i}. `.repeat(3),
        parentCode: i === heading ? null : `B-${String(heading).padStart(5, '0')}`,
        kind: i === heading ? 'heading' : i % 7 === 0 ? 'additional' : 'requirement',
      };
    }),
  };
}

/**
 * The least the database itself needs for the same import: the 10,000 items of `framework` (same codes, names,
 * descriptions, kinds), one analysis per requirement and additional item, and for each of them an Audit Log entry
 * (well-formed fake hashes) and a History entry with the same changes, prepared in SQL beforehand and then inserted
 * into the real tables (keys, indexes, triggers) with one INSERT ... SELECT per table, timed inside the database.
 */
async function setBasedBound(database: Awaited<ReturnType<typeof bootBenchService>>['database'], ownerEmail: string): Promise<number> {
  const change = (value: string) => `jsonb_build_object('before', null, 'after', ${value})`;
  const setup = `
    select id into owner_of from users where lower(email) = lower('${ownerEmail.replaceAll("'", "''")}');
    ${READ_AUDIT_HEAD};
    insert into compliance_packages (name, owner_id, created_by) values ('Set-based bound', owner_of, owner_of) returning id into package_of;
    create temp table bench_items on commit drop as
      select gen_random_uuid() as id, i as position, 'B-' || lpad(i::text, 5, '0') as code,
        left('Requirement ' || i || ': ' || repeat('the organization shall document, approve and review the control ', 3), 150) as name,
        repeat('Guidance for requirement ' || i || '. ', 3) as description,
        case when i % 100 = 0 then null else 'B-' || lpad((i - i % 100)::text, 5, '0') end as parent_code,
        case when i % 100 = 0 then 'heading' when i % 7 = 0 then 'additional' else 'requirement' end as kind
      from generate_series(0, ${ITEMS - 1}) as i;
    create temp table bench_analyses on commit drop as
      select gen_random_uuid() as id, id as item_id from bench_items where kind <> 'heading';
    create temp table bench_trail on commit drop as
      select head_seq + row_number() over () as seq, record_type, record_id, changes from (
        select 'complianceItem' as record_type, id::text as record_id, jsonb_build_object(
          'packageId', ${change('package_of')}, 'position', ${change('position')}, 'code', ${change('code')}, 'name', ${change('name')},
          'description', ${change('description')}, 'parentCode', ${change('parent_code')}, 'kind', ${change('kind')}) as changes
        from bench_items
        union all
        select 'complianceAnalysis', id::text, jsonb_build_object(
          'packageId', ${change('package_of')}, 'itemId', ${change('item_id')}, 'status', ${change("'not_assessed'")}, 'notes', ${change("''")},
          'assessorId', ${change('null')}, 'assessedAt', ${change('null')}, 'ownerId', ${change('owner_of')}, 'ownerGroupId', ${change('null')})
        from bench_analyses) as records;
    create temp table bench_audit on commit drop as
      select seq, now()::timestamptz(3) as at, record_type, record_id,
        jsonb_build_object('changesSha256', encode(sha256(record_id::bytea), 'hex')) as details,
        case when seq = head_seq + 1 then head_hash else encode(sha256(('bench' || (seq - 1))::bytea), 'hex') end as prev_hash,
        encode(sha256(('bench' || seq)::bytea), 'hex') as hash
      from bench_trail`;
  const body = `
    insert into compliance_items (id, package_id, position, code, name, description, parent_code, kind)
      select id, package_of, position, code, name, description, parent_code, kind from bench_items;
    insert into compliance_analyses (id, package_id, item_id, owner_id) select id, package_of, item_id, owner_of from bench_analyses;
    insert into audit_log (seq, at, actor_kind, actor_user_id, via, module, action, record_type, record_id, details, prev_hash, hash)
      select seq, at, 'user', owner_of, 'api', 'compliance', 'create', record_type, record_id, details, prev_hash, hash from bench_audit;
    insert into history (record_type, record_id, action, actor_user_id, via, changes, audit_seq)
      select record_type, record_id, 'create', owner_of, 'api', changes, seq from bench_trail`;
  return timedInDatabase(database, { declare: 'owner_of uuid; package_of uuid; head_seq bigint; head_hash text;', setup, body });
}

/**
 * POST /api/v1/compliance/packages with 10,000 items over loopback HTTP (parse, validation, items, analyses, and an Audit
 * Log and History entry for each) next to the bound measured in the same run: the same rows inserted set-based in SQL
 * (setBasedBound). Target: under 3 s and within 2x of the bound.
 */
export async function benchCompliance(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('compliance');
  try {
    const admin = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'api');
    const { secret } = await ctx.db.transaction((tx) => createToken(tx, admin, { name: 'bench', scopes: ['compliance:create'] }));
    const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: 64 * 1024 * 1024 });
    const url = `http://127.0.0.1:${server.server!.port}/api/v1/compliance/packages`;
    const posts: number[] = [];
    let bodyBytes = 0;
    let trail = 0;
    let oscal: Record<string, string> = {};
    try {
      // One round first to warm the code up, as for the other HTTP benchmarks; the figures are steady state.
      for (let round = 0; round <= ROUNDS; round++) {
        const body = JSON.stringify(framework(round));
        bodyBytes = body.length;
        const start = performance.now();
        const res = await fetch(url, { method: 'POST', body, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } });
        const text = await res.text();
        if (round > 0) posts.push(performance.now() - start);
        if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${text.slice(0, 500)}`);
        const { id } = (JSON.parse(text) as { data: { id: string } }).data;
        [{ n: trail }] = await ctx.database.raw<{ n: number }>(`select count(*)::int as n from history where record_id in (
          select id::text from compliance_items where package_id = $1 union all select id::text from compliance_analyses where package_id = $1)`, [id]);
      }
      oscal = await benchOscalImport(url, secret);
    } finally {
      await server.stop(true);
    }
    const bound = await setBasedBound(ctx.database, ctx.config.ADMIN_EMAIL);
    const post = summarise(posts);
    const ratio = post.p50 / bound;
    const verdict = post.p50 < 3000 && ratio <= 2 ? 'ok' : 'OVER TARGET';
    return {
      [`POST 10,000-item package (${(bodyBytes / 1e6).toFixed(1)} MB), p50 of ${ROUNDS}`]: `${ms(post.p50)} (items, analyses, ${trail.toLocaleString('en')} History + Audit Log entries)`,
      'bound: the same rows set-based in SQL (best of 3)': ms(bound),
      'ratio to the bound (target: < 3 s and within 2x)': `${ratio.toFixed(2)}x (${verdict})`,
      ...oscal,
      ...(await benchTreePage(ctx, admin)),
    };
  } finally {
    await ctx.dispose();
  }
}

/**
 * The NIST tree page alone (`bun run bench 'NIST tree'`): the same measure as the package import suite's last figures,
 * without its minutes of 10,000-item imports first, so it can be repeated when the machine is quiet.
 */
export async function benchNistTree(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('compliancetree');
  try {
    const admin = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'api');
    return await benchTreePage(ctx, admin);
  } finally {
    await ctx.dispose();
  }
}

/**
 * The NIST SP 800-53 moderate baseline posted as its OSCAL catalog (1.8 MB: parse, conversion, then the same import)
 * next to the same package posted in the service's own JSON, alternating, in the same run. Target: within 1.5x.
 */
async function benchOscalImport(url: string, secret: string): Promise<Record<string, string>> {
  const oscal = gunzipSync(readFileSync(new URL('../tests/fixtures/oscal/NIST_SP-800-53_rev5_MODERATE-baseline-resolved-profile_catalog-min.json.gz', import.meta.url))).toString('utf8');
  const own = JSON.stringify(readOscalText(oscal).input);
  const post = async (body: string, contentType: string) => {
    const start = performance.now();
    const res = await fetch(url, { method: 'POST', body, headers: { authorization: `Bearer ${secret}`, 'content-type': contentType } });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST (${contentType}) answered ${res.status}: ${text.slice(0, 500)}`);
    return performance.now() - start;
  };
  const oscalTimes: number[] = [];
  const ownTimes: number[] = [];
  const rounds = 7;
  for (let round = 0; round <= rounds; round++) {
    const [a, b] = [await post(oscal, 'application/oscal+json'), await post(own, 'application/json')];
    if (round > 0) {
      oscalTimes.push(a);
      ownTimes.push(b);
    }
  }
  const o = summarise(oscalTimes).p50;
  const j = summarise(ownTimes).p50;
  const ratio = o / j;
  return {
    [`POST NIST moderate as OSCAL (${(oscal.length / 1e6).toFixed(1)} MB), p50 of ${rounds}`]: `${ms(o)} (305 items, 287 analyses)`,
    [`POST the same package as package JSON (${(own.length / 1e6).toFixed(2)} MB)`]: ms(j),
    'OSCAL / package JSON (target: within 1.5x)': `${ratio.toFixed(2)}x (${ratio <= 1.5 ? 'ok' : 'OVER TARGET'})`,
  };
}

/**
 * The NIST moderate package's tree page (287 requirements under 18 headings), every requirement assessed and mapped to a
 * control, a policy, a risk and a project, every heading open, rendered for a signed-in administrator; next to it,
 * measured in the same run, what the page's SQL takes alone: the tree query timed inside the database (EXPLAIN
 * ANALYZE's execution time), and the page's data through the driver (packageTreeView: the package, the tree query and
 * the open headings, plus the progress sums), neither with HTTP nor HTML. Target: the page under 60 ms p50.
 */
async function benchTreePage(ctx: Awaited<ReturnType<typeof bootBenchService>>, admin: Actor): Promise<Record<string, string>> {
  const { id } = await ctx.db.transaction((tx) => importShippedPackage(tx, admin, 'nist-800-53-rev5-moderate'));
  const analyses = await ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
  const statuses = ANALYSIS_STATUSES.filter((s) => s !== 'not_assessed');
  await ctx.db.transaction(async (tx) => {
    for (const [i, a] of analyses.entries()) await updateAnalysis(tx, admin, a.id, { status: statuses[i % statuses.length] });
    const [classification] = await tx.select({ id: riskClassifications.id }).from(riskClassifications).limit(1);
    const records = {
      controls: (await createRecord(tx, controlKind, admin, { name: 'Bench control' })).id,
      policies: (await createRecord(tx, policyKind, admin, { title: 'Bench policy' })).id,
      risks: (await createRisk(tx, admin, { title: 'Bench risk', classificationId: classification.id, inherentLikelihood: 3, inherentImpact: 3 })).id,
      projects: (await createRecord(tx, projectKind, admin, { title: 'Bench project' })).id,
    };
    await linkRecords(tx, admin, analyses.flatMap((a) => MAPPING_KIND_NAMES.map((kind) => ({ analysisId: a.id, kind, id: records[kind] }))));
    await rememberAllHeadings(tx, admin, id, true);
  });
  // The imports above added 60,000 items in moments; give the planner the statistics autovacuum would have gathered.
  await ctx.database.raw('analyze');
  const session = await signIn(ctx.db, ctx.config.ADMIN_EMAIL, 'benchmark password', '127.0.0.1', { sessionHours: 1 });
  const app = createApp(ctx);
  const headers = { cookie: `${sessionCookieName(ctx.config)}=${session.secret}` };
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    const res = await app.handle(new Request(`http://localhost/compliance/packages/${id}`, { headers }));
    const html = await res.text();
    if (res.status !== 200 || !html.includes('AC-2(1)')) throw new Error(`tree page answered ${res.status}`);
    if (i >= 10) samples.push(performance.now() - start);
    bytes = new TextEncoder().encode(html).length;
  }
  const data: number[] = [];
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    await packageTreeView(ctx.db, admin, id);
    if (i >= 10) data.push(performance.now() - start);
  }
  const query = treeItemsQuery(ctx.db, id, '', false).toSQL();
  const inside: number[] = [];
  for (let i = 0; i < 30; i++) {
    const [plan] = await ctx.database.raw<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${query.sql}`, query.params);
    const parsed = (typeof plan['QUERY PLAN'] === 'string' ? JSON.parse(plan['QUERY PLAN']) : plan['QUERY PLAN']) as [{ 'Execution Time': number }];
    if (i >= 5) inside.push(parsed[0]['Execution Time']);
  }
  const render = summarise(samples);
  const verdict = render.p50 < 60 ? 'ok' : 'OVER TARGET';
  return {
    'NIST tree page (287 assessed and mapped, all open), p50 / p99': `${ms(render.p50)} / ${ms(render.p99)}, ${(bytes / 1024).toFixed(1)} KB (target < 60 ms, < 150 KB: ${verdict}${bytes < 150 * 1024 ? '' : ', OVER SIZE'})`,
    '  its data alone (3 queries + progress), p50': ms(summarise(data).p50),
    '  its tree query inside the database, p50': ms(summarise(inside).p50),
  };
}
