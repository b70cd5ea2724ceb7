import { and, ne, sql } from 'drizzle-orm';
import { controlTests, controls } from '../../../db/schema';
import type { DueSoonKind } from '../../platform/dashboard/declarations';
import { monthsAfter } from '../../platform/notifications/declarations';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { todayIso } from '../../platform/core/dates';

/**
 * Control tests coming due, of the controls the viewer may read: the last test plus the test frequency; a scheduled
 * control never tested is due today (as the reminder digests count it). Retired controls are not tested.
 */
export const controlDueSoon: DueSoonKind[] = [{
  key: 'controlTestsDue', label: 'Control tests', needs: 'controls:read', href: '/controls', itemHref: (id) => `/controls/${id}`,
  query: (actor, until) => sql`select * from (
    select ${controls.id}::text as record_id, ${controls.name} as title,
      coalesce(${monthsAfter(sql`last.tested_on`, controls.testFrequencyMonths)}, ${todayIso()}::date) as due_on
    from ${controls}
    left join (select ${controlTests.controlId} as control_id, max(${controlTests.testedOn}) as tested_on from ${controlTests} group by ${controlTests.controlId}) last
      on last.control_id = ${controls.id}
    where ${controls.testFrequencyMonths} is not null
      and ${and(ne(controls.status, 'retired'), ownershipCondition(actor, 'controls:read', controls.ownerId, controls.ownerGroupId))}) due
    where due.due_on <= ${until}`,
}];
