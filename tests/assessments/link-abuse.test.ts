import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, gt, max } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken } from '../helpers/factories';
import { assessmentClient, pathOf } from './helpers';

/**
 * Guessing /assess/ links from one address: every bad link is the same 404, audited, and the address is answered 429
 * once over its refusal limit, while other addresses (and the real link from them) are not held back.
 */
const LIMIT = 5;
let env: TestEnv;
let base: string;
beforeAll(async () => {
  env = await startTestEnv({ REFUSAL_WINDOW_SECONDS: '60', REFUSALS_PER_CLIENT: String(LIMIT), TRUST_PROXY: 'true' });
  env.app.listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${env.app.server!.port}`;
});
afterAll(() => env.app.stop());

const from = (client: string, path: string) => fetch(`${base}${path}`, { headers: { 'x-forwarded-for': client }, redirect: 'manual' });
const guess = () => `/assess/${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`;

describe('guessing assessment links', () => {
  test(`an address guessing links gets the same 404 each time, then 429 after ${LIMIT} refusals; the Audit Log names the address`, async () => {
    const api = assessmentClient(env, await makeToken(env, await adminActor(env), ['assessments:read', 'assessments:create']));
    const real = await api.sendRequest({ templateId: await api.shipped('dpia-screening') });
    const [{ head }] = await env.ctx.db.select({ head: max(auditLog.seq) }).from(auditLog);
    const answers: number[] = [];
    const bodies = new Set<string>();
    for (let i = 0; i < LIMIT + 3; i++) {
      const res = await from('198.51.100.7', i % 2 ? guess() : '/assess/short');
      answers.push(res.status);
      if (res.status === 404) bodies.add(await res.text());
      else await res.text();
    }
    expect(answers).toEqual([...Array(LIMIT).fill(404), 429, 429, 429]);
    expect(bodies.size).toBe(1);
    // Even the real link is held back for the guessing address until the window ends; another address opens it.
    expect((await from('198.51.100.7', pathOf(real.url))).status).toBe(429);
    expect((await from('198.51.100.8', pathOf(real.url))).status).toBe(200);
    const limited = await env.ctx.db.select().from(auditLog).where(and(gt(auditLog.seq, head ?? 0), eq(auditLog.action, 'refusals.limited')));
    expect(limited.map((e) => (e.details as { client: string }).client)).toContain('198.51.100.7');
    const denied = await env.ctx.db.select().from(auditLog).where(and(gt(auditLog.seq, head ?? 0), eq(auditLog.action, 'permission.denied')));
    expect(denied.map((e) => (e.details as { reason: string }).reason)).toEqual(expect.arrayContaining(['assessment link malformed', 'assessment link unknown (guessed, or replaced by a newer link)']));
  });
});
