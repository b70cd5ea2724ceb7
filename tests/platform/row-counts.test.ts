import { tiaKind, transferKind } from '../../src/modules/dataPrivacy/transfer-service';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'bun:test';
import { count, eq, getTableName } from 'drizzle-orm';
import { accountReviewPrograms, controls, risks, rowCounts } from '../../db/schema';
import { programKind } from '../../src/modules/accountReviews/service';
import { programKind as awarenessProgramKind } from '../../src/modules/awareness/service';
import { assetKind } from '../../src/modules/assets/service';
import { auditPlanKind, findingKind } from '../../src/modules/audits/service';
import { businessUnitKind } from '../../src/modules/businessUnits/service';
import { packageKind } from '../../src/modules/compliance/packages-service';
import { evidenceKind } from '../../src/modules/evidence/service';
import { controlKind } from '../../src/modules/controls/service';
import { incidentKind } from '../../src/modules/incidents/service';
import { policyKind } from '../../src/modules/policies/service';
import { projectKind } from '../../src/modules/projects/service';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { dpiaKind } from '../../src/modules/dataPrivacy/dpia-service';
import { createCustomField, deleteCustomField } from '../../src/modules/customFields/service';
import { createRisk, deleteRisk, riskListQueries } from '../../src/modules/risks/service';
import { thirdPartyKind } from '../../src/modules/thirdParties/service';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord, deleteRecord, listQueries } from '../../src/platform/records/records';
import { countedTables } from '../../src/platform/http/installed';
import { compactRowCounts, recountRows } from '../../src/platform/records/row-counts';
import { sweepOnce } from '../../src/platform/modules/sweep';
import { startTestEnv, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import { postCsv } from '../imports/helpers';

let env: TestEnv;
let admin: Actor;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:read', 'risks:create', 'risks:update', 'controls:read', 'controls:create']);
});

async function listTotal(path: string, secret = token, on = env): Promise<number> {
  const res = await on.request(path, bearer(secret));
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: { total: number } }).data.total;
}

const riskRows = async (on = env) => (await on.ctx.db.select({ n: count() }).from(risks))[0].n;
const deltaRows = async (table: string, on = env) =>
  (await on.ctx.db.select({ n: count() }).from(rowCounts).where(eq(rowCounts.tableName, table)))[0].n;

describe('exact list totals from delta counts', () => {
  test('an unfiltered list read at level all takes its total from the delta counts, any filter counts the rows', () => {
    const unfiltered = riskListQueries(env.ctx.db, admin, { pageSize: 25 }).total.toSQL().sql;
    expect(unfiltered).toContain('row_counts');
    expect(riskListQueries(env.ctx.db, admin, { pageSize: 25, status: 'open' }).total.toSQL().sql).not.toContain('row_counts');
    expect(listQueries(env.ctx.db, controlKind, admin, { q: 'x' }).total.toSQL().sql).not.toContain('row_counts');
    expect(listQueries(env.ctx.db, controlKind, admin, { page: 2, sort: 'name' }).total.toSQL().sql).toContain('row_counts');
  });

  test('every register with a REST list keeps delta counts, with insert, delete and truncate triggers', async () => {
    const kinds = [controlKind, evidenceKind, incidentKind, assetKind, businessUnitKind, thirdPartyKind, projectKind, policyKind, auditPlanKind, findingKind, packageKind, programKind, processingActivityKind, dpiaKind, awarenessProgramKind, transferKind, tiaKind];
    const registers = ['risks', ...kinds.map((kind) => getTableName(kind.table))];
    expect([...countedTables()].sort()).toEqual([...new Set(registers)].sort());
    const triggers = await env.ctx.database.raw<{ table: string; n: number }>(
      `select c.relname as table, count(*)::int as n from pg_trigger t join pg_class c on c.oid = t.tgrelid
        where t.tgname like '%\\_count\\_%' and not t.tgisinternal group by c.relname`);
    expect(Object.fromEntries(triggers.map((t) => [t.table, t.n]))).toEqual(Object.fromEntries(registers.map((r) => [r, 3])));
  });

  test('the risk list total stays exact through creates, deletes, a CSV import and a rolled-back transaction', async () => {
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(await riskRows());

    const first = await makeRisk(env, admin);
    await makeRisk(env, admin);
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(await riskRows());

    await env.ctx.db.transaction((tx) => deleteRisk(tx, admin, first));
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(await riskRows());

    const before = await riskRows();
    const csv = `title,classification,inherent_likelihood,inherent_impact\n${unique('Imported')},Operational,3,4\n${unique('Imported')},Operational,2,2\n`;
    const imported = await postCsv(env, token, 'risks', csv, 'apply');
    expect(imported.status, imported.text).toBe(200);
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(before + 2);

    const input = { title: unique('Rolled back'), classificationId: await classificationId(env), inherentLikelihood: 1, inherentImpact: 1 };
    const rolledBack = env.ctx.db.transaction(async (tx) => {
      await createRisk(tx, admin, input);
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(before + 2);
    expect(await riskRows()).toBe(before + 2);
  });

  test('register kit lists count through creates and deletes', async () => {
    const controlRows = async () => (await env.ctx.db.select({ n: count() }).from(controls))[0].n;
    const { id } = await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: unique('Counted control') }));
    expect(await listTotal('/api/v1/controls')).toBe(await controlRows());
    await env.ctx.db.transaction((tx) => deleteRecord(tx, controlKind, admin, id));
    expect(await listTotal('/api/v1/controls')).toBe(await controlRows());
  });

  test('compacting the counts keeps the total and leaves one row per table', async () => {
    await makeRisk(env, admin);
    await makeRisk(env, admin);
    expect(await deltaRows('risks')).toBeGreaterThan(1);
    const total = await listTotal('/api/v1/risks?pageSize=1');
    expect(await sweepOnce(env.ctx)).toBe(true);
    expect(await deltaRows('risks')).toBe(1);
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(total);
    expect(total).toBe(await riskRows());
    // Compacting again changes nothing.
    await env.ctx.db.transaction((tx) => compactRowCounts(tx));
    expect(await deltaRows('risks')).toBe(1);
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(total);
  });

  test('a recount makes the totals exact again after writes with the triggers off (a data-only restore)', async () => {
    await env.ctx.database.raw('alter table risks disable trigger risks_count_inserts');
    try {
      await makeRisk(env, admin);
      await makeRisk(env, admin);
    } finally {
      await env.ctx.database.raw('alter table risks enable trigger risks_count_inserts');
    }
    const rows = await riskRows();
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(rows - 2);
    const recounts = await env.ctx.db.transaction((tx) => recountRows(tx));
    expect(recounts.find((r) => r.table === 'risks')).toEqual({ table: 'risks', counted: rows - 2, rows });
    expect(recounts.map((r) => r.table)).toEqual(countedTables());
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(rows);
    expect(await deltaRows('risks')).toBe(1);
    // Later writes count on from the recounted total.
    await makeRisk(env, admin);
    expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(rows + 1);
  });

  // PGlite is a single connection: these need a second session writing while the compaction is open.
  describe.skipIf(!process.env.DATABASE_URL)('with a second connection (PostgreSQL)', () => {
    test('bun run counts:recount corrects the totals of the database DATABASE_URL names', async () => {
      const own = await startTestEnv();
      await own.ctx.database.raw(`insert into row_counts (table_name, delta) values ('controls', 7)`);
      const child = Bun.spawn([process.execPath, join(import.meta.dir, '../../scripts/row-counts-recount.ts')], {
        env: { ...process.env, DATABASE_URL: own.ctx.config.DATABASE_URL!, LOG_LEVEL: 'error' }, stdout: 'pipe', stderr: 'pipe',
      });
      const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      expect(code, stderr).toBe(0);
      const controlRows = (await own.ctx.db.select({ n: count() }).from(controls))[0].n;
      expect(stdout).toBe(`controls: the total was ${controlRows + 7}, the table holds ${controlRows}; corrected\nRecounted ${countedTables().length} tables; 1 corrected.\n`);
      expect(await listTotal('/api/v1/controls?pageSize=1', await makeToken(own, await adminActor(own), ['controls:read']), own)).toBe(controlRows);
    }, 60_000);

    test('a concurrent insert committed during compaction is still counted', async () => {
      await makeRisk(env, admin);
      await env.ctx.db.transaction(async (tx) => {
        await compactRowCounts(tx);
        await makeRisk(env, admin); // another pooled connection; commits while the compaction is still open
      });
      expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(await riskRows());
    });

    test('an insert open before compaction and committed after it is still counted', async () => {
      await makeRisk(env, admin);
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      let inserted!: () => void;
      const insertedSignal = new Promise<void>((resolve) => { inserted = resolve; });
      const input = { title: unique('Slow writer'), classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 2 };
      const writer = env.ctx.db.transaction(async (tx) => {
        await createRisk(tx, admin, input);
        inserted();
        await held;
      });
      await insertedSignal;
      await env.ctx.db.transaction((tx) => compactRowCounts(tx));
      release();
      await writer;
      expect(await listTotal('/api/v1/risks?pageSize=1')).toBe(await riskRows());
    });
  });

  test('truncate resets the count', async () => {
    const separate = await startTestEnv();
    const system = await adminActor(separate);
    const secret = await makeToken(separate, system, ['accountReviews:read']);
    await separate.ctx.db.transaction((tx) => createRecord(tx, programKind, system, { name: unique('Program') }));
    const total = async () => {
      const res = await separate.request('/api/v1/account-reviews?pageSize=1', bearer(secret));
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { data: { total: number } }).data.total;
    };
    expect(await total()).toBe(1);
    await separate.ctx.database.raw('truncate account_review_programs cascade');
    expect(await deltaRows('account_review_programs', separate)).toBe(0);
    expect(await total()).toBe(0);
    await separate.ctx.db.transaction((tx) => createRecord(tx, programKind, system, { name: unique('Program') }));
    expect(await total()).toBe(1);
    expect((await separate.ctx.db.select({ n: count() }).from(accountReviewPrograms))[0].n).toBe(1);
  });

  test('own-level lists still count only what the user can see', async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:create': 'own', 'apiTokens:create': 'own' });
    const actor = await user.actor();
    await makeRisk(env, actor);
    await makeRisk(env, actor);
    await makeRisk(env, admin);
    const own = await makeToken(env, actor, ['risks:read']);
    expect(riskListQueries(env.ctx.db, actor, { pageSize: 25 }).total.toSQL().sql).not.toContain('row_counts');
    expect(await listTotal('/api/v1/risks?pageSize=1', own)).toBe(2);
  });

  test('filtered lists count the filtered rows', async () => {
    const tag = unique('Filtered');
    await makeRisk(env, admin, { title: `${tag} open`, status: 'open' });
    await makeRisk(env, admin, { title: `${tag} closed`, status: 'closed' });
    expect(await listTotal(`/api/v1/risks?q=${encodeURIComponent(tag)}`)).toBe(2);
    expect(await listTotal(`/api/v1/risks?q=${encodeURIComponent(tag)}&status=closed`)).toBe(1);
    const open = (await env.ctx.db.select({ n: count() }).from(risks).where(eq(risks.status, 'open')))[0].n;
    expect(await listTotal('/api/v1/risks?status=open&pageSize=1')).toBe(open);
    await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: `${tag} control` }));
    expect(await listTotal(`/api/v1/controls?q=${encodeURIComponent(tag)}`)).toBe(1);
  });

  test('custom fields still come back on the rows of an unfiltered page, {} where a row has none', async () => {
    const key = `area${Date.now().toString(36)}`;
    const { id: definitionId } = await env.ctx.db.transaction((tx) =>
      createCustomField(tx, admin, { module: 'risks', key, label: 'Area', type: 'singleSelect', options: ['finance', 'it'] }));
    try {
      const without = await makeRisk(env, admin);
      const withValue = await makeRisk(env, admin, { customFields: { [key]: 'it' } });
      const res = await env.request('/api/v1/risks?pageSize=2', bearer(token));
      const rows = ((await res.json()) as { data: { rows: { id: string; customFields: Record<string, unknown> }[] } }).data.rows;
      expect(rows.map((r) => r.id)).toEqual([withValue, without]);
      expect(rows[0].customFields).toEqual({ [key]: 'it' });
      expect(rows[1].customFields).toEqual({});
    } finally {
      await env.ctx.db.transaction((tx) => deleteCustomField(tx, admin, definitionId, { confirm: true }));
    }
  });
});
