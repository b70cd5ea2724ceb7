import { beforeAll, describe, expect, test } from 'bun:test';
import { selectRows } from '../../db/client';
import { sql } from 'drizzle-orm';
import { controlKind, recordControlTest } from '../../src/modules/controls/service';
import { recordRiskReview } from '../../src/modules/risks/treatments-service';
import { riskHeatMap } from '../../src/modules/risks/dashboard';
import { deleteRisk, updateRisk } from '../../src/modules/risks/service';
import { dueSoon } from '../../src/platform/dashboard/due-soon';
import { createRecord, deleteRecord, updateRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import { createException } from '../../src/modules/exceptions/service';
import { riskParent } from '../../src/modules/exceptions/parents';
import { daysAfter } from '../../src/platform/dashboard/due-soon';
import { todayIso } from '../../src/platform/core/dates';

// The Dashboard reads counts the database keeps as risks and controls change (migration 0050): open risks per owner and
// ratings, next reviews and next tests per owner and day. Whatever the writes, the kept counts must equal a count of
// the records themselves, and a reader at level own must count their own records only.
let env: TestEnv;
let admin: Actor;
let alice: TestUser;
let bob: TestUser;

/** The kept counts and the same counts made from the records, each as sorted "key=n" lines (zeros left out). */
async function keptAndCounted(): Promise<{ kept: string[]; counted: string[] }[]> {
  const lines = async (statement: ReturnType<typeof sql>) =>
    (await selectRows<{ k: string; n: number }>(env.ctx.db, statement)).map((r) => `${r.k}=${r.n}`).sort();
  const cell = `concat_ws(':', owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact)`;
  const day = (column: string) => `concat_ws(':', owner_id, owner_group_id, ${column})`;
  return [
    {
      kept: await lines(sql.raw(`select ${cell} as k, sum(n)::int as n from risk_open_cells group by 1 having sum(n) <> 0`)),
      counted: await lines(sql.raw(`select ${cell} as k, count(*)::int as n from risks where status = 'open' group by 1`)),
    },
    {
      kept: await lines(sql.raw(`select ${day('due_on')} as k, sum(n)::int as n from risk_review_due_days group by 1 having sum(n) <> 0`)),
      counted: await lines(sql.raw(`select ${day('next_review_due')} as k, count(*)::int as n from risks where status = 'open' and next_review_due is not null group by 1`)),
    },
    {
      kept: await lines(sql.raw(`select ${day(`coalesce(due_on::text, 'never')`)} as k, sum(n)::int as n from control_test_due_days group by 1 having sum(n) <> 0`)),
      counted: await lines(sql.raw(`select ${day(`coalesce(next_test_due::text, 'never')`)} as k, count(*)::int as n from controls
        where status <> 'retired' and test_frequency_months is not null group by 1`)),
    },
  ];
}

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  alice = await makeUser(env, { 'risks:read': 'own', 'controls:read': 'own' });
  bob = await makeUser(env, { 'risks:read': 'own', 'controls:read': 'own' });
});

describe('the counts the Dashboard reads are kept exact by every write', () => {
  test('risks created, rated, moved to another owner, closed, reopened, reviewed and deleted', async () => {
    const mine = await makeRisk(env, admin, { title: unique('Kept A'), ownerId: alice.id, inherentLikelihood: 2, inherentImpact: 3 });
    const group = await makeRisk(env, admin, { title: unique('Kept B'), ownerGroupId: bob.groupId, inherentLikelihood: 5, inherentImpact: 5 });
    const moved = await makeRisk(env, admin, { title: unique('Kept C'), ownerId: alice.id, inherentLikelihood: 1, inherentImpact: 1 });
    const gone = await makeRisk(env, admin, { title: unique('Kept D'), ownerId: bob.id, inherentLikelihood: 4, inherentImpact: 4 });
    await env.ctx.db.transaction((tx) => updateRisk(tx, admin, mine, { residualLikelihood: 1, residualImpact: 2 }));
    await env.ctx.db.transaction((tx) => updateRisk(tx, admin, moved, { ownerId: bob.id }));
    await env.ctx.db.transaction((tx) => updateRisk(tx, admin, group, { status: 'closed' }));
    await env.ctx.db.transaction((tx) => updateRisk(tx, admin, group, { status: 'open', reviewFrequencyMonths: 1 }));
    await env.ctx.db.transaction((tx) => recordRiskReview(tx, admin, mine, { reviewedOn: '2025-01-15', outcome: 'no_change' }));
    await env.ctx.db.transaction((tx) => deleteRisk(tx, admin, gone));
    for (const pair of await keptAndCounted()) expect(pair.kept).toEqual(pair.counted);

    // Alice at level own: her risk (rated 2 x 3, residual 1 x 2), not the one moved to Bob, nor Bob's group's.
    const map = await riskHeatMap(env.ctx.db, await alice.actor());
    expect(map.total).toBe(1);
    expect(map.inherent.filter((c) => c.count).map((c) => [c.likelihood, c.impact, c.count])).toEqual([[2, 3, 1]]);
    expect(map.residual.filter((c) => c.count).map((c) => [c.likelihood, c.impact, c.count])).toEqual([[1, 2, 1]]);
    // Her review of 2025-01-15 plus twelve months: overdue, counted from the kept days.
    const reviews = (await dueSoon(env.ctx.db, await alice.actor())).find((r) => r.kind.key === 'riskReviewsDue')!;
    expect([reviews.overdue, reviews.items.map((i) => i.due)]).toEqual([1, ['2026-01-15']]);
  });

  test('controls scheduled, tested, moved, unscheduled, retired and deleted', async () => {
    const create = (input: Record<string, unknown>) => env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: unique('Kept control'), ...input }));
    const tested = await create({ ownerId: alice.id, testFrequencyMonths: 6 });
    const never = await create({ ownerId: alice.id, testFrequencyMonths: 12 });
    const moved = await create({ ownerId: alice.id, testFrequencyMonths: 3 });
    const retired = await create({ ownerGroupId: bob.groupId, testFrequencyMonths: 3 });
    const gone = await create({ ownerId: bob.id, testFrequencyMonths: 1 });
    await env.ctx.db.transaction((tx) => recordControlTest(tx, admin, tested.id, { testedOn: '2025-03-01', result: 'pass' }));
    await env.ctx.db.transaction((tx) => recordControlTest(tx, admin, moved.id, { testedOn: '2025-04-01', result: 'fail' }));
    await env.ctx.db.transaction((tx) => updateRecord(tx, controlKind, admin, moved.id, { ownerId: bob.id }));
    await env.ctx.db.transaction((tx) => updateRecord(tx, controlKind, admin, retired.id, { status: 'retired' }));
    await env.ctx.db.transaction((tx) => recordControlTest(tx, admin, gone.id, { testedOn: '2025-05-01', result: 'pass' }));
    await env.ctx.db.transaction((tx) => deleteRecord(tx, controlKind, admin, gone.id));
    for (const pair of await keptAndCounted()) expect(pair.kept).toEqual(pair.counted);

    // Alice: the tested control (2025-03-01 + 6 months, overdue) and the one never tested (due today).
    const tests = (await dueSoon(env.ctx.db, await alice.actor())).find((r) => r.kind.key === 'controlTestsDue')!;
    expect([tests.overdue, tests.soon, tests.items.length]).toEqual([1, 1, 2]);
    expect(tests.items[0].due).toBe('2025-09-01');
    await env.ctx.db.transaction((tx) => updateRecord(tx, controlKind, admin, never.id, { testFrequencyMonths: null }));
    for (const pair of await keptAndCounted()) expect(pair.kept).toEqual(pair.counted);
  });

  // At level all the statement reads the exceptions alone (every exception has its parent); at level own it joins the
  // parents, whose owners count too.
  test('risk exceptions expiring: every one at level all, those on the reader\'s risks at level own', async () => {
    const today = todayIso();
    const hers = await makeRisk(env, admin, { title: unique('Excepted A'), ownerId: alice.id });
    const his = await makeRisk(env, admin, { title: unique('Excepted B'), ownerId: bob.id });
    const title = unique('Her exception');
    await env.ctx.db.transaction((tx) => createException(tx, riskParent, admin, { parentId: hers, title, description: 'Until the upgrade', expiresAt: daysAfter(today, 10) }));
    await env.ctx.db.transaction((tx) => createException(tx, riskParent, admin, { parentId: his, title: unique('His exception'), description: 'Until the move', expiresAt: daysAfter(today, 12) }));
    const kind = async (viewer: Actor) => (await dueSoon(env.ctx.db, viewer, today)).find((r) => r.kind.key === 'riskExceptionsExpiring')!;
    const [{ n }] = await selectRows<{ n: number }>(env.ctx.db, sql`select count(*)::int as n from exceptions
      where parent_type = 'risk' and status in ('requested', 'approved') and expires_at <= ${daysAfter(today, 30)}::date`);
    const all = await kind(admin);
    expect(all.overdue + all.soon).toBe(n);
    const own = await kind(await alice.actor());
    expect([own.overdue, own.soon, own.items.map((i) => i.title)]).toEqual([0, 1, [title]]);
  });
});
