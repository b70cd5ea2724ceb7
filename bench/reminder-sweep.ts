import { sql } from 'drizzle-orm';
import { selectRows } from '../db/client';
import { createApp } from '../src/app';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { dueDateKinds } from '../src/platform/notifications/declarations';
import { collectDay, sendDigests } from '../src/platform/notifications/reminders';
import { makeRuleMails } from '../src/platform/notifications/rule-mails';
import { createRule, deleteRule } from '../src/platform/notifications/rules';
import type { Actor } from '../src/platform/permissions/permissions';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const OWNERS = 2_000;
const RISKS = 100_000;
const CONTROLS = 100_000;
const EXCEPTIONS = 10_000;
const EVIDENCE = 20_000;
const RULES = 20;
const CHANGES = 60;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/**
 * The daily reminder sweep over 100,000 risks, 100,000 controls with tests, 10,000 exceptions and 20,000 evidence
 * records owned by 2,000 people: collecting every person's digest (one statement over every kind, rendering into the
 * ledger) and queuing every digest, next to the floor of the kinds' own SELECTs run alone (their rows fetched) in the
 * same run; RSS before and after.
 * Then a screen change (a project edited through its form) with 20 matching rules against the same change with none.
 */
export async function benchReminderSweep(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('reminders');
  const figures: Record<string, string> = {};
  try {
    const admin: Actor = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'screen');
    const day = new Date().toISOString().slice(0, 10);
    await seed(ctx.database.raw);

    // The floor: each kind's SELECT alone, every row fetched, as a sweep needs at the least.
    const window = { today: sql`${day}::date`, since: sql`${null}::date`, sinceAt: sql`${null}::timestamptz` };
    let rows = 0;
    const floor = await timeIt(async () => {
      for (const kind of dueDateKinds()) rows += (await selectRows(ctx.db, kind.query(window))).length;
    });
    figures['Due items (kinds\' SELECTs alone)'] = `${rows.toLocaleString('en')} rows in ${ms(floor.ms)}`;

    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
    const collect = await timeIt(() => ctx.db.transaction((tx) => collectDay(ctx, tx, day)));
    const queue = await timeIt(() => sendDigests(ctx));
    clearInterval(sampler);
    Bun.gc(true);
    const rssAfter = process.memoryUsage().rss;
    const [counts] = await ctx.database.raw<{ digests: number; items: number; bytes: number }>(
      `select count(*)::int as digests, (select items from reminder_runs where day = $1) as items, coalesce(sum(length(body)), 0)::int as bytes from outbox where kind = 'digest'`, [day]);
    const total = collect.ms + queue.ms;
    figures['Sweep: collect + queue every digest'] = `${ms(total)} (collect ${ms(collect.ms)}, queue ${ms(queue.ms)}); ${counts.digests} digests, ${counts.items.toLocaleString('en')} items, ${mb(counts.bytes)} of mail`;
    figures['  vs its SELECTs alone'] = `${(total / floor.ms).toFixed(2)}x (target < 5 s, <= 3x)`;
    figures['  RSS before / peak / after'] = `${mb(rssBefore)} / ${mb(peak)} / ${mb(rssAfter)}`;

    Object.assign(figures, await screenChange(ctx, admin));
  } finally {
    await ctx.dispose();
  }
  return figures;
}

/** Owners in one group whose role reads everything they may own; the registers filled set-based, all of it due. */
async function seed(raw: (text: string, params?: unknown[]) => Promise<unknown[]>) {
  await raw(`insert into roles (name) values ('Bench owners')`);
  await raw(`insert into role_permissions (role_id, permission, level)
    select r.id, p, 'own' from roles r, unnest(array['risks:read','controls:read','evidence:read','policies:read','audits:read','accountReviews:read','compliance:read']) p where r.name = 'Bench owners'`);
  await raw(`insert into groups (name) values ('Bench owners')`);
  await raw(`insert into group_roles (group_id, role_id) select g.id, r.id from groups g, roles r where g.name = 'Bench owners' and r.name = 'Bench owners'`);
  await raw(`insert into users (email, name) select 'owner' || i || '@bench.example', 'Owner ' || lpad(i::text, 4, '0') from generate_series(1, ${OWNERS}) i`);
  await raw(`insert into group_members (group_id, user_id) select g.id, u.id from groups g, users u where g.name = 'Bench owners' and u.email like '%@bench.example'`);
  const owners = `(select array_agg(id order by email) from users where email like '%@bench.example')`;
  await raw(`insert into risks (title, classification_id, inherent_likelihood, inherent_impact, owner_id, created_at)
    select 'Risk ' || i, (select id from risk_classifications limit 1), 1 + i % 5, 1 + i % 5, o.ids[1 + i % ${OWNERS}], now() - interval '2 years'
    from generate_series(1, ${RISKS}) i, ${owners} o(ids)`);
  await raw(`insert into controls (name, owner_id, test_frequency_months)
    select 'Control ' || i, o.ids[1 + i % ${OWNERS}], 12 from generate_series(1, ${CONTROLS}) i, ${owners} o(ids)`);
  await raw(`insert into control_tests (control_id, tested_on, result) select id, current_date - 400, 'pass' from controls`);
  await raw(`insert into exceptions (parent_type, risk_id, title, description, expires_at, owner_id)
    select 'risk', r.id, 'Exception ' || r.title, 'Bench', current_date + (row_number() over () % 31)::int - 3, r.owner_id
    from (select id, title, owner_id from risks limit ${EXCEPTIONS}) r`);
  await raw(`insert into evidence (title, collected_on, valid_until, owner_id)
    select 'Evidence ' || i, current_date - 300, current_date + (i % 40) - 5, o.ids[1 + i % ${OWNERS}] from generate_series(1, ${EVIDENCE}) i, ${owners} o(ids)`);
  await raw('analyze');
}

/** The same screen change (a project's form saved) with no rules and with 20 rules matching it, alternating. */
async function screenChange(ctx: Awaited<ReturnType<typeof bootBenchService>>, admin: Actor): Promise<Record<string, string>> {
  const app = createApp(ctx);
  const request = (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));
  const signIn = await request('/sign-in', {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: ctx.config.ADMIN_EMAIL, password: 'benchmark password', next: '/settings' }).toString(),
  });
  const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('grc_session='))!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await request('/settings', { headers: { cookie } })).text())![1];
  const [watcher] = await ctx.database.raw<{ id: string }>(`select id from users where email = 'owner1@bench.example'`);
  await ctx.database.raw(`insert into role_permissions (role_id, permission, level) select id, 'projects:read', 'all' from roles where name = 'Bench owners'`);
  const [project] = await ctx.database.raw<{ id: string }>(`insert into projects (title, owner_id) values ('Bench project', $1) returning id`, [admin.userId]);
  const save = async (i: number) => {
    const res = await request(`/projects/${project.id}`, {
      method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, title: 'Bench project', description: `Change ${i}`, status: 'in_progress', deadline: '', ownerId: admin.userId!, ownerGroupId: '' }).toString(),
    });
    if (res.status !== 303) throw new Error(`the project form answered ${res.status}: ${await res.text()}`);
  };
  for (let i = 0; i < 10; i++) await save(-i);
  await makeRuleMails(ctx);
  const without: number[] = [];
  const withRules: number[] = [];
  const ruleIds: string[] = [];
  const passes: number[] = [];
  for (let r = 0; r < 3; r++) {
    for (let i = 0; i < CHANGES; i++) {
      without.push((await timeIt(() => save(r * 1000 + i))).ms);
      await makeRuleMails(ctx);
    }
    for (let i = 0; i < RULES; i++) {
      ruleIds.push((await ctx.db.transaction((tx) => createRule(tx, admin, {
        name: `Bench rule ${i}`, recordType: 'project', event: i % 2 ? 'changed' : 'field_changed', field: i % 2 ? null : 'description', value: null,
        notifyOwner: false, notifyOwnerGroup: false, userIds: [watcher.id], groupIds: [], addresses: [], enabled: true,
      }))).id);
    }
    await makeRuleMails(ctx);
    for (let i = 0; i < CHANGES; i++) {
      const { ms: took } = await timeIt(() => save(r * 1000 + 500 + i));
      withRules.push(took);
      passes.push((await timeIt(() => makeRuleMails(ctx))).ms);
    }
    for (const id of ruleIds.splice(0)) await ctx.db.transaction((tx) => deleteRule(tx, admin, id));
  }
  const a = summarise(without);
  const b = summarise(withRules);
  const p = summarise(passes);
  return {
    'Screen change (project form), no rules': `p50 ${ms(a.p50)}, p99 ${ms(a.p99)} (${a.n} requests)`,
    [`Same change, ${RULES} matching rules`]: `p50 ${ms(b.p50)}, p99 ${ms(b.p99)}: adds ${ms(b.p50 - a.p50)} (target < 5 ms)`,
    '  its rule mails, made after the commit': `p50 ${ms(p.p50)}, p99 ${ms(p.p99)} per change (one mail, ${RULES} rules matched)`,
  };
}
