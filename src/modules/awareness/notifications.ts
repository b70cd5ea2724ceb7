import { sql } from 'drizzle-orm';
import { awarenessPrograms, awarenessResults } from '../../../db/schema';
import { milestoneReached, type DueDateKind } from '../../platform/notifications/declarations';

/**
 * Training not passed by the end of its program's period: each person is reminded of their own, a week before the end,
 * on the day, and every sweep once overdue (the program's managers see the same on its completion page).
 */
export const awarenessDueDates: DueDateKind[] = [{
  key: 'awarenessTraining', label: 'Training to complete', module: 'awareness', dateWord: 'due', personal: true,
  href: (id) => `/awareness/my/${id}`,
  query: (w) => sql`select ${awarenessResults.id}::text as record_id, ${awarenessPrograms.title} as title, ${awarenessPrograms.endsOn} as due_on,
      ${awarenessResults.personId} as owner_id, null::uuid as owner_group_id,
      case ${awarenessResults.status} when 'failed' then 'not passed yet' when 'started' then 'started' else 'not started' end as note
    from ${awarenessResults} join ${awarenessPrograms} on ${awarenessPrograms.id} = ${awarenessResults.programId}
    where ${awarenessPrograms.status} = 'published' and ${awarenessResults.status} <> 'passed' and ${awarenessPrograms.endsOn} is not null
      and (${awarenessPrograms.startsOn} is null or ${awarenessPrograms.startsOn} <= ${w.today})
      and (${awarenessPrograms.endsOn} < ${w.today} or ${milestoneReached(w, awarenessPrograms.endsOn, awarenessResults.updatedAt, [7, 0])})`,
}];
