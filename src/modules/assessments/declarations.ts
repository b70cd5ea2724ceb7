import { sql } from 'drizzle-orm';
import { assessmentRequests, assessmentTemplates } from '../../../db/schema';
import { ownedRecordEvents, type DueDateDeclaration, type RecordEvents } from '../../platform/notifications/declarations';
import type { RecordTypeDeclaration } from '../../platform/records/record-types';
import { STATUS_LABELS } from './schema';
import { REQUEST_TYPE, TEMPLATE_TYPE } from './service';

/**
 * What the platform reads of assessments besides the routes: the record types (so History, the Audit Log and links
 * name a questionnaire and a template by their titles, and label them as the screens do), the fields and statuses
 * their History entries carry, and the overdue questionnaires of the daily digest.
 */

export const assessmentRecordTypes: RecordTypeDeclaration[] = [
  {
    kind: TEMPLATE_TYPE, label: 'Questionnaire template', plural: 'Questionnaire templates', module: 'assessments',
    table: assessmentTemplates, id: assessmentTemplates.id, title: assessmentTemplates.title,
    ownerId: assessmentTemplates.ownerId, ownerGroupId: assessmentTemplates.ownerGroupId,
    href: (id) => `/assessments/templates/${id}`,
  },
  {
    kind: REQUEST_TYPE, label: 'Questionnaire', plural: 'Questionnaires', module: 'assessments',
    table: assessmentRequests, id: assessmentRequests.id, title: assessmentRequests.title,
    ownerId: assessmentRequests.ownerId, ownerGroupId: assessmentRequests.ownerGroupId,
    href: (id) => `/assessments/requests/${id}`,
  },
];

/** Columns that are the machinery of a link or a response, not something a person changes or a rule watches. */
const INTERNAL = new Set(['secretHash', 'answers', 'review', 'revision', 'templateVersionId', 'shippedKey']);
const withoutInternal = (e: RecordEvents): RecordEvents => ({ ...e, fields: Object.fromEntries(Object.entries(e.fields).filter(([k]) => !INTERNAL.has(k))) });

export const assessmentEvents: RecordEvents[] = [
  withoutInternal(ownedRecordEvents({
    recordType: TEMPLATE_TYPE, label: 'Questionnaire template', module: 'assessments', table: assessmentTemplates, titleColumn: assessmentTemplates.title,
    labels: { version: 'Version', questions: 'Questions' },
  })),
  {
    ...withoutInternal(ownedRecordEvents({
      recordType: REQUEST_TYPE, label: 'Questionnaire', module: 'assessments', table: assessmentRequests, titleColumn: assessmentRequests.title,
      statusColumn: assessmentRequests.status, people: ['reviewerId'], links: { thirdPartyId: 'thirdParty', templateId: TEMPLATE_TYPE },
      labels: {
        respondentEmail: 'Sent to', respondentName: "Respondent's name", dueOn: 'Due on', expiresAt: 'Link expires', score: 'Score',
        submittedAt: 'Submitted at', reviewedAt: 'Reviewed at', reviewerId: 'Reviewer', templateId: 'Template',
      },
    })),
    statuses: STATUS_LABELS,
  },
];

/**
 * Questionnaires past their due date and not submitted: reminded every sweep to the request's owner (the person who
 * sent it, unless it was given another owner or group), who can send a reminder with a new link or revoke it.
 */
export const assessmentDueDates: DueDateDeclaration[] = [{
  key: 'assessmentsOverdue', label: 'Questionnaires past their due date, not submitted', recordType: REQUEST_TYPE, dateWord: 'due',
  query: (w) => sql`select ${assessmentRequests.id}::text as record_id, ${assessmentRequests.title} as title, ${assessmentRequests.dueOn} as due_on,
      ${assessmentRequests.ownerId} as owner_id, ${assessmentRequests.ownerGroupId} as owner_group_id,
      'sent to ' || ${assessmentRequests.respondentEmail} || '; '
        || case ${assessmentRequests.status} when 'sent' then 'not answered yet' when 'in_progress' then 'a draft is saved, not submitted'
             else 'returned for changes, not submitted again' end
        || case when ${assessmentRequests.expiresAt}::date < ${w.today} then '; its link has expired: a reminder sends a new one' else '' end as note
    from ${assessmentRequests}
    where ${assessmentRequests.status} in ('sent', 'in_progress', 'returned') and ${assessmentRequests.dueOn} < ${w.today}`,
}];
