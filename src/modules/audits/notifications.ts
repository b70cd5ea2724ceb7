import { sql } from 'drizzle-orm';
import { auditFindings } from '../../../db/schema';
import { kindEvents, type DueDateDeclaration, type RecordEvents } from '../../platform/notifications/declarations';
import { auditPlanKind, findingKind } from './service';

export const auditEvents: RecordEvents[] = [
  kindEvents(auditPlanKind),
  kindEvents(findingKind, { links: { auditPlanId: 'auditPlan', controlId: 'control' } }),
];

/** Findings not closed whose deadline has passed. */
export const auditDueDates: DueDateDeclaration[] = [{
  key: 'findingsOverdue', label: 'Audit findings past their deadline', recordType: findingKind.recordType, dateWord: 'due',
  query: (w) => sql`select ${auditFindings.id}::text as record_id, ${auditFindings.title} as title, ${auditFindings.deadline} as due_on,
      ${auditFindings.ownerId} as owner_id, ${auditFindings.ownerGroupId} as owner_group_id, null::text as note
    from ${auditFindings} where ${auditFindings.status} <> 'closed' and ${auditFindings.deadline} < ${w.today}`,
}];
