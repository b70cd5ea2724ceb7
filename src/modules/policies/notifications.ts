import { sql } from 'drizzle-orm';
import { policies, policyReviews, policyVersions } from '../../../db/schema';
import { kindEvents, monthsAfter, type DueDateDeclaration, type RecordEvents } from '../../platform/notifications/declarations';
import { policyKind } from './service';

export const policyEvents: RecordEvents[] = [
  kindEvents(policyKind, {
    labels: { content: 'Content (draft)', currentVersion: 'Current version' },
    activities: [
      { key: 'review', label: 'Review recorded', recordType: 'policyReview', parentField: 'policyId' },
      { key: 'approval', label: 'Approval recorded', recordType: 'policyApproval', parentField: 'policyId' },
      { key: 'publish', label: 'Version published', actions: ['publish'] },
    ],
  }),
];

/** Published policies whose review is due: the last review, else the first publication, plus the review frequency. */
export const policyDueDates: DueDateDeclaration[] = [{
  key: 'policyReviews', label: 'Policy reviews due', recordType: policyKind.recordType, dateWord: 'due',
  query: (w) => sql`select * from (
    select ${policies.id}::text as record_id, ${policies.title} as title,
      ${monthsAfter(sql`coalesce(last.reviewed_on, (first.published_at at time zone 'UTC')::date)`, policies.reviewFrequencyMonths)} as due_on,
      ${policies.ownerId} as owner_id, ${policies.ownerGroupId} as owner_group_id, null::text as note
    from ${policies}
    left join (select ${policyReviews.policyId} as policy_id, max(${policyReviews.reviewedOn}) as reviewed_on from ${policyReviews} group by ${policyReviews.policyId}) last
      on last.policy_id = ${policies.id}
    left join ${policyVersions} first on first.policy_id = ${policies.id} and first.version = 1
    where ${policies.status} = 'published') due
    where due.due_on <= ${w.today}`,
}];
