import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { processingActivities, processingActivityReviews, users } from '../../../db/schema';
import { recordChange } from '../../platform/audit/history';
import { invalid, type FieldProblem } from '../../platform/core/errors';
import { addMonths, dateProblems, latestTodayIso, todayIso } from '../../platform/core/dates';
import type { DueSoonKind } from '../../platform/dashboard/declarations';
import { milestoneReached, type DueDateKind, type RecordEvents } from '../../platform/notifications/declarations';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { requireOnRecord, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { loadForAction } from '../../platform/records/records';
import type { ProcessingActivityReviewCreate, ProcessingActivityReviews, ProcessingActivityReviewView } from './schema';
import { processingActivityKind } from './service';

/** What History and the Audit Log call a review of a processing activity (shown in the activity's History). */
export const REVIEW_TYPE = 'processingActivityReview';

/** A review left without a next review day sets the next one this many months after it. */
export const DEFAULT_REVIEW_MONTHS = 12;

const PATH = '/data-privacy/processing-activities';

/** The processing activity for a review: 404 when unreadable, 403 without dataPrivacy:review (or at own level on another's). */
async function forReview(tx: DbOrTx, actor: Actor, id: string) {
  const row = await loadForAction(tx, processingActivityKind, actor, id, 'read');
  requireOnRecord(actor, 'dataPrivacy:review', row, `Processing activity ${id}`);
  return row;
}

/**
 * Records a periodic review of a processing activity (dataPrivacy:review on it): the day (today when left out, never
 * in the future), the reviewer (the actor when left out; else an active user), the outcome (changes needed says what,
 * in the notes) and the next review day, which is set on the activity (a year after the review when left out, none
 * when null). One transaction: the review and the activity's new next review day, each with History and Audit Log.
 */
export async function recordProcessingActivityReview(
  tx: DbOrTx, actor: Actor, id: string, input: ProcessingActivityReviewCreate, now = new Date(),
): Promise<{ id: string }> {
  const activity = await forReview(tx, actor, id);
  const today = todayIso(now);
  const reviewedOn = input.reviewedOn ?? today;
  const notes = (input.notes ?? '').trim();
  const problems: FieldProblem[] = [...dateProblems('reviewedOn', reviewedOn), ...dateProblems('nextReviewOn', input.nextReviewOn)];
  // Not in the future anywhere: a reviewer in UTC+14 may already be on the next day.
  if (!problems.length && reviewedOn > latestTodayIso(now)) problems.push({ field: 'reviewedOn', message: 'must not be in the future' });
  const nextReviewOn = input.nextReviewOn === undefined ? addMonths(reviewedOn, DEFAULT_REVIEW_MONTHS) : input.nextReviewOn;
  if (!problems.length && nextReviewOn && nextReviewOn <= reviewedOn) problems.push({ field: 'nextReviewOn', message: `must be after the review day (${reviewedOn})` });
  if (input.outcome === 'changes_needed' && !notes) problems.push({ field: 'notes', message: 'say which changes are needed' });
  const reviewerId = input.reviewerId ?? actor.userId ?? null;
  if (input.reviewerId) {
    const [reviewer] = await tx.select({ status: users.status }).from(users).where(eq(users.id, input.reviewerId));
    if (!reviewer || reviewer.status !== 'active') problems.push({ field: 'reviewerId', message: 'must be an active user' });
  }
  if (problems.length) throw invalid(problems);
  const [row] = await tx.insert(processingActivityReviews).values({
    processingActivityId: id, reviewedOn, reviewerId, outcome: input.outcome, notes, nextReviewOn,
  }).returning();
  await recordChange(tx, actor, {
    module: 'dataPrivacy', recordType: REVIEW_TYPE, recordId: row.id, action: 'create', before: null,
    after: { processingActivityId: id, reviewedOn, reviewerId, outcome: input.outcome, notes, nextReviewOn },
  });
  if (nextReviewOn !== activity.nextReviewOn) {
    await tx.update(processingActivities).set({ nextReviewOn, updatedAt: new Date() }).where(eq(processingActivities.id, id));
    await recordChange(tx, actor, {
      module: 'dataPrivacy', recordType: processingActivityKind.recordType, recordId: id, action: 'update',
      before: { nextReviewOn: activity.nextReviewOn }, after: { nextReviewOn }, details: { review: row.id },
    });
  }
  return { id: row.id };
}

/** A processing activity's reviews, newest first, with its next review day (dataPrivacy:read on it). */
export async function listProcessingActivityReviews(db: DbOrTx, actor: Actor, id: string, now = new Date()): Promise<ProcessingActivityReviews> {
  const activity = await loadForAction(db, processingActivityKind, actor, id, 'read');
  const rows = await db.select({ review: processingActivityReviews, name: users.name }).from(processingActivityReviews)
    .leftJoin(users, eq(users.id, processingActivityReviews.reviewerId))
    .where(eq(processingActivityReviews.processingActivityId, id))
    .orderBy(desc(processingActivityReviews.reviewedOn), desc(processingActivityReviews.createdAt));
  const reviews: ProcessingActivityReviewView[] = rows.map(({ review: r, name }) => ({
    id: r.id, processingActivityId: r.processingActivityId, reviewedOn: r.reviewedOn,
    reviewer: r.reviewerId ? { id: r.reviewerId, name: name ?? '(deleted)' } : null,
    outcome: r.outcome, notes: r.notes, nextReviewOn: r.nextReviewOn, createdAt: r.createdAt.toISOString(),
  }));
  const next = activity.nextReviewOn ?? null;
  return { nextReviewOn: next, overdue: next !== null && next < todayIso(now), reviews };
}

/** Activities still carried out (not retired) whose next review is set. */
const reviewDue = and(sql`${processingActivities.nextReviewOn} is not null`, sql`${processingActivities.status} <> 'retired'`);

/** The owner's daily digest: "Processing activity reviews due" 30, 7 and 0 days before the next review (as TIAs). */
export const processingActivityReviewDueDates: DueDateKind[] = [{
  key: 'processingActivityReviews', label: 'Processing activity reviews due', module: 'dataPrivacy', dateWord: 'due',
  href: (id) => `${PATH}/${id}`,
  query: (w) => sql`select ${processingActivities.id}::text as record_id, ${processingActivities.name} as title,
      ${processingActivities.nextReviewOn} as due_on, ${processingActivities.ownerId} as owner_id,
      ${processingActivities.ownerGroupId} as owner_group_id, null::text as note
    from ${processingActivities}
    where ${reviewDue} and ${milestoneReached(w, processingActivities.nextReviewOn, processingActivities.updatedAt)}`,
}];

/** The Dashboard's "Overdue and due in the next 30 days": reviews of the processing activities the viewer may read. */
export const processingActivityDueSoon: DueSoonKind[] = [{
  key: 'processingActivityReviewsDue', label: 'Processing activity reviews', needs: 'dataPrivacy:read', href: PATH, itemHref: (id) => `${PATH}/${id}`,
  query: (actor, until) => {
    requirePermission(actor, 'dataPrivacy:read');
    return sql`select ${processingActivities.id}::text as record_id, ${processingActivities.name} as title, ${processingActivities.nextReviewOn} as due_on
      from ${processingActivities}
      where ${processingActivities.nextReviewOn} <= ${until}
        and ${and(reviewDue, ownershipCondition(actor, 'dataPrivacy:read', processingActivities.ownerId, processingActivities.ownerGroupId))}`;
  },
}];

/** A review as History, the Audit Log and notification rules name it: part of its processing activity, read with it. */
export const processingActivityReviewEvents: RecordEvents = {
  recordType: REVIEW_TYPE, label: 'Processing activity review', module: 'dataPrivacy', titleField: 'reviewedOn',
  fields: {
    processingActivityId: 'Processing activity', reviewedOn: 'Reviewed on', reviewerId: 'Reviewer', outcome: 'Outcome', notes: 'Notes',
    nextReviewOn: 'Next review on',
  },
  values: { outcome: { no_change: 'No change', changes_needed: 'Changes needed' } },
  people: ['reviewerId'],
  links: { processingActivityId: 'processingActivity' },
  async load(db, ids) {
    if (ids.length === 0) return new Map();
    const rows = await db.select({
      id: processingActivityReviews.id, reviewedOn: processingActivityReviews.reviewedOn, activityId: processingActivities.id,
      name: processingActivities.name, ownerId: processingActivities.ownerId, ownerGroupId: processingActivities.ownerGroupId,
    }).from(processingActivityReviews).innerJoin(processingActivities, eq(processingActivities.id, processingActivityReviews.processingActivityId))
      .where(inArray(processingActivityReviews.id, ids));
    return new Map(rows.map((r) => [r.id, {
      title: `Review of ${r.name} on ${r.reviewedOn}`, owners: [{ ownerId: r.ownerId, ownerGroupId: r.ownerGroupId }], href: `${PATH}/${r.activityId}`,
    }]));
  },
};
