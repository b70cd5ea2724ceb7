import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { createTestDatabaseUrl } from '../helpers/db';
import {
  adminTokenIn, openTestDatabase, startDatabaseRelay, startServerProcess, type DatabaseRelay, type ServerProcess,
} from '../helpers/server-process';
import type { Database } from '../../db/client';

const base = process.env.DATABASE_URL;
if (!base) console.warn('platform/connection-loss: skipped on the embedded database (PGlite has no connection to lose); run the suite with DATABASE_URL to include it');

/** Spawning a server (migrations on a fresh database) and a 20,000-row import take seconds on a busy machine. */
const LIMIT = 180_000;
const LEVELS = ['Rare', 'Unlikely', 'Possible', 'Likely', 'Almost certain'];

function riskCsv(rows: number): string {
  const lines = ['title,classification,inherent_likelihood,inherent_impact'];
  for (let i = 0; i < rows; i++) lines.push(`Connection loss risk ${i},Operational,${LEVELS[i % 5]},${(i % 5) + 1}`);
  return `${lines.join('\n')}\n`;
}

describe.skipIf(!base)('a lost database connection (PostgreSQL, server in its own process)', () => {
  let databaseUrl: string;
  let databaseName: string;
  let relay: DatabaseRelay;
  let server: ServerProcess;
  let token: string;
  let check: Database;
  let admin: postgres.Sql;

  beforeAll(async () => {
    databaseUrl = (await createTestDatabaseUrl())!;
    databaseName = new URL(databaseUrl).pathname.slice(1);
    relay = await startDatabaseRelay(databaseUrl);
    server = await startServerProcess({ DATABASE_URL: relay.url });
    token = await adminTokenIn(databaseUrl, ['risks:read', 'risks:create', 'risks:update']);
    check = await openTestDatabase(databaseUrl);
    admin = postgres(base!, { max: 1, onnotice: () => {} });
  }, LIMIT);

  afterAll(async () => {
    await server?.stop();
    await relay?.close();
    await check?.close();
    await admin?.end();
  }, LIMIT);

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

  const count = async (table: string) => Number((await check.raw<{ n: string }>(`select count(*) as n from ${table}`))[0].n);

  /** Polls until the service answers health ok (bounded; no timing is asserted). */
  async function healthy(): Promise<Response> {
    let last: Response | undefined;
    for (let attempt = 0; attempt < 200; attempt++) {
      last = await fetch(`${server.url}/api/health`);
      if (last.status === 200) return last;
      await Bun.sleep(100);
    }
    return last!;
  }

  /**
   * Waits until the import's transaction has written (it holds a transaction id), then terminates every backend of the
   * database, as an operator or a failover would. Stops if the import answers first.
   */
  async function terminateWhileImporting(answered: () => boolean): Promise<number> {
    while (!answered()) {
      const writing = await admin`select pid from pg_stat_activity where datname = ${databaseName} and backend_xid is not null`;
      if (writing.length) {
        const killed = await admin`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = ${databaseName}`;
        return killed.filter((row) => row.ok).length;
      }
      await Bun.sleep(5);
    }
    return 0;
  }

  for (const mode of ['check', 'apply'] as const) {
    test(`a CSV ${mode} of 20,000 risks whose connection is terminated answers 503, keeps nothing, and the server keeps serving`, async () => {
      const risksBefore = await count('risks');
      const historyBefore = await count('history');
      let done = false;
      const answer = api(`/api/v1/risks/import?mode=${mode}`, {
        method: 'POST', headers: { 'content-type': 'text/csv', 'x-file-name': 'loss.csv' }, body: riskCsv(20_000),
      }).finally(() => { done = true; });
      const terminated = await terminateWhileImporting(() => done);
      const res = await answer;
      const text = await res.text();
      expect(terminated, `the import answered before its connection could be terminated: ${res.status} ${text.slice(0, 200)}`).toBeGreaterThan(0);
      expect(res.status, text.slice(0, 500)).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(JSON.parse(text).error).toContain('database is not reachable');

      // The process survives what follows the failure (postgres.js used to write to the dead socket and exit).
      expect((await healthy()).status).toBe(200);
      const list = await api('/api/v1/risks?pageSize=1');
      expect(list.status, await list.clone().text()).toBe(200);
      await Bun.sleep(200);
      expect(server.alive(), server.log()).toBe(true);
      expect(server.log()).not.toContain('TypeError');
      expect(await count('risks')).toBe(risksBefore);
      expect(await count('history')).toBe(historyBefore);
    }, LIMIT);
  }

  test('while PostgreSQL is unreachable the API and the screens answer 503, and health is ok again as soon as it is back', async () => {
    expect((await healthy()).status).toBe(200);
    await relay.cut();
    try {
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(503);

      const list = await api('/api/v1/risks');
      expect(list.status, await list.clone().text()).toBe(503);
      expect((await list.json()).error).toContain('database is not reachable');
      expect(list.headers.get('retry-after')).toBeTruthy();

      const create = await api('/api/v1/risks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' });
      expect(create.status, await create.clone().text()).toBe(503);

      // A screen request whose session must be looked up gets the error page, not a 500.
      const screen = await fetch(`${server.url}/settings`, { headers: { cookie: `grc_session=${'s'.repeat(43)}` }, redirect: 'manual' });
      expect(screen.status).toBe(503);
      expect(screen.headers.get('content-type')).toContain('text/html');
      expect(await screen.text()).toContain('database is not reachable');
    } finally {
      await relay.restore();
    }
    expect((await healthy()).status).toBe(200);
    const after = await api('/api/v1/risks?pageSize=1');
    expect(after.status, server.log()).toBe(200);
    expect(server.alive(), server.log()).toBe(true);
  }, LIMIT);
});
