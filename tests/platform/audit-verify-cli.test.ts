import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../db/client';
import { readConfig } from '../../src/config';
import { appendAudit } from '../../src/platform/audit/audit';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { boot } from '../../src/platform/modules/bootstrap';
import { systemActor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv } from '../helpers/app';

const SCRIPT = join(import.meta.dir, '../../scripts/audit-verify.ts');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function runCli(env: Record<string, string>, args: string[] = []): Promise<CliRun> {
  const child = Bun.spawn([process.execPath, SCRIPT, ...args], {
    // DATABASE_URL is blanked unless given, so a suite run against PostgreSQL still exercises the embedded database here.
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'error', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** Each spawn opens the database afresh; on a busy machine that alone can take seconds. */
const SPAWN_LIMIT = 60_000;

const describeRun = (run: CliRun) => `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;

describe('bun run audit:verify on an embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'grc-audit-verify-'));
  const env = { DATA_DIR: dataDir };
  let checkpoint: string;
  let count: number;

  beforeAll(async () => {
    const ctx = await boot(readConfig({ DATA_DIR: dataDir, ADMIN_EMAIL, ADMIN_PASSWORD, LOG_LEVEL: 'error' }));
    try {
      const events = Array.from({ length: 25 }, (_, i) => ({ module: 'risks', action: 'create', recordType: 'risk', recordId: `cli-${i}`, details: { i } }));
      await ctx.db.transaction((tx) => appendAudit(tx, systemActor('cli'), events));
      const result = await verifyAuditLog(ctx.db);
      checkpoint = result.checkpoint!;
      count = result.count;

      // While this process holds the embedded database, the CLI must refuse rather than open it a second time.
      const whileInUse = await runCli(env);
      expect(whileInUse.code, describeRun(whileInUse)).toBe(2);
      expect(whileInUse.stderr).toContain(`in use by process ${process.pid}`);
    } finally {
      await ctx.close();
    }
  }, SPAWN_LIMIT); // booting an on-disk PGlite (migrations and all) plus one spawn
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test('an intact log prints OK, the entry count and the checkpoint, and exits 0', async () => {
    const run = await runCli(env);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toBe(`OK: ${count} entries verified\nCheckpoint: ${checkpoint}\n`);
  }, SPAWN_LIMIT);

  test('--since an earlier checkpoint proves the log still extends it', async () => {
    const run = await runCli(env, ['--since', checkpoint]);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain(`Since ${checkpoint}: extended`);

    const ahead = `${count + 10}:${checkpoint.split(':')[1]}`;
    const truncated = await runCli(env, ['--since', ahead]);
    expect(truncated.code, describeRun(truncated)).toBe(1);
    expect(truncated.stdout).toContain(`Since ${ahead}: NOT EXTENDED: the log ends at entry ${count}`);
  }, SPAWN_LIMIT);

  test('--history also checks every History entry against the seal its audit entry carries', async () => {
    const run = await runCli(env, ['--history']);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(/^OK: \d+ entries verified\nCheckpoint: .+\nHistory: \d+ entries match their seals\n$/);
  }, SPAWN_LIMIT);

  test('a malformed checkpoint is refused before the database is opened', async () => {
    const run = await runCli(env, ['--since', 'yesterday']);
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toContain('checkpoint must look like <seq>:<64 hex digits>');
  }, SPAWN_LIMIT);

  test('a missing data directory is reported, not created and verified as empty', async () => {
    const missing = join(dataDir, 'nothing-here');
    const run = await runCli({ DATA_DIR: missing });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toContain(`No embedded database in ${missing}`);
  }, SPAWN_LIMIT);

  test('an edited entry prints MISMATCH naming it and exits 1', async () => {
    const database = await openDatabase({ dataDir });
    const target = count - 5;
    try {
      await database.raw('alter table audit_log disable trigger audit_log_no_update_delete');
      await database.raw(`update audit_log set record_id = 'tampered' where seq = $1`, [target]);
      await database.raw('alter table audit_log enable trigger audit_log_no_update_delete');
    } finally {
      await database.close();
    }
    const run = await runCli(env);
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout).toStartWith(`MISMATCH at entry ${target}: content does not match its hash (the entry was edited)\nCheckpoint: ${checkpoint}\n`);
  }, SPAWN_LIMIT);
});

describe.skipIf(!process.env.DATABASE_URL)('bun run audit:verify on PostgreSQL', () => {
  test('verifies the database DATABASE_URL names', async () => {
    const testEnv = await startTestEnv();
    const expected = await verifyAuditLog(testEnv.ctx.db);
    const run = await runCli({ DATABASE_URL: testEnv.ctx.config.DATABASE_URL! });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toBe(`OK: ${expected.count} entries verified\nCheckpoint: ${expected.checkpoint}\n`);
  }, SPAWN_LIMIT);
});
