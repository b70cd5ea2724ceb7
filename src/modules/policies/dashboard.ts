import { and, eq, sql } from 'drizzle-orm';
import { policies, policyReviews, policyVersions } from '../../../db/schema';
import type { DueSoonKind } from '../../platform/dashboard/declarations';
import { monthsAfter } from '../../platform/notifications/declarations';
import { ownershipCondition } from '../../platform/permissions/ownership';

/** Reviews of published policies coming due (the last review, else the first publication, plus the review frequency). */
export const policyDueSoon: DueSoonKind[] = [{
  key: 'policyReviewsDue', label: 'Policy reviews', needs: 'policies:read', href: '/policies', itemHref: (id) => `/policies/${id}`,
  query: (actor, until) => sql`select * from (
    select ${policies.id}::text as record_id, ${policies.title} as title,
      ${monthsAfter(sql`coalesce(last.reviewed_on, (first.published_at at time zone 'UTC')::date)`, policies.reviewFrequencyMonths)} as due_on
    from ${policies}
    left join (select ${policyReviews.policyId} as policy_id, max(${policyReviews.reviewedOn}) as reviewed_on from ${policyReviews} group by ${policyReviews.policyId}) last
      on last.policy_id = ${policies.id}
    left join ${policyVersions} first on first.policy_id = ${policies.id} and first.version = 1
    where ${and(eq(policies.status, 'published'), ownershipCondition(actor, 'policies:read', policies.ownerId, policies.ownerGroupId))}) due
    where due.due_on <= ${until}`,
}];
