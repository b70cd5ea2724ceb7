import { and, ne, sql } from 'drizzle-orm';
import { controls } from '../../../db/schema';
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
}];
