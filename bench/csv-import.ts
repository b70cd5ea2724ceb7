import postgres from 'postgres';
import { Writable } from 'node:stream';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { riskImport } from '../src/modules/risks/import';
import { runCsvImport } from '../src/platform/csv/engine';
import { bootBenchService, ms, READ_AUDIT_HEAD, timeIt, timedInDatabase } from './lib';

const ROWS = 10_000;
const LEVELS = ['Rare', 'Unlikely', 'Possible', 'Likely', 'Almost certain'];

function riskCsv(rows: number, owner: string): string {
  const lines = ['title,description,classification,inherent_likelihood,inherent_impact,owner,review_frequency_months,status'];
  for (let i = 0; i < rows; i++) {
    lines.push(`Imported risk ${i},"Row ${i}, with a comma",Operational,${LEVELS[i % 5]},${(i % 5) + 1},${owner},${(i % 120) + 1},${i % 3 === 0 ? 'Closed' : 'open'}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The least the database itself needs for an import's writes: the file's risks, Audit Log entries (well-formed fake
 * hashes) and History rows prepared in SQL beforehand, then inserted into the real tables (their keys, indexes and
 * triggers) with one INSERT ... SELECT per table, timed inside the database, and rolled back. A check writes the
 * risks; an apply writes the risks, their Audit Log entries and their History.
 */
async function setBasedBound(database: Awaited<ReturnType<typeof bootBenchService>>['database'], ownerEmail: string) {
  const prepare = `
    create temp table bench_risks on commit drop as
      select gen_random_uuid() as id, 'Imported risk ' || i as title, 'Row ' || i || ', with a comma' as description,
        class_of as class_id, i % 5 + 1 as level, owner_of as owner, i % 120 + 1 as review, case when i % 3 = 0 then 'closed' else 'open' end as status, i
      from generate_series(1, ${ROWS}) as i;
    create temp table bench_audit on commit drop as
      select head_seq + i as seq, now()::timestamptz(3) as at, owner, id::text as record_id,
        jsonb_build_object('changesSha256', encode(sha256(id::text::bytea), 'hex'), 'source', 'CSV import of bench.csv') as details,
        case when i = 1 then head_hash else encode(sha256(('bench' || (i - 1))::bytea), 'hex') end as prev_hash,
        encode(sha256(('bench' || i)::bytea), 'hex') as hash
      from bench_risks;
    create temp table bench_history on commit drop as
      select id::text as record_id, owner, head_seq + i as audit_seq,
        jsonb_build_object('title', jsonb_build_object('before', null, 'after', title),
          'description', jsonb_build_object('before', null, 'after', description),
          'classificationId', jsonb_build_object('before', null, 'after', class_id),
          'inherentLikelihood', jsonb_build_object('before', null, 'after', level),
          'inherentImpact', jsonb_build_object('before', null, 'after', level),
          'ownerId', jsonb_build_object('before', null, 'after', owner),
          'reviewFrequencyMonths', jsonb_build_object('before', null, 'after', review),
          'status', jsonb_build_object('before', null, 'after', status),
          'createdBy', jsonb_build_object('before', null, 'after', owner)) as changes
      from bench_risks`;
  const risks = `insert into risks (id, title, description, classification_id, inherent_likelihood, inherent_impact, owner_id,
        review_frequency_months, status, created_by)
      select id, title, description, class_id, level, level, owner, review, status, owner from bench_risks`;
  const trail = `
    insert into audit_log (seq, at, actor_kind, actor_user_id, via, module, action, record_type, record_id, details, prev_hash, hash)
      select seq, at, 'user', owner, 'import', 'risks', 'create', 'risk', record_id, details, prev_hash, hash from bench_audit;
    insert into history (record_type, record_id, action, actor_user_id, via, source, changes, audit_seq)
      select 'risk', record_id, 'create', owner, 'import', 'CSV import of bench.csv', changes, audit_seq from bench_history`;
  const block = (body: string) => ({
    declare: 'owner_of uuid; class_of uuid; head_seq bigint; head_hash text;',
    setup: `select id into owner_of from users where lower(email) = lower('${ownerEmail.replaceAll("'", "''")}');
      select id into class_of from risk_classifications order by name limit 1;
      ${READ_AUDIT_HEAD};
      ${prepare}`,
    body,
  });
  const best = (body: string) => timedInDatabase(database, block(body));
  return { risks: await best(risks), apply: await best(`${risks}; ${trail}`) };
}

/**
 * Check + apply of a 10,000-row risk CSV (every row through the service, Audit Log + History for every record) next to a
 * floor measured in the same run: COPY of the same rows into a plain table through postgres.js on PostgreSQL, a
 * multi-row INSERT on PGlite (which has no COPY through the driver). Then the live heap while checking 10,000 and 50,000 rows.
 */
export async function benchCsvImport(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('csv');
  try {
    const user = await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL);
    if (!user) throw new Error('no administrator');
    const actor = userActor(user, 'screen');
    const csv = riskCsv(ROWS, ctx.config.ADMIN_EMAIL);
    const bytes = new TextEncoder().encode(csv);
    const rows = csv.trim().split('\r\n').slice(1);

    await ctx.database.raw('create table bench_csv_floor (title text, description text, classification text, likelihood text, impact text, owner text, review int, status text)');
    let floorLabel: string;
    let floor: { ms: number };
    if (ctx.database.kind === 'postgres' && ctx.config.DATABASE_URL) {
      const client = postgres(ctx.config.DATABASE_URL, { max: 1, onnotice: () => {} });
      floorLabel = `floor: COPY ${ROWS.toLocaleString('en')} rows (postgres.js)`;
      floor = await timeIt(async () => {
        const stream = (await client`copy bench_csv_floor from stdin with (format csv)`.writable()) as Writable;
        await new Promise<void>((resolve, reject) => {
          stream.on('error', reject);
          stream.on('finish', resolve);
          stream.end(rows.join('\n'));
        });
      });
      await client.end();
    } else {
      floorLabel = `floor: multi-row INSERT of ${ROWS.toLocaleString('en')} rows (PGlite: no COPY)`;
      floor = await timeIt(async () => {
        for (let start = 0; start < ROWS; start += 1000) {
          const part = rows.slice(start, start + 1000).map((_, i) => {
            const n = start + i;
            return `('Imported risk ${n}', 'Row ${n}, with a comma', 'Operational', '${LEVELS[n % 5]}', '${(n % 5) + 1}', 'owner', ${(n % 120) + 1}, 'open')`;
          });
          await ctx.database.raw(`insert into bench_csv_floor values ${part.join(',')}`);
        }
      });
    }

    const bound = await setBasedBound(ctx.database, ctx.config.ADMIN_EMAIL);

    // Warm-up, as for the HTTP benchmarks: a server that has checked and imported once runs optimised code (a check no
    // longer writes the Audit Log and History, so only an apply warms that path); the figures are steady state.
    const warmUp = { name: 'warm-up.csv', bytes: new TextEncoder().encode(riskCsv(2_000, ctx.config.ADMIN_EMAIL)) };
    await runCsvImport(ctx.db, riskImport, actor, warmUp, 'check');
    await runCsvImport(ctx.db, riskImport, actor, warmUp, 'apply');
    const check = await timeIt(() => runCsvImport(ctx.db, riskImport, actor, { name: 'bench.csv', bytes }, 'check'));
    const apply = await timeIt(() => runCsvImport(ctx.db, riskImport, actor, { name: 'bench.csv', bytes }, 'apply'));
    if (apply.result.outcome !== 'imported') throw new Error(`apply refused: ${JSON.stringify(apply.result.rows.find((r) => r.outcome === 'error'))}`);
    const [{ n: history }] = await ctx.database.raw<{ n: number }>("select count(*)::int as n from history where source = 'CSV import of bench.csv'");
    const total = check.ms + apply.ms;

    // Memory: the live heap (after a full collection, so garbage is not counted) after each chunk while checking 10,000 and
    // 50,000 rows. Flat means the larger file costs only its own bytes and its result list more, not its rows' objects.
    const live = async (rowCount: number) => {
      const file = new TextEncoder().encode(riskCsv(rowCount, ctx.config.ADMIN_EMAIL));
      Bun.gc(true);
      const baseline = process.memoryUsage().heapUsed;
      let peak = 0;
      const sample = () => {
        Bun.gc(true);
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      };
      // Sampled after every chunk (the engine's progress callback), where the most is alive.
      const run = await timeIt(() => runCsvImport(ctx.db, riskImport, actor, { name: 'big.csv', bytes: file }, 'check', { onProgress: sample }));
      return { ms: run.ms, peakMb: peak / 1024 / 1024, fileMb: file.byteLength / 1024 / 1024 };
    };
    // In-memory PGlite keeps the database itself in this heap, so only PostgreSQL shows the import's own memory.
    const memory = ctx.database.kind === 'postgres' ? { small: await live(10_000), big: await live(50_000) } : null;

    return {
      [`check ${ROWS.toLocaleString('en')}-row risk CSV`]: ms(check.ms),
      [`apply ${ROWS.toLocaleString('en')}-row risk CSV (${history.toLocaleString('en')} History + audit entries)`]: ms(apply.ms),
      'check + apply': `${ms(total)} (target < 3 s; ${(total / floor.ms).toFixed(1)}x the floor, target <= 10x on PostgreSQL)`,
      [floorLabel]: ms(floor.ms),
      [`bound: the same ${ROWS.toLocaleString('en')} risks INSERTed set-based in SQL (no validation, no JavaScript)`]:
        `${ms(bound.risks)} (${(bound.risks / floor.ms).toFixed(1)}x the floor)`,
      '  ... with an Audit Log and a History row each (the writes of an apply)':
        `${ms(bound.apply)} (${(bound.apply / floor.ms).toFixed(1)}x the floor; check + apply cannot go below ${ms(bound.risks + bound.apply)}, ${((bound.risks + bound.apply) / floor.ms).toFixed(1)}x)`,
      ...(memory ? {
        'check 50,000-row risk CSV (collecting garbage after each chunk)': ms(memory.big.ms),
        'live JS heap peak, 10,000-row check': `${memory.small.peakMb.toFixed(1)} MB above the start (${memory.small.fileMb.toFixed(1)} MB file)`,
        'live JS heap peak, 50,000-row check':
          `${memory.big.peakMb.toFixed(1)} MB above the start (${memory.big.fileMb.toFixed(1)} MB file; the result list grows by one small entry per row)`,
      } : { 'live JS heap': 'measured on PostgreSQL only (in-memory PGlite keeps the database in the same heap)' }),
    };
  } finally {
    await ctx.dispose();
  }
}
