import { sql } from 'drizzle-orm';
import { controlTests, controls } from '../../../db/schema';
import { kindEvents, monthsAfter, type DueDateDeclaration, type RecordEvents } from '../../platform/notifications/declarations';
import { controlKind } from './service';

export const controlEvents: RecordEvents[] = [
  kindEvents(controlKind, {
    activities: [{ key: 'test', label: 'Test recorded', recordType: 'controlTest', parentField: 'controlId' }],
  }),
];

/** Controls tested on a schedule whose next test is due: the last test plus the frequency, today when never tested. */
export const controlDueDates: DueDateDeclaration[] = [{
  key: 'controlTests', label: 'Control tests due', recordType: controlKind.recordType, dateWord: 'due',
  query: (w) => sql`select * from (
    select ${controls.id}::text as record_id, ${controls.name} as title,
      coalesce(${monthsAfter(sql`last.tested_on`, controls.testFrequencyMonths)}, ${w.today}) as due_on,
      ${controls.ownerId} as owner_id, ${controls.ownerGroupId} as owner_group_id, null::text as note
    from ${controls}
    left join (select ${controlTests.controlId} as control_id, max(${controlTests.testedOn}) as tested_on from ${controlTests} group by ${controlTests.controlId}) last
      on last.control_id = ${controls.id}
    where ${controls.testFrequencyMonths} is not null and ${controls.status} <> 'retired') due
    where due.due_on <= ${w.today}`,
}];
