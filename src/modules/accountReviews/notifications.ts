import { sql } from 'drizzle-orm';
import { accountReviewItems, accountReviewPrograms } from '../../../db/schema';
import { kindEvents, type DueDateKind, type RecordEvents } from '../../platform/notifications/declarations';
import { programKind } from './service';

export const accountReviewEvents: RecordEvents[] = [kindEvents(programKind, { href: (id) => `/account-reviews/${id}` })];

/** Open programs past their end with accounts still undecided: one line per program, counting them. */
export const accountReviewDueDates: DueDateKind[] = [{
  key: 'accountReviewsOverdue', label: 'Account reviews open past their end', module: 'accountReviews', dateWord: 'due',
  href: (id) => `/account-reviews/${id}`,
  query: (w) => sql`select ${accountReviewPrograms.id}::text as record_id, ${accountReviewPrograms.name} as title, ${accountReviewPrograms.dueOn} as due_on,
      ${accountReviewPrograms.ownerId} as owner_id, ${accountReviewPrograms.ownerGroupId} as owner_group_id,
      count(*) || case when count(*) = 1 then ' account not reviewed' else ' accounts not reviewed' end as note
    from ${accountReviewPrograms} join ${accountReviewItems} on ${accountReviewItems.programId} = ${accountReviewPrograms.id} and ${accountReviewItems.decision} is null
    where ${accountReviewPrograms.status} = 'open' and ${accountReviewPrograms.dueOn} < ${w.today}
    group by ${accountReviewPrograms.id}`,
}];
