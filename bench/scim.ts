import { createApp } from '../src/app';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { createScimToken, createScimUser, setScimEnabled } from '../src/modules/people/scim/service';
import type { Actor } from '../src/platform/permissions/permissions';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const USERS = 10_000;
const CONCURRENCY = 8;
const LOOKUPS = 1_000;

/** Runs `work(i)` for i in [0, count) with `concurrency` workers, like that many clients each waiting for its answer. */
async function inParallel(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await work(next++);
  }));
}

const scimUser = (email: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: email, name: { givenName: 'Bench', familyName: 'User' },
  emails: [{ value: email, type: 'work', primary: true }], active: true,
});

/**
 * Provisioning 10,000 users by SCIM POST, one request per user from 8 concurrent clients over loopback HTTP, next to
 * the floor: the same inserts through the provisioning service called directly (one transaction per user, 8 at once).
 * Then `GET /Users?filter=userName eq "…"` at 10,000+ users.
 */
export async function benchScim(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('scim');
  const figures: Record<string, string> = {};
  try {
    const admin: Actor = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'scim');
    await ctx.db.transaction((tx) => setScimEnabled(tx, admin, true));
    const { secret } = await ctx.db.transaction((tx) => createScimToken(tx, admin, 'bench'));
    const direct = await timeIt(() => inParallel(USERS, CONCURRENCY, async (i) => {
      const email = `direct-${i}@bench.example`;
      await ctx.db.transaction((tx) => createScimUser(tx, admin, {
        email, name: 'Bench User', givenName: 'Bench', familyName: 'User', externalId: null, active: true,
      }));
    }));
    const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
    const base = `http://127.0.0.1:${server.server!.port}/scim/v2`;
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/scim+json' };
    try {
      const overHttp = await timeIt(() => inParallel(USERS, CONCURRENCY, async (i) => {
        const res = await fetch(`${base}/Users`, { method: 'POST', headers, body: JSON.stringify(scimUser(`scim-${i}@bench.example`)) });
        if (res.status !== 201) throw new Error(`POST /Users answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }));
      figures['users by the service directly (floor)'] = `${USERS.toLocaleString('en')} in ${ms(direct.ms)}`;
      figures['users by SCIM POST, 8 clients'] = `${USERS.toLocaleString('en')} in ${ms(overHttp.ms)} (${(overHttp.ms / direct.ms).toFixed(2)}x the floor; target within 3x)`;
      const samples: number[] = [];
      for (let i = 0; i < LOOKUPS; i++) {
        const filter = encodeURIComponent(`userName eq "scim-${(i * 7919) % USERS}@bench.example"`);
        const started = performance.now();
        const res = await fetch(`${base}/Users?filter=${filter}`, { headers });
        const body = await res.json() as { totalResults: number };
        samples.push(performance.now() - started);
        if (body.totalResults !== 1) throw new Error('the lookup did not find its user');
      }
      const lookup = summarise(samples);
      figures[`GET /Users?filter=userName eq at ${(USERS * 2).toLocaleString('en')} users, p50 / p99`] = `${ms(lookup.p50)} / ${ms(lookup.p99)} (target p50 < 5 ms)`;
    } finally {
      server.stop(true);
    }
  } finally {
    await ctx.dispose();
  }
  return figures;
}
