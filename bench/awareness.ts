import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQLWrapper } from 'drizzle-orm';
import { createApp } from '../src/app';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { completionQueries, resultListQueries } from '../src/modules/awareness/service';
import { sessionCookieName } from '../src/platform/http/screen-auth';
import { signIn } from '../src/platform/http/sessions';
import type { Actor } from '../src/platform/permissions/permissions';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const PEOPLE = 10_000;
const GROUPS = 50;
const REQUESTS = 60;

/**
 * The completion page of one program assigned to 10,000 people in 50 groups (`GET /awareness/programs/:id/completion`
 * for an administrator, rendered in-process); next to its floor: the same statements (the program's row, counts by
 * status and per group, the first 200 people and their total) run through the driver, concurrently as the page runs them.
 */
export async function benchAwareness(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('awareness');
  const figures: Record<string, string> = {};
  try {
    const seeded = await timeIt(async () => {
      await ctx.database.raw(`insert into users (email, name) select 'person' || g || '@bench.example', 'Person ' || lpad(g::text, 5, '0') from generate_series(1, ${PEOPLE}) g`);
      await ctx.database.raw(`insert into groups (name) select 'Team ' || lpad(g::text, 2, '0') from generate_series(1, ${GROUPS}) g`);
      await ctx.database.raw(`insert into group_members (group_id, user_id)
        select g.id, u.id from (select id, row_number() over (order by name) as n from groups where name like 'Team %') g
        join (select id, row_number() over (order by email) as n from users where email like '%@bench.example') u on u.n % ${GROUPS} = g.n - 1`);
      await ctx.database.raw(`insert into awareness_programs (title, status, audience_group_ids, owner_id)
        select 'Security basics', 'published', array_agg(id), (select id from users order by created_at limit 1) from groups where name like 'Team %'`);
      await ctx.database.raw(`insert into awareness_results (program_id, person_id, status, score, attempts, completed_at)
        select p.id, u.id, (array['assigned','started','passed','failed'])[1 + n % 4],
          case when n % 4 >= 2 then 50 + n % 50 end, case when n % 4 >= 2 then 1 + n % 3 else 0 end, case when n % 4 = 2 then now() end
        from awareness_programs p, (select id, row_number() over (order by email) as n from users where email like '%@bench.example') u`);
      await ctx.database.raw('vacuum analyze');
    });
    figures[`${PEOPLE.toLocaleString('en')} people in ${GROUPS} groups, results seeded`] = ms(seeded.ms);

    const [{ id: programId }] = await ctx.database.raw<{ id: string }>(`select id from awareness_programs where title = 'Security basics'`);
    const groupIds = (await ctx.database.raw<{ id: string }>(`select id from groups where name like 'Team %'`)).map((g) => g.id);
    const admin: Actor = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'screen');
    const session = await signIn(ctx.db, ctx.config.ADMIN_EMAIL, 'benchmark password', '', { sessionHours: 1 });
    const cookie = `${sessionCookieName(ctx.config)}=${session.secret}`;
    const app = createApp(ctx);
    const page = async () => {
      const res = await app.handle(new Request(`http://localhost/awareness/programs/${programId}/completion`, { headers: { cookie } }));
      if (res.status !== 200) throw new Error(`the completion page answered ${res.status}`);
      return res.text();
    };

    const dialect = new PgDialect();
    const through = (statement: SQLWrapper) => {
      const q = dialect.sqlToQuery(statement.getSQL());
      return ctx.database.raw(q.sql, q.params, { prepare: true });
    };
    const completion = completionQueries(ctx.db, programId, groupIds);
    const people = resultListQueries(ctx.db, admin, { programId, pageSize: 200, sort: 'status' });
    const floor = async () => {
      await ctx.database.raw('select * from awareness_programs where id = $1', [programId], { prepare: true });
      await Promise.all([through(completion.byStatus), through(completion.byGroup!), through(people.page), through(people.total)]);
    };

    const html = await page();
    figures['page size'] = `${(html.length / 1024).toFixed(0)} KiB`;
    for (let i = 0; i < 5; i++) { await page(); await floor(); }
    const pageTimes: number[] = [];
    const floorTimes: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      floorTimes.push((await timeIt(floor)).ms);
      pageTimes.push((await timeIt(page)).ms);
    }
    const p = summarise(pageTimes);
    const f = summarise(floorTimes);
    figures['GET completion page, 1 client'] = `p50 ${ms(p.p50)}, p99 ${ms(p.p99)} (target < 300 ms)`;
    figures['  floor: its statements via the driver'] = `p50 ${ms(f.p50)}; ratio ${(p.p50 / f.p50).toFixed(2)}x (target <= 2x)`;
    return figures;
  } finally {
    await ctx.dispose();
  }
}
