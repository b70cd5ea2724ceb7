import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { createApp, type App } from '../../src/app';
import { readConfig } from '../../src/config';
import { boot, type Booted } from '../../src/platform/modules/bootstrap';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { verifyHistorySeals } from '../../src/platform/audit/history-seals';
import { digestStored } from '../../src/platform/storage/storage';
import { brandingOf } from '../../src/platform/branding/branding';
import { loadUserRightsByEmail, userActor } from '../../src/modules/people/rights';
import { createRisk } from '../../src/modules/risks/service';
import { loadDemo } from '../../scripts/demo/load';
import { createTestDatabaseUrl } from '../helpers/db';

/**
 * `bun run db:demo` as a person runs it: its own process on a new database (PostgreSQL with DATABASE_URL, else the
 * embedded database in a DATA_DIR), then a service started on that database reads what it wrote.
 */
const SCRIPT = join(import.meta.dir, '..', '..', 'scripts', 'demo-data.ts');

type Vars = Record<string, string>;

/** A new database (and evidence folder) for one run. */
async function newDatabase(): Promise<Vars> {
  const url = await createTestDatabaseUrl();
  return { DATA_DIR: mkdtempSync(join(tmpdir(), 'grc-demo-')), ...(url ? { DATABASE_URL: url } : {}) };
}

async function runDemo(vars: Vars, args: string[] = []): Promise<{ code: number; out: string; err: string }> {
  const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'error', ...vars };
  if (!vars.DATABASE_URL) delete env.DATABASE_URL;
  delete env.ADMIN_PASSWORD;
  const child = Bun.spawn([process.execPath, SCRIPT, ...args], { env, stdout: 'pipe', stderr: 'pipe' });
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, out, err };
}

const opened: Booted[] = [];
async function open(vars: Vars): Promise<{ ctx: Booted; app: App }> {
  const ctx = await boot(readConfig({ LOG_LEVEL: 'error', REFUSAL_WINDOW_SECONDS: '0', ...vars }));
  opened.push(ctx);
  return { ctx, app: createApp(ctx) };
}
async function close(ctx: Booted) {
  opened.splice(opened.indexOf(ctx), 1);
  await ctx.close();
}
afterAll(async () => {
  for (const ctx of opened.splice(0)) await ctx.close().catch(() => {});
});

/** The people table the command prints: email → password. */
function printedPasswords(out: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of out.matchAll(/^ {2}.+? {2,}(\S+@\S+) +.+? {2,}(\S{20,})$/gm)) found.set(match[1], match[2]);
  return found;
}

async function signIn(app: App, email: string, password: string): Promise<Response> {
  return app.handle(new Request('http://localhost/sign-in', {
    method: 'POST',
    headers: { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password, next: '/risks' }),
  }));
}

const countOf = async (ctx: Booted, query: string): Promise<number> =>
  (await selectRows<{ n: number }>(ctx.db, sql.raw(`select count(*)::int as n from (${query}) q`)))[0].n;

describe('demonstration data loaded into a new database', () => {
  let vars: Vars;
  let run: { code: number; out: string; err: string };
  let ctx: Booted;
  let app: App;

  beforeAll(async () => {
    vars = await newDatabase();
    run = await runDemo(vars, ['--seed', '7']);
    ({ ctx, app } = await open(vars));
  }, 240_000);

  test('the command succeeds and prints each person with a password once, with counts and the time taken', () => {
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const passwords = printedPasswords(run.out);
    expect([...passwords.keys()].sort()).toEqual([
      'admin@example.com', 'avery.lindqvist@demo.example', 'grace.okafor@demo.example', 'mateo.alvarez@demo.example',
      'priya.raman@demo.example', 'tomasz.wojcik@demo.example',
    ]);
    expect(new Set(passwords.values()).size).toBe(passwords.size);
    expect(run.out).toMatch(/^ {2}risks +20$/m);
    expect(run.out).toMatch(/^Time: \d+\.\d s$/m);
    expect(run.out).toContain('never use it for real records');
  });

  test('the printed passwords sign in through the app; the administrator and the others see what their roles give', async () => {
    const passwords = printedPasswords(run.out);
    const admin = await signIn(app, 'avery.lindqvist@demo.example', passwords.get('avery.lindqvist@demo.example')!);
    expect(admin.status).toBe(303);
    expect(admin.headers.get('location')).toBe('/risks');
    const cookie = admin.headers.get('set-cookie')!.split(';')[0];
    const risks = await app.handle(new Request('http://localhost/risks', { headers: { cookie } }));
    expect(risks.status).toBe(200);
    expect(await risks.text()).toContain('R-1 Ransomware encrypts warehouse systems');
    const users = await app.handle(new Request('http://localhost/settings/users', { headers: { cookie } }));
    expect(users.status).toBe(200);

    const auditorSignIn = await signIn(app, 'mateo.alvarez@demo.example', passwords.get('mateo.alvarez@demo.example')!);
    expect(auditorSignIn.status).toBe(303);
    const auditorCookie = auditorSignIn.headers.get('set-cookie')!.split(';')[0];
    expect((await app.handle(new Request('http://localhost/risks', { headers: { cookie: auditorCookie } }))).status).toBe(200);
    // Internal Audit reads every register but holds no Settings rights.
    expect((await app.handle(new Request('http://localhost/settings/users', { headers: { cookie: auditorCookie } }))).status).toBe(403);

    const wrong = await signIn(app, 'priya.raman@demo.example', 'not the printed password');
    expect(wrong.status).toBe(401);
  });

  test('every module holds records, linked as a real register would be', async () => {
    const expectAtLeast = async (what: string, query: string, n: number) => {
      const rows = await countOf(ctx, query);
      expect({ what, enough: rows >= n }).toEqual({ what, enough: true });
    };
    await expectAtLeast('business units under a parent', 'select 1 from business_units where parent_id is not null', 5);
    await expectAtLeast('assets in a business unit', 'select 1 from assets where business_unit_id is not null', 8);
    await expectAtLeast('controls', 'select 1 from controls', 30);
    await expectAtLeast('risks on an asset', 'select 1 from risks where asset_id is not null', 10);
    await expectAtLeast('mitigations linked to controls', `select 1 from treatment_controls tc join risk_treatments t on t.id = tc.treatment_id where t.type = 'mitigate'`, 20);
    await expectAtLeast('published policies with reviews', `select 1 from policies p where p.status = 'published' and exists (select 1 from policy_reviews r where r.policy_id = p.id)`, 6);
    await expectAtLeast('draft policies', `select 1 from policies where status = 'draft'`, 1);
    await expectAtLeast('third parties with contacts', 'select distinct third_party_id from third_party_contacts', 6);
    await expectAtLeast('third parties linked to risks', 'select 1 from third_party_risks', 3);
    await expectAtLeast('sub-processors', 'select 1 from third_party_sub_processors', 1);
    await expectAtLeast('incidents', 'select 1 from incidents', 4);
    await expectAtLeast('a personal-data breach notified twice', 'select 1 from incident_breach_notifications', 2);
    await expectAtLeast('audit findings on controls', 'select 1 from audit_findings where control_id is not null', 3);
    await expectAtLeast('evidence files', 'select 1 from evidence_files', 12);
    await expectAtLeast('evidence linked to controls', `select 1 from evidence_links where record_type = 'control'`, 6);
    await expectAtLeast('vendor reports', `select 1 from evidence where kind = 'vendor_report'`, 1);
    await expectAtLeast('projects', 'select 1 from projects', 4);
    await expectAtLeast('exceptions decided', `select 1 from exceptions where status = 'approved'`, 1);
    await expectAtLeast('exceptions waiting', `select 1 from exceptions where status = 'requested'`, 1);
    await expectAtLeast('account review items decided', 'select 1 from account_review_items where decision is not null', 3);
    await expectAtLeast('account review items pending', 'select 1 from account_review_items where decision is null', 1);
    await expectAtLeast('requirements mapped to controls', 'select 1 from compliance_analysis_controls', 50);
    await expectAtLeast('requirements mapped to policies', 'select 1 from compliance_analysis_policies', 5);
    await expectAtLeast('labels', 'select 1 from labels', 3);
    await expectAtLeast('custom field values', 'select 1 from custom_field_values', 30);
    await expectAtLeast('control tests', 'select 1 from control_tests', 10);
    await expectAtLeast('processing activities on systems and processors', 'select 1 from processing_activities', 3);
    await expectAtLeast('a DPIA signed off', `select 1 from dpias where status = 'signed_off' and signed_off_by_id is not null`, 1);
    await expectAtLeast('an awareness program published', `select 1 from awareness_programs where status = 'published'`, 1);
    await expectAtLeast('awareness results passed', `select 1 from awareness_results where status = 'passed'`, 2);
    await expectAtLeast('awareness results failed', `select 1 from awareness_results where status = 'failed'`, 1);
    await expectAtLeast('awareness results started', `select 1 from awareness_results where status = 'started'`, 1);
    await expectAtLeast('notification rules (off)', 'select 1 from notification_rules where not enabled', 2);
    expect(await countOf(ctx, 'select 1 from notification_rules where enabled')).toBe(0);
    await expectAtLeast('scheduled reports (paused)', 'select 1 from report_schedules where paused', 2);
    expect(await countOf(ctx, 'select 1 from report_schedules where not paused')).toBe(0);
    expect((await brandingOf(ctx.db)).name).toBe('Harbourline Logistics');
  });

  test('both shipped packages are imported with their analyses partly assessed', async () => {
    const rows = await selectRows<{ name: string; assessed: number; open: number }>(ctx.db, sql`
      select p.name, count(*) filter (where a.status <> 'not_assessed')::int as assessed, count(*) filter (where a.status = 'not_assessed')::int as open
        from compliance_packages p join compliance_analyses a on a.package_id = p.id group by p.name order by p.name`);
    expect(rows.map((r) => r.name)).toEqual([expect.stringContaining('GDPR'), expect.stringContaining('800-53')].sort());
    for (const row of rows) {
      expect(row.assessed).toBeGreaterThan(0);
      expect(row.open).toBeGreaterThan(0);
    }
    // The Statement of Applicability has exclusions with their reasons.
    expect(await countOf(ctx, `select 1 from compliance_analyses where not applicable and justification <> ''`)).toBeGreaterThan(0);
    expect(await countOf(ctx, `select 1 from compliance_analyses where not applicable and justification = ''`)).toBe(0);
  });

  test('evidence files are in the storage with the digest their records name', async () => {
    const files = await selectRows<{ storage_key: string; sha256: string; size: number }>(ctx.db, sql`select storage_key, sha256, size from evidence_files`);
    expect(files.length).toBe(12);
    for (const file of files) expect(await digestStored(ctx.storage, file.storage_key)).toEqual({ size: Number(file.size), sha256: file.sha256 });
  });

  test('every write is in the Audit Log, whose chain verifies, and History matches its seals', async () => {
    const result = await verifyAuditLog(ctx.db);
    expect(result.firstBad).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.count).toBeGreaterThan(500);
    const seals = await verifyHistorySeals(ctx.db);
    expect(seals.firstBad).toBeUndefined();
    expect(seals.unsealed).toBe(0);
    // From the loader's first entry on, the Audit Log's times ascend with its sequence, although most of it is written
    // in the past (what the first start wrote, the administrator and reference data, is of today).
    expect(await countOf(ctx, `select 1 from (select at::timestamptz as at, lag(at::timestamptz) over (order by seq) as before from audit_log
      where seq >= (select min(seq) from audit_log where via = 'loader')) a where a.at < a.before`)).toBe(0);
  });

  test('History is spread over the past twelve months, so trends show something', async () => {
    const [span] = await selectRows<{ oldest: number; newest: number; months: number; riskMonths: number; assessedMonths: number }>(ctx.db, sql`
      select extract(epoch from now() - min(at))::int / 86400 as oldest, extract(epoch from now() - max(at))::int / 86400 as newest,
        count(distinct date_trunc('month', at))::int as months,
        count(distinct date_trunc('month', at)) filter (where record_type = 'risk' and action = 'create')::int as "riskMonths",
        count(distinct date_trunc('month', at)) filter (where record_type = 'complianceAnalysis')::int as "assessedMonths"
      from history`);
    expect(span.oldest).toBeGreaterThanOrEqual(360);
    expect(span.oldest).toBeLessThanOrEqual(366);
    expect(span.newest).toBeLessThanOrEqual(1);
    expect(span.months).toBeGreaterThanOrEqual(11);
    expect(span.riskMonths).toBeGreaterThanOrEqual(3);
    expect(span.assessedMonths).toBeGreaterThanOrEqual(5);
    // The past is written by the loader (the system actor may choose the time); the last steps by the people, today.
    expect(await countOf(ctx, `select 1 from history where via = 'loader' and actor_user_id is null and at < now() - interval '5 days'`)).toBeGreaterThan(500);
    expect(await countOf(ctx, `select 1 from history h join users u on u.id = h.actor_user_id where u.email like '%@demo.example' and h.at > now() - interval '1 day'`)).toBeGreaterThan(10);
  });

  test('running it again is refused: the data is already loaded, and nothing is written', async () => {
    const [{ head }] = await selectRows<{ head: number }>(ctx.db, sql`select max(seq)::int as head from audit_log`);
    await close(ctx);
    const again = await runDemo(vars);
    ({ ctx, app } = await open(vars));
    expect(again.code).toBe(1);
    expect(again.err).toContain('Refused: demonstration data is already loaded in this database; nothing was written.');
    expect(again.err).toContain('the only clean path');
    expect(again.out).not.toContain('@demo.example');
    const [{ now }] = await selectRows<{ now: number }>(ctx.db, sql`select max(seq)::int as now from audit_log`);
    expect(now).toBe(head);
  }, 240_000);

  test('the same seed gives the same records', async () => {
    const other = await open(await newDatabase());
    await loadDemo(other.ctx, { seed: 7, size: 'small' });
    const fingerprint = async (c: Booted) => selectRows<{ title: string; status: string }>(c.db, sql`
      select i.code as title, a.status from compliance_analyses a join compliance_items i on i.id = a.item_id
      union all select title, status from risks union all select name, status from controls order by 1, 2`);
    expect(await fingerprint(other.ctx)).toEqual(await fingerprint(ctx));
    await close(other.ctx);
  }, 240_000);
});

describe('a database that already holds records', () => {
  test('is refused with a message saying why and what to do; nothing is written', async () => {
    const vars = await newDatabase();
    let { ctx } = await open(vars);
    const admin = userActor((await loadUserRightsByEmail(ctx.db, 'admin@example.com'))!, 'screen');
    const [{ id: classificationId }] = await selectRows<{ id: string }>(ctx.db, sql`select id from risk_classifications limit 1`);
    await ctx.db.transaction((tx) => createRisk(tx, admin, { title: 'A real risk', classificationId, inherentLikelihood: 2, inherentImpact: 2 }));
    const [{ head }] = await selectRows<{ head: number }>(ctx.db, sql`select max(seq)::int as head from audit_log`);
    await close(ctx);

    const run = await runDemo(vars, ['--size', 'large']);
    expect(run.code).toBe(1);
    expect(run.err).toContain('Refused: this database already holds records; nothing was written.');
    expect(run.err).toContain('Found risks: 1.');
    expect(run.err).toContain('Never load it on an instance that will hold real data.');

    ({ ctx } = await open(vars));
    const [{ now }] = await selectRows<{ now: number }>(ctx.db, sql`select max(seq)::int as now from audit_log`);
    expect(now).toBe(head);
    expect(await countOf(ctx, `select 1 from users where email like '%@demo.example'`)).toBe(0);
    expect(await countOf(ctx, 'select 1 from controls')).toBe(0);
    await close(ctx);
  }, 240_000);

  test('a usage mistake exits 2 naming the option', async () => {
    const run = await runDemo({ DATA_DIR: mkdtempSync(join(tmpdir(), 'grc-demo-')) }, ['--size', 'huge']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('--size must be small or large, not "huge"');
  });
});

describe('the large size', () => {
  test('goes through the batch paths: scaled down here (the full size is timed in bun run bench -- demo)', async () => {
    const { ctx } = await open(await newDatabase());
    const result = await loadDemo(ctx, { seed: 3, size: 'large', counts: { controls: 1_100, risks: 1_300, evidence: 450 } });
    expect(result.counts).toMatchObject({ controls: 1_100, risks: 1_300, evidence: 450, 'evidence files': 450 });
    expect(await countOf(ctx, 'select 1 from risks')).toBe(1_300);
    expect(await countOf(ctx, 'select distinct name from controls')).toBe(1_100);
    expect(await countOf(ctx, 'select 1 from evidence_links')).toBe(await countOf(ctx, `select 1 from evidence where kind = 'evidence'`));
    const verified = await verifyAuditLog(ctx.db);
    expect(verified.ok).toBe(true);
    await close(ctx);
  }, 240_000);
});
