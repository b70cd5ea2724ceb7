import { sql } from 'drizzle-orm';
import { accountReviewItems, accountReviewPrograms } from '../../../db/schema';
import { kindEvents, type DueDateDeclaration, type RecordEvents } from '../../platform/notifications/declarations';
import { programKind } from './service';

export const accountReviewEvents: RecordEvents[] = [kindEvents(programKind)];

/** Open programs past their end with accounts still undecided: one line per program, counting them. */
export const accountReviewDueDates: DueDateDeclaration[] = [{
  key: 'accountReviewsOverdue', label: 'Account reviews open past their end', recordType: programKind.recordType, dateWord: 'due',
  query: (w) => sql`select ${accountReviewPrograms.id}::text as record_id, ${accountReviewPrograms.name} as title, ${accountReviewPrograms.dueOn} as due_on,
      ${accountReviewPrograms.ownerId} as owner_id, ${accountReviewPrograms.ownerGroupId} as owner_group_id,
      count(*) || case when count(*) = 1 then ' account not reviewed' else ' accounts not reviewed' end as note
    from ${accountReviewPrograms} join ${accountReviewItems} on ${accountReviewItems.programId} = ${accountReviewPrograms.id} and ${accountReviewItems.decision} is null
    where ${accountReviewPrograms.status} = 'open' and ${accountReviewPrograms.dueOn} < ${w.today}
    group by ${accountReviewPrograms.id}`,
}];
