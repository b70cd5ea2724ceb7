import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Database } from '../../db/client';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { verifyHistorySeals } from '../../src/platform/audit/history-seals';
import { createTestDatabaseUrl } from '../helpers/db';
import { adminTokenIn, openTestDatabase, startServerProcess, type ServerProcess } from '../helpers/server-process';

const base = process.env.DATABASE_URL;
if (!base) console.warn('platform/two-instances: skipped on the embedded database (one process owns it); run the suite with DATABASE_URL to include it');

/** Two server boots on a fresh database, a CSV import and a few hundred requests: seconds on a busy machine. */
const LIMIT = 240_000;
const SWEEP_SECONDS = 1;
const REFUSALS_PER_CLIENT = 6;
const IMPORT_ROWS = 3_000;
const LEVELS = ['Rare', 'Unlikely', 'Possible', 'Likely', 'Almost certain'];

describe.skipIf(!base)('two server processes on one PostgreSQL database', () => {
  let databaseUrl: string;
  let a: ServerProcess;
  let b: ServerProcess;
  let db: Database;
  let token: string;

  beforeAll(async () => {
    databaseUrl = (await createTestDatabaseUrl())!;
    const env = {
      DATABASE_URL: databaseUrl,
      SWEEP_INTERVAL_SECONDS: String(SWEEP_SECONDS),
      REFUSAL_WINDOW_SECONDS: '60',
      REFUSALS_PER_CLIENT: String(REFUSALS_PER_CLIENT),
    };
    // Started together: migrations, reference data and the first administrator must come out once.
    [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    token = await adminTokenIn(databaseUrl, ['risks:read', 'risks:create', 'controls:read', 'controls:create']);
    db = await openTestDatabase(databaseUrl);
  }, LIMIT);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.close();
  }, LIMIT);

  const api = (server: ServerProcess, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });

  const count = async (table: string) => Number((await db.raw<{ n: string }>(`select count(*) as n from ${table}`))[0].n);
  const total = async (server: ServerProcess, path: string) =>
    ((await (await api(server, `${path}?pageSize=1`)).json()) as { data: { total: number } }).data.total;

  /** Sends `n` creates through `server`, `inParallel` at a time; answers their statuses. */
  async function creates(server: ServerProcess, path: string, n: number, body: (i: number) => object, inParallel = 8): Promise<number[]> {
    const statuses: number[] = [];
    for (let start = 0; start < n; start += inParallel) {
      const batch = Array.from({ length: Math.min(inParallel, n - start) }, (_, k) =>
        api(server, path, { method: 'POST', body: JSON.stringify(body(start + k)) }).then((res) => res.status));
      statuses.push(...(await Promise.all(batch)));
    }
    return statuses;
  }

  test('writes through both at once, one of them importing a CSV: every write kept, totals exact, the chain verifies', async () => {
    const classification = (await db.raw<{ id: string }>(`select id from risk_classifications where name = 'Operational'`))[0].id;
    const csv = ['title,classification,inherent_likelihood,inherent_impact',
      ...Array.from({ length: IMPORT_ROWS }, (_, i) => `Imported on A ${i},Operational,${LEVELS[i % 5]},${(i % 5) + 1}`)].join('\n');
    const [imported, risksOnB, controlsOnA, controlsOnB] = await Promise.all([
      api(a, '/api/v1/risks/import?mode=apply', { method: 'POST', headers: { 'content-type': 'text/csv', 'x-file-name': 'two.csv' }, body: csv }),
      creates(b, '/api/v1/risks', 60, (i) => ({ title: `Created on B ${i}`, classificationId: classification, inherentLikelihood: 2, inherentImpact: 3 })),
      creates(a, '/api/v1/controls', 30, (i) => ({ name: `Control on A ${i}` })),
      creates(b, '/api/v1/controls', 30, (i) => ({ name: `Control on B ${i}` })),
    ]);
    expect(imported.status, await imported.clone().text()).toBe(200);
    expect(((await imported.json()) as { data: { outcome: string } }).data.outcome).toBe('imported');
    expect([...risksOnB, ...controlsOnA, ...controlsOnB].every((status) => status === 201)).toBe(true);

    // The list totals (kept as deltas, compacted by the sweeps meanwhile) are exact, read through either instance.
    expect(await count('risks')).toBe(IMPORT_ROWS + 60);
    expect(await count('controls')).toBe(60);
    for (const server of [a, b]) {
      expect(await total(server, '/api/v1/risks')).toBe(IMPORT_ROWS + 60);
      expect(await total(server, '/api/v1/controls')).toBe(60);
    }

    // One linear chain from both instances, and every History entry still matches its seal.
    const chain = await verifyAuditLog(db.db);
    expect(chain.ok, JSON.stringify(chain.firstBad)).toBe(true);
    // The sweep (every second) may append entries after the verifier's read: count up to the head it verified.
    const upToHead = await db.raw<{ n: string }>('select count(*) as n from audit_log where seq <= $1', [chain.head!.seq]);
    expect(chain.count).toBe(Number(upToHead[0].n));
    expect(chain.count).toBeGreaterThan(IMPORT_ROWS + 120);
    const seals = await verifyHistorySeals(db.db);
    expect(seals.ok, JSON.stringify(seals)).toBe(true);
    expect(a.alive() && b.alive()).toBe(true);
  }, LIMIT);

  test(`the background sweep runs once per interval (${SWEEP_SECONDS} s) between the two, not once in each`, async () => {
    const read = async () => (await db.raw<{ runs: string; at: string }>(
      `select runs, to_char(last_run_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from sweep_runs where name = 'sweep'`))[0];
    let first = await read();
    for (let i = 0; i < 100 && !first; i++) {
      await Bun.sleep(200);
      first = await read();
    }
    expect(first, 'no sweep ran').toBeDefined();
    let last = first;
    for (let i = 0; i < 200 && Number(last.runs) - Number(first.runs) < 5; i++) {
      await Bun.sleep(200);
      last = await read();
    }
    const runs = Number(last.runs) - Number(first.runs);
    expect(runs).toBeGreaterThanOrEqual(5);
    // Each sweep moved last_run_at on by at least 90 % of an interval from the one before, whichever instance ran it.
    const elapsedMs = (Date.parse(last.at) - Date.parse(first.at));
    expect(elapsedMs + runs).toBeGreaterThanOrEqual(runs * SWEEP_SECONDS * 1000 * 0.9);
    // Both instances kept trying (each logs nothing when it finds the sweep done): both still run.
    expect(a.alive() && b.alive()).toBe(true);
  }, LIMIT);

  test('a client\'s refusals count across both instances, and identical ones are one entry between them', async () => {
    const since = Number((await db.raw<{ seq: string }>('select coalesce(max(seq), 0) as seq from audit_log'))[0].seq);
    const statuses: number[] = [];
    for (let i = 0; i < REFUSALS_PER_CLIENT + 1; i++) {
      statuses.push((await fetch(`${(i % 2 ? b : a).url}/api/v1/risks`)).status);
    }
    expect(statuses).toEqual([...Array(REFUSALS_PER_CLIENT).fill(401), 429]);
    const entries = await db.raw<{ action: string }>(`select action from audit_log where seq > $1 order by seq`, [since]);
    expect(entries.map((e) => e.action)).toEqual(['permission.denied', 'refusals.limited']);
  }, LIMIT);
});
