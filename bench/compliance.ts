import { createApp } from '../src/app';
import { createToken } from '../src/modules/apiTokens/service';
import type { PackageInput } from '../src/modules/compliance/schema';
import { importShippedPackage } from '../src/modules/compliance/shipped';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import type { Actor } from '../src/platform/permissions';
import { sessionCookieName } from '../src/platform/screen-auth';
import { signIn } from '../src/platform/sessions';
import { bootBenchService, ms, summarise } from './lib';

const ITEMS = 10_000;
const ROUNDS = 5;
const CHUNK = 2000;

/** A framework of 100 headings with 99 items each; every seventh item is additional, the rest requirements. */
function framework(round: number): PackageInput {
  return {
    name: `Benchmark framework ${round}`,
    standard: 'Benchmark',
    version: String(round),
    description: 'Generated for bench/compliance.ts',
    items: Array.from({ length: ITEMS }, (_, i) => {
      const heading = i - (i % 100);
      return {
        code: `B-${String(i).padStart(5, '0')}`,
        name: `Requirement ${i}: ${'the organization shall document, approve and review the control '.repeat(3)}`.slice(0, 150),
        description: `Guidance for requirement ${i}. `.repeat(3),
        parentCode: i === heading ? null : `B-${String(heading).padStart(5, '0')}`,
        kind: i === heading ? 'heading' : i % 7 === 0 ? 'additional' : 'requirement',
      };
    }),
  };
}

/**
 * POST /api/v1/compliance/packages with 10,000 items over loopback HTTP (parse, validation, items, analyses, Audit Log,
 * History) next to the floor: the same items written by multi-row INSERTs straight through the driver, no analyses.
 * Rounds alternate so both see the same machine load. Target: under 2 s and within 5x of the floor.
 */
export async function benchCompliance(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('compliance');
  try {
    const admin = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'api');
    const { secret } = await ctx.db.transaction((tx) => createToken(tx, admin, { name: 'bench', scopes: ['compliance:create'] }));
    const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: 64 * 1024 * 1024 });
    const url = `http://127.0.0.1:${server.server!.port}/api/v1/compliance/packages`;
    const posts: number[] = [];
    const floors: number[] = [];
    let bodyBytes = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const input = framework(round);
        const body = JSON.stringify(input);
        bodyBytes = body.length;
        const start = performance.now();
        const res = await fetch(url, { method: 'POST', body, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } });
        const text = await res.text();
        posts.push(performance.now() - start);
        if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${text.slice(0, 500)}`);

        const [pkg] = await ctx.database.raw<{ id: string }>(`insert into compliance_packages (name) values ('Floor ${round}') returning id`);
        const floorStart = performance.now();
        for (let offset = 0; offset < ITEMS; offset += CHUNK) {
          const params: unknown[] = [];
          const tuples = input.items.slice(offset, offset + CHUNK).map((item, i) => {
            params.push(pkg.id, offset + i, item.code, item.name, item.description, item.parentCode, item.kind);
            const p = i * 7;
            return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6}, $${p + 7})`;
          });
          await ctx.database.raw(`insert into compliance_items (package_id, position, code, name, description, parent_code, kind) values ${tuples.join(', ')}`, params);
        }
        floors.push(performance.now() - floorStart);
      }
    } finally {
      await server.stop(true);
    }
    const post = summarise(posts);
    const floor = summarise(floors);
    const ratio = post.p50 / floor.p50;
    const verdict = post.p50 < 2000 && ratio <= 5 ? 'ok' : 'OVER TARGET';
    return {
      [`POST 10,000-item package (${(bodyBytes / 1e6).toFixed(1)} MB), analyses included, p50 of ${ROUNDS}`]: ms(post.p50),
      'floor: multi-row INSERT of the same items, p50': ms(floor.p50),
      'ratio to floor (target: < 2 s and within 5x)': `${ratio.toFixed(2)}x (${verdict})`,
      ...(await benchTreePage(ctx, admin)),
    };
  } finally {
    await ctx.dispose();
  }
}

/** The NIST moderate package's tree page (287 requirements under 18 headings), rendered for a signed-in administrator. */
async function benchTreePage(ctx: Awaited<ReturnType<typeof bootBenchService>>, admin: Actor): Promise<Record<string, string>> {
  const { id } = await ctx.db.transaction((tx) => importShippedPackage(tx, admin, 'nist-800-53-rev5-moderate'));
  const session = await signIn(ctx.db, ctx.config.ADMIN_EMAIL, 'benchmark password', '127.0.0.1', { sessionHours: 1 });
  const app = createApp(ctx);
  const headers = { cookie: `${sessionCookieName(ctx.config)}=${session.secret}` };
  const samples: number[] = [];
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    const res = await app.handle(new Request(`http://localhost/compliance/packages/${id}`, { headers }));
    const html = await res.text();
    if (res.status !== 200 || !html.includes('AC-2(1)')) throw new Error(`tree page answered ${res.status}`);
    if (i >= 10) samples.push(performance.now() - start);
  }
  const render = summarise(samples);
  return { 'tree page of the 287-requirement NIST package, p50 / p99': `${ms(render.p50)} / ${ms(render.p99)} (target < 100 ms)` };
}
