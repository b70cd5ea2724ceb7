import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, gt, like } from 'drizzle-orm';
import { auditLog, clientRefusals, refusalWindows } from '../../db/schema';
import { verifyAuditLog } from '../../src/platform/audit/audit-verify';
import { RefusalLimiter, summarizeEndedRefusals, TOO_MANY_REFUSALS } from '../../src/platform/http/refusals';
import { systemActor } from '../../src/platform/permissions/permissions';
import { sweepOnce } from '../../src/platform/modules/sweep';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken } from '../helpers/factories';

const LIMIT = 8;
let env: TestEnv;
let base: string;
let token: string;

beforeAll(async () => {
  // Refusal windows on (the shared test service turns them off), a small limit, and a socket; as behind a reverse proxy,
  // the client address is the X-Forwarded-For entry, so each test is a client of its own.
  env = await startTestEnv({ REFUSAL_WINDOW_SECONDS: '60', REFUSALS_PER_CLIENT: String(LIMIT), TRUST_PROXY: 'true' });
  env.app.listen({ hostname: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${env.app.server!.port}`;
  token = await makeToken(env, await adminActor(env), ['risks:read']);
}, 60_000);
afterAll(async () => {
  await env?.app.stop();
  // Its own database connections go now, not at the end of the whole run.
  await env?.ctx.close();
});

const head = async () => (await env.ctx.db.select({ seq: auditLog.seq }).from(auditLog).orderBy(auditLog.seq)).at(-1)?.seq ?? 0;
const entriesSince = (since: number, action: string) =>
  env.ctx.db.select().from(auditLog).where(and(gt(auditLog.seq, since), like(auditLog.action, action))).orderBy(auditLog.seq);

/** Starts in a fresh window when the current one has only a few seconds left, so a test's requests share one window. */
async function freshWindow() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await Bun.sleep(left + 50);
}

/** A request from `client`, as the trusted proxy reports it. */
const from = (client: string, path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { ...init.headers, 'x-forwarded-for': `203.0.113.250, ${client}` } });

describe('refused requests are audited, folded and bounded per client address', () => {
  test('identical refusals in a window are one entry; the sweep adds one summary with the count when the window has ended', async () => {
    const CLIENT = '198.51.100.1';
    await freshWindow();
    const since = await head();
    for (let i = 0; i < 5; i++) expect((await from(CLIENT, '/api/v1/risks?pageSize=1')).status).toBe(401);
    // A different refusal (another path) is an entry of its own.
    expect((await from(CLIENT, '/api/v1/controls')).status).toBe(401);

    const denied = await entriesSince(since, 'permission.denied');
    // Read before matching: Bun's toMatchObject leaves its asymmetric matchers in the object it checked.
    const windowEnd = new Date((denied[0].details as { window: { end: string } }).window.end);
    expect(denied.map((e) => (e.details as { path: string }).path)).toEqual(['/api/v1/risks', '/api/v1/controls']);
    expect(denied[0].details).toMatchObject({ reason: 'no token', method: 'GET', client: CLIENT });
    expect(windowEnd.getTime() % 60_000).toBe(0);

    // The window has not ended: nothing to summarise yet.
    await env.ctx.db.transaction((tx) => summarizeEndedRefusals(tx));
    expect(await entriesSince(since, 'permission.denied.repeated')).toEqual([]);

    await env.ctx.db.transaction((tx) => summarizeEndedRefusals(tx, windowEnd));
    const summaries = await entriesSince(since, 'permission.denied.repeated');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ module: 'security', actorKind: 'system', via: 'api' });
    expect(summaries[0].details).toMatchObject({ reason: 'no token', path: '/api/v1/risks', client: CLIENT, count: 5, firstSeq: denied[0].seq });
    // Summarised once: the window's rows are gone, a second pass adds nothing.
    expect(await env.ctx.db.select().from(refusalWindows).where(eq(refusalWindows.windowEnd, windowEnd))).toEqual([]);
    await env.ctx.db.transaction((tx) => summarizeEndedRefusals(tx, windowEnd));
    expect(await entriesSince(since, 'permission.denied.repeated')).toHaveLength(1);
    expect((await verifyAuditLog(env.ctx.db)).ok).toBe(true);
  });

  test(`a client with more than ${LIMIT} refusals in a window is answered 429 with Retry-After, on every request, until the window ends`, async () => {
    const CLIENT = '198.51.100.2';
    await freshWindow();
    const since = await head();
    const answers: number[] = [];
    for (let i = 0; i < LIMIT + 3; i++) answers.push((await from(CLIENT, `/api/v1/risks/${i}`, { method: 'DELETE' })).status);
    expect(answers).toEqual([...Array(LIMIT).fill(401), 429, 429, 429]);

    // Even a request with a valid token from that address, and a screen, until the window ends.
    const listed = await from(CLIENT, '/api/v1/risks', bearer(token));
    expect(listed.status).toBe(429);
    expect(await listed.json()).toEqual({ error: TOO_MANY_REFUSALS });
    const retryAfter = Number(listed.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await from(CLIENT, '/sign-in')).status).toBe(429);
    // The health check stays open, and another client is unaffected.
    expect((await from(CLIENT, '/api/health')).status).toBe(200);
    expect((await from('198.51.100.99', '/api/v1/risks', bearer(token))).status).toBe(200);

    // One entry per refused request up to the limit (each path differs), and one that the client was limited.
    expect(await entriesSince(since, 'permission.denied')).toHaveLength(LIMIT);
    const limited = await entriesSince(since, 'refusals.limited');
    expect(limited).toHaveLength(1);
    expect(limited[0].details).toMatchObject({ client: CLIENT, limit: LIMIT });
    const [counted] = await env.ctx.db.select().from(clientRefusals).where(eq(clientRefusals.client, CLIENT));
    expect(counted.count).toBe(LIMIT + 1);
  });

  test('a flood of 200 refused requests is a handful of entries, summarised when the window has ended', async () => {
    const CLIENT = '198.51.100.3';
    await freshWindow();
    const since = await head();
    // What used to add one entry per request: 200 refused requests, 20 at a time.
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => from(CLIENT, '/api/v1/risks', { headers: { authorization: 'Bearer aat_wrong' } })));
      statuses.push(...answers.map((res) => res.status));
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(200 - LIMIT);
    const written = await env.ctx.db.select().from(auditLog).where(gt(auditLog.seq, since));
    expect(written.map((e) => e.action).sort()).toEqual(['permission.denied', 'refusals.limited']);

    // Once the window has ended, the sweep writes the summary (LIMIT identical refusals) and removes the window's rows.
    const windowEnd = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
    await env.ctx.db.transaction((tx) => summarizeEndedRefusals(tx, windowEnd));
    const [summary] = await entriesSince(since, 'permission.denied.repeated');
    expect(summary.details).toMatchObject({ client: CLIENT, count: LIMIT, reason: 'malformed token' });
    expect(await env.ctx.db.select().from(clientRefusals).where(eq(clientRefusals.client, CLIENT))).toEqual([]);
    expect(await sweepOnce(env.ctx)).toBe(true);
    expect((await verifyAuditLog(env.ctx.db)).ok).toBe(true);
  });
});

describe('a budget for the refusals of all addresses together', () => {
  test('beyond it, refusals from many addresses and paths fold into one entry, counted by the summary', async () => {
    // A limiter of its own: a window length no other test uses (windows are aligned to the clock by their length, so
    // this one shares no counts), 30 refusals per address, and a budget of 5 entries for all addresses together.
    const limiter = new RefusalLimiter(env.ctx.db, { REFUSAL_WINDOW_SECONDS: 86_399, REFUSALS_PER_CLIENT: 30, REFUSAL_ENTRIES_PER_WINDOW: 5 });
    const since = await head();
    const actor = systemActor('api');
    // 40 addresses, each asking for another path: without the budget, 40 entries.
    for (let i = 0; i < 40; i += 1) {
      const outcome = await limiter.record(`192.0.2.${i + 1}`, actor, {
        module: 'security', action: 'permission.denied', details: { reason: 'no token', method: 'GET', path: `/api/v1/risks/${i}` },
      });
      expect(outcome.limited).toBe(false);
    }
    const denied = await entriesSince(since, 'permission.denied');
    expect(denied).toHaveLength(6);
    expect(denied.slice(0, 5).map((e) => (e.details as { client: string }).client)).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5']);
    expect(denied[5].details).toMatchObject({ client: '(all addresses)', reason: 'refused while the refusals of all addresses were over their budget' });
    expect(JSON.stringify(denied[5].details)).not.toContain('/api/v1/risks/');
    const folded = await entriesSince(since, 'refusals.folded');
    expect(folded).toHaveLength(1);
    expect(folded[0].details).toMatchObject({ budget: 5 });

    // When the window has ended, the summary counts the 35 folded refusals.
    const windowEnd = new Date((denied[5].details as { window: { end: string } }).window.end);
    await env.ctx.db.transaction((tx) => summarizeEndedRefusals(tx, windowEnd));
    const [summary] = await entriesSince(since, 'permission.denied.repeated');
    expect(summary.details).toMatchObject({ client: '(all addresses)', count: 35, firstSeq: denied[5].seq });
    expect((await verifyAuditLog(env.ctx.db)).ok).toBe(true);
  });
});
