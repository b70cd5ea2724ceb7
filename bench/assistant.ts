import { createApp } from '../src/app';
import { createToken } from '../src/modules/apiTokens/service';
import { saveAssistantSettings } from '../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../src/modules/assistant/schema';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { selectRows } from '../db/client';
import { searchStatement } from '../src/platform/search/search';
import { bootBenchService, ms, summarise } from './lib';

const ROWS = 100_000;
const REQUIREMENTS = 10_000;
const SAMPLES = 200;
const WORDS = ['access', 'review', 'backup', 'encryption', 'vendor', 'incident', 'logging', 'network', 'payroll', 'privacy', 'laptop', 'firewall'];
/**
 * Titles and text draw their words from a vocabulary of 300: the twelve real words above and 288 others. (With the
 * twelve alone, "access review" matched a tenth of all rows, 20,000 ranked per query; see docs/search.md.)
 */
const VOCABULARY = 300;
const word = (n: string) => `(case when (${n}) % ${VOCABULARY} < ${WORDS.length} then (array['${WORDS.join("','")}'])[1 + (${n}) % ${VOCABULARY}] else 'term' || ((${n}) % ${VOCABULARY}) end)`;
const OWNER = '(select id from users order by created_at limit 1)';

const SEEDS = [
  `insert into risks (title, description, classification_id, inherent_likelihood, inherent_impact, owner_id, status)
    select 'Risk ' || g || ' ' || ${word('g * 7')} || ' ' || ${word('g * 13 + 1')}, 'Seeded: ' || ${word('g / 3')} || ' and ' || ${word('g / 11')} || ' weaknesses',
      (select id from risk_classifications order by name limit 1), 1 + g % 5, 1 + (g / 5) % 5, ${OWNER}, 'open'
    from generate_series(1, ${ROWS}) g`,
  `insert into controls (name, description, owner_id)
    select 'Control ' || g || ' ' || ${word('g + 3')} || ' ' || ${word('g / 5')}, 'Seeded: ' || ${word('g / 2')} || ' checks', ${OWNER}
    from generate_series(1, ${ROWS}) g`,
  `insert into compliance_packages (name, owner_id) values ('Bench framework', ${OWNER})`,
  `insert into compliance_items (package_id, code, name, description, kind, position)
    select (select id from compliance_packages where name = 'Bench framework'), 'BR-' || g, initcap(${word('g')}) || ' ' || ${word('g / 13')}, 'Seeded requirement', 'requirement', g
    from generate_series(1, ${REQUIREMENTS}) g`,
  `insert into compliance_analyses (package_id, item_id, owner_id)
    select package_id, id, ${OWNER} from compliance_items where package_id = (select id from compliance_packages where name = 'Bench framework')`,
];

async function p50(work: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 20; i += 1) await work();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return summarise(samples).p50;
}

/**
 * The assistant endpoint over loopback HTTP (one client, JSON-RPC tools/call without a session, as a stateless client
 * sends it): `search` for a two-word query over 100,000 risks + 100,000 controls + 10,000 requirements next to the
 * same statement run through the driver; `list_risks` next to GET /api/v1/risks for the same page.
 */
export async function benchAssistant(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('assistant');
  const figures: Record<string, string> = {};
  try {
    for (const seed of SEEDS) await ctx.database.raw(seed);
    await ctx.database.raw('vacuum analyze');
    await ctx.database.raw('checkpoint');
    const admin = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'api');
    await ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true }));
    const { secret } = await ctx.db.transaction((tx) => createToken(tx, admin, { name: 'bench', scopes: ['risks:read', 'controls:read', 'compliance:read'] }));
    const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
    const base = `http://127.0.0.1:${server.server!.port}`;
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    let id = 0;
    const tool = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${base}/api/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }) });
      const body = (await res.json()) as { result?: { isError?: boolean; content: { text: string }[] }; error?: unknown };
      if (!body.result || body.result.isError) throw new Error(`${name}: ${JSON.stringify(body).slice(0, 300)}`);
    };
    try {
      const query = 'access review';
      const statement = searchStatement(admin, { q: query, limit: 20 })!;
      const floor = await p50(async () => { await selectRows(ctx.db, statement); });
      const overMcp = await p50(() => tool('search', { q: query, limit: 20 }));
      figures[`search "${query}": the statement via the driver (floor)`] = ms(floor);
      figures[`search "${query}" through /api/mcp`] = `p50 ${ms(overMcp)} (${(overMcp / floor).toFixed(2)}x the floor; target p50 < 30 ms, within 2x)`;

      const rest = await p50(async () => {
        const res = await fetch(`${base}/api/v1/risks?pageSize=200`, { headers });
        if (res.status !== 200) throw new Error(`GET /api/v1/risks answered ${res.status}`);
        await res.arrayBuffer();
      });
      const listed = await p50(() => tool('list_risks', { pageSize: 200 }));
      figures['GET /api/v1/risks?pageSize=200 (floor)'] = `p50 ${ms(rest)}`;
      figures['tools/call list_risks pageSize 200'] = `p50 ${ms(listed)} (${(listed / rest).toFixed(2)}x the floor; target within 2x)`;
    } finally {
      await server.stop();
    }
  } finally {
    await ctx.dispose();
  }
  return figures;
}
