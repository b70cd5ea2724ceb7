import { sql } from 'drizzle-orm';
import { evidence } from '../../../db/schema';
import { kindEvents, milestoneReached, type DueDateDeclaration, type RecordEvents } from '../../platform/notifications/declarations';
import { evidenceKind } from './service';

export const evidenceEvents: RecordEvents[] = [
  kindEvents(evidenceKind, {
    labels: { validUntil: 'Valid until', collectedOn: 'Collected on' },
    links: { thirdPartyId: 'thirdParty' },
    activities: [{ key: 'file', label: 'File uploaded', actions: ['file.upload'] }],
  }),
];

/** Evidence 30 and 7 days before it stops being valid and on the day (as exceptions). */
export const evidenceDueDates: DueDateDeclaration[] = [{
  key: 'evidenceExpiring', label: 'Evidence expiring', recordType: evidenceKind.recordType, dateWord: 'expires',
  query: (w) => sql`select ${evidence.id}::text as record_id, ${evidence.title} as title, ${evidence.validUntil} as due_on,
      ${evidence.ownerId} as owner_id, ${evidence.ownerGroupId} as owner_group_id, null::text as note
    from ${evidence} where ${evidence.validUntil} is not null and ${milestoneReached(w, evidence.validUntil, evidence.updatedAt)}`,
}];
