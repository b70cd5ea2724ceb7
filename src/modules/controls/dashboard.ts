import { and, ne, sql } from 'drizzle-orm';
import { controlTestDueDays, controls } from '../../../db/schema';
import type { DueSoonKind } from '../../platform/dashboard/declarations';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { todayIso } from '../../platform/core/dates';

/** The day a control's next test falls due: a column kept by the database's triggers, outside the Drizzle schema. */
const NEXT_TEST_DUE = sql`${controls}.next_test_due`;

/**
 * Control tests coming due, of the controls the viewer may read: the last test plus the test frequency; a scheduled
 * control never tested is due today (as the reminder digests count it). Retired controls are not tested.
 */
export const controlDueSoon: DueSoonKind[] = [{
  key: 'controlTestsDue', label: 'Control tests', needs: 'controls:read', href: '/controls', itemHref: (id) => `/controls/${id}`,
  // next_test_due (migration 0043) is the last test plus the frequency, kept by triggers and indexed: a range read, not
  // every control's latest test. Null is a scheduled control never tested.
  query: (actor, until) => sql`select ${controls.id}::text as record_id, ${controls.name} as title,
      coalesce(${NEXT_TEST_DUE}, ${todayIso()}::date) as due_on
    from ${controls}
    where (${NEXT_TEST_DUE} <= ${until} or ${NEXT_TEST_DUE} is null) and ${controls.testFrequencyMonths} is not null
      and ${and(ne(controls.status, 'retired'), ownershipCondition(actor, 'controls:read', controls.ownerId, controls.ownerGroupId))}`,
  // The first few: the tested ones in the order of controls_test_due_name_idx (migration 0050), each part cut at n, then
  // the never tested (due today). One select with coalesce() in its order would sort every due control first.
  first: (actor, today, until, n) => {
    const scheduled = and(sql`${controls.testFrequencyMonths} is not null`, ne(controls.status, 'retired'),
      ownershipCondition(actor, 'controls:read', controls.ownerId, controls.ownerGroupId));
    return sql`(select ${controls.id}::text as record_id, ${controls.name} as title, ${NEXT_TEST_DUE} as due_on from ${controls}
        where ${NEXT_TEST_DUE} <= ${until} and ${scheduled} order by ${NEXT_TEST_DUE}, ${controls.name}, ${controls.id}::text limit ${n})
      union all
      (select ${controls.id}::text, ${controls.name}, ${today} from ${controls}
        where ${NEXT_TEST_DUE} is null and ${scheduled} order by ${controls.name}, ${controls.id}::text limit ${n})`;
  },
  // Counted from the scheduled controls' test days the database keeps per owner (migration 0050), null being due today.
  counts: (actor, today, until) => {
    const d = controlTestDueDays;
    const due = sql`coalesce(${d.dueOn}, ${today})`;
    return sql`select coalesce(sum(${d.n}) filter (where ${due} < ${today}), 0)::int as overdue,
        coalesce(sum(${d.n}) filter (where ${due} >= ${today}), 0)::int as soon
      from ${d} where ${and(sql`${due} <= ${until}`, ownershipCondition(actor, 'controls:read', d.ownerId, d.ownerGroupId))}`;
  },
}];
