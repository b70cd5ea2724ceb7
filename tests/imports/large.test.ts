import { beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { CHUNK_ROWS } from '../../src/platform/csv/engine';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { PipelinedWrites } from '../../src/platform/core/pipelined-writes';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, unique } from '../helpers/factories';
import { postCsv } from './helpers';

let env: TestEnv;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['controls:create', 'controls:update', 'controls:read']);
});

const countControls = async (prefix: string) =>
  (await selectRows<{ n: number }>(env.ctx.db, sql`select count(*)::int as n from controls where name like ${`${prefix}%`}`))[0].n;

describe('Files of several chunks', () => {
  test('an import of several chunks keeps every record, one History and audit entry each, and one linear verified chain', async () => {
    const prefix = unique('Chunked');
    const rows = CHUNK_ROWS * 2 + 17;
    const csv = `name,description\n${Array.from({ length: rows }, (_, i) => `${prefix} ${i},row ${i}`).join('\n')}\n`;
    const checked = await postCsv(env, token, 'controls', csv, 'check');
    expect(checked.data.counts).toEqual({ create: rows, update: 0, unchanged: 0, error: 0 });
    expect(await countControls(prefix)).toBe(0);

    const applied = await postCsv(env, token, 'controls', csv, 'apply', 'chunked.csv', '&pageSize=5000');
    expect(applied.data.outcome).toBe('imported');
    expect(applied.data.rows.map((r) => r.line)).toEqual(Array.from({ length: rows }, (_, i) => i + 2));
    expect(await countControls(prefix)).toBe(rows);
    const [{ n: histories }] = await selectRows<{ n: number }>(env.ctx.db, sql`select count(*)::int as n from history where source = 'CSV import of chunked.csv'`);
    expect(histories).toBe(rows);
    const [{ n: audited }] = await selectRows<{ n: number }>(env.ctx.db, sql`
      select count(*)::int as n from audit_log where details->>'source' = 'CSV import of chunked.csv' and action = 'create'`);
    expect(audited).toBe(rows);
    const verified = await verifyAuditLog(env.ctx.db);
    expect(verified.ok).toBe(true);
  });

  test('an error row in the last chunk keeps nothing from the earlier chunks', async () => {
    const prefix = unique('Refused');
    const good = Array.from({ length: CHUNK_ROWS + 5 }, (_, i) => `${prefix} ${i},ok`);
    const csv = `name,description\n${good.join('\n')}\n,blank name\n`;
    const applied = await postCsv(env, token, 'controls', csv, 'apply');
    expect(applied.status).toBe(422);
    expect(applied.data.counts.error).toBe(1);
    expect(await countControls(prefix)).toBe(0);
  });
});

describe('Answers of large files', () => {
  test('a check of 49,999 error rows lists one bounded page with exact counts; the caller pages through the rest', async () => {
    const rows = 49_999;
    const csv = `name,description\n${',no name\n'.repeat(rows)}`;
    const first = await postCsv(env, token, 'controls', csv, 'check', 'errors.csv');
    expect(first.status).toBe(200);
    expect(first.data.counts).toEqual({ create: 0, update: 0, unchanged: 0, error: rows });
    expect({ total: first.data.total, page: first.data.page, pageSize: first.data.pageSize }).toEqual({ total: rows, page: 1, pageSize: 1_000 });
    expect(first.data.rows.map((r) => r.line)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 2));
    expect(first.data.rows[0].errors).toEqual([{ column: 'name', message: expect.any(String) }]);
    // Every row listed would have answered about 4 MB here (20 MB with more columns).
    expect(first.text.length).toBeLessThan(200_000);

    const last = await postCsv(env, token, 'controls', csv, 'check', 'errors.csv', '&page=10&pageSize=5000');
    expect(last.data.rows.map((r) => r.line)).toEqual(Array.from({ length: 4_999 }, (_, i) => 45_002 + i));
    expect(last.data.counts.error).toBe(rows);
    const beyond = await postCsv(env, token, 'controls', csv, 'check', 'errors.csv', '&page=11&pageSize=5000');
    expect(beyond.data.rows).toEqual([]);
    expect((await postCsv(env, token, 'controls', 'name\nok', 'check', 'x.csv', '&pageSize=5001')).status).toBe(400);
  });

  test('outcome lists only the rows with that outcome; the counts stay those of the file', async () => {
    const prefix = unique('Outcome');
    const csv = `name,description\n${prefix} a,ok\n,no name\n${prefix} b,ok\n,no name\n`;
    const errors = await postCsv(env, token, 'controls', csv, 'check', 'mixed.csv', '&outcome=error');
    expect(errors.data.counts).toEqual({ create: 2, update: 0, unchanged: 0, error: 2 });
    expect(errors.data.total).toBe(2);
    expect(errors.data.rows.map((r) => [r.line, r.outcome])).toEqual([[3, 'error'], [5, 'error']]);
  });
});

describe('Pipelined writes', () => {
  test('a refused statement is reported as itself, not as the aborted transaction after it, and nothing is kept', async () => {
    const name = unique('Pipelined');
    let caught: unknown;
    try {
      await env.ctx.db.transaction(async (tx) => {
        const writes = new PipelinedWrites();
        writes.send(tx.execute(sql`insert into labels (name) values (${name})`));
        writes.send(tx.execute(sql`select 1 / 0`));
        writes.send(tx.execute(sql`select 1`));
        await writes.drain();
      });
    } catch (error) {
      caught = error;
    }
    expect(String((caught as { cause?: unknown })?.cause ?? caught)).toContain('division by zero');
    const [{ n }] = await selectRows<{ n: number }>(env.ctx.db, sql`select count(*)::int as n from labels where name = ${name}`);
    expect(n).toBe(0);
  });
});
