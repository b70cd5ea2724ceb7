import { CsrfField, Field, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { FormError } from '../../../views/components/flash';
import { valueLabel } from '../../platform/core/value-labels';
import { REVIEW_OUTCOMES, type ProcessingActivityReviews } from './schema';

export interface ReviewFormState {
  values?: Record<string, string>;
  errors?: FieldErrors;
  error?: string;
  /** The day `reviewedOn` defaults to (the server's today), replaced in the browser by today in the reader's zone. */
  today?: string;
}

const OUTCOME_OPTIONS: Option[] = REVIEW_OUTCOMES.map((value) => ({ value, label: valueLabel(value) }));

/** "Record a review": the day, the reviewer, the outcome with its notes and the next review day. */
export function ReviewForm({ activityId, csrfToken, reviewers, state = {} }: {
  activityId: string; csrfToken: string; reviewers: Option[]; state?: ReviewFormState;
}): JSX.Element {
  const v = state.values ?? {};
  return (
    <form method="post" action={`/data-privacy/processing-activities/${activityId}/reviews`} class="form">
      <h3>Record a review</h3>
      <FormError message={state.error} />
      <CsrfField token={csrfToken} />
      <Field label="Reviewed on" name="reviewedOn" type="date" required value={v.reviewedOn} error={state.errors?.reviewedOn}
        today={state.today} hint="Not in the future; today where you are unless you change it" />
      <Field label="Reviewer" name="reviewerId" required error={state.errors?.reviewerId}>
        <Select name="reviewerId" selected={v.reviewerId} options={reviewers} />
      </Field>
      <Field label="Outcome" name="outcome" required error={state.errors?.outcome}>
        <Select name="outcome" selected={v.outcome} options={OUTCOME_OPTIONS} />
      </Field>
      <Field label="Notes" name="notes" type="textarea" value={v.notes} error={state.errors?.notes} hint="Required when changes are needed: say which" />
      <Field label="Next review on" name="nextReviewOn" type="date" value={v.nextReviewOn} error={state.errors?.nextReviewOn}
        hint="After the review day; blank gives a year after it" />
      <button type="submit">Record review</button>
    </form>
  );
}

/** The processing activity's periodic reviews: the next review day, the reviews recorded, and the form to those holding the review right. */
export function ActivityReviews({ activityId, reviews, csrfToken, reviewers, formState }: {
  activityId: string; reviews: ProcessingActivityReviews; csrfToken: string;
  /** The reviewers the form offers, when the viewer may record a review. */
  reviewers: Option[] | null;
  formState?: ReviewFormState;
}): JSX.Element {
  const next = reviews.nextReviewOn;
  return (
    <section class="card" aria-labelledby="activity-reviews" id="reviews">
      <h2 id="activity-reviews">Periodic reviews</h2>
      <p safe>{next ? `Next review on ${next}${reviews.overdue ? ' (overdue)' : ''}.` : 'No next review set.'}</p>
      {reviews.reviews.length === 0
        ? <p class="muted">No reviews recorded yet.</p>
        : (
          <div class="table-wrap">
            <table class="data">
              <caption class="visually-hidden">Reviews of this processing activity, newest first</caption>
              <thead><tr><th scope="col">Reviewed on</th><th scope="col">Reviewer</th><th scope="col">Outcome</th><th scope="col">Notes</th><th scope="col">Next review set</th></tr></thead>
              <tbody>
                {reviews.reviews.map((r) => (
                  <tr>
                    <td safe>{r.reviewedOn}</td>
                    <td safe>{r.reviewer?.name ?? '—'}</td>
                    <td safe>{valueLabel(r.outcome)}</td>
                    <td safe>{r.notes || '—'}</td>
                    <td safe>{r.nextReviewOn ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      {reviewers && <ReviewForm activityId={activityId} csrfToken={csrfToken} reviewers={reviewers} state={formState} />}
    </section>
  );
}
