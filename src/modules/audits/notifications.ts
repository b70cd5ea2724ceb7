import { sql } from 'drizzle-orm';
import { auditFindings } from '../../../db/schema';
import { kindEvents, type DueDateKind, type RecordEvents } from '../../platform/notifications/declarations';
import { auditPlanKind, findingKind } from './service';

export const auditEvents: RecordEvents[] = [
  kindEvents(auditPlanKind, { href: (id) => `/audits/${id}` }),
  kindEvents(findingKind, { href: (id) => `/audits/findings/${id}`, links: { auditPlanId: 'auditPlan', controlId: 'control' } }),
];

/** Findings not closed whose deadline has passed. */
export const auditDueDates: DueDateKind[] = [{
  key: 'findingsOverdue', label: 'Audit findings past their deadline', module: 'audits', dateWord: 'due', href: (id) => `/audits/findings/${id}`,
  query: (w) => sql`select ${auditFindings.id}::text as record_id, ${auditFindings.title} as title, ${auditFindings.deadline} as due_on,
      ${auditFindings.ownerId} as owner_id, ${auditFindings.ownerGroupId} as owner_group_id, null::text as note
    from ${auditFindings} where ${auditFindings.status} <> 'closed' and ${auditFindings.deadline} < ${w.today}`,
}];
