import { renderMarkdown } from '../../platform/core/markdown';
import { CsrfField, Field, Select, type FieldErrors } from '../../../views/components/form';
import { Flash, FormError } from '../../../views/components/flash';
import { DataTable, Text, When } from '../../../views/components/table';
import { REVIEW_OUTCOMES, type PolicyApprovalView, type PolicyReviews, type PolicyVersionView } from './schema';

/** Markdown rendered by the platform's sanitising renderer: the only markup in it is what that renderer writes. */
export const RenderedMarkdown = ({ source, empty }: { source: string; empty: string }) =>
  source.trim()
    ? <div class="markdown card">{renderMarkdown(source)}</div>
    : <p class="muted" safe>{empty}</p>;

const outcomeLabel = (outcome: string) => (outcome === 'no_changes' ? 'No changes needed' : 'Changes required');

export interface FormState {
  values?: Record<string, string>;
  errors?: FieldErrors;
  error?: string;
}

export function ContentForm({ id, csrfToken, state = {} }: { id: string; csrfToken: string; state?: FormState }): JSX.Element {
  return (
    <form method="post" action={`/policies/${id}/content`} class="card form">
      <FormError message={state.error} />
      <CsrfField token={csrfToken} />
      <Field label="Content (Markdown)" name="content" type="textarea" value={state.values?.content} error={state.errors?.content}
        hint="Headings (#), **bold**, *italic*, lists (- or 1.), `code`, [links](https://…). HTML is shown as text." maxlength={100_000} />
      <p class="actions"><button type="submit">Save draft</button><a href={`/policies/${id}`}>Cancel</a></p>
    </form>
  );
}

export function ReviewForm({ id, csrfToken, state = {} }: { id: string; csrfToken: string; state?: FormState }): JSX.Element {
  return (
    <form method="post" action={`/policies/${id}/reviews`} class="card form">
      <FormError message={state.error} />
      <CsrfField token={csrfToken} />
      <Field label="Reviewed on" name="reviewedOn" type="date" required value={state.values?.reviewedOn} error={state.errors?.reviewedOn} />
      <Field label="Outcome" name="outcome" required error={state.errors?.outcome}>
        <Select name="outcome" selected={state.values?.outcome} options={REVIEW_OUTCOMES.map((o) => ({ value: o, label: outcomeLabel(o) }))} />
      </Field>
      <Field label="Notes" name="notes" type="textarea" value={state.values?.notes} error={state.errors?.notes} />
      <button type="submit">Record review</button>
    </form>
  );
}

export function ApprovalForm({ id, csrfToken, versions, state = {} }: {
  id: string; csrfToken: string; versions: PolicyVersionView[]; state?: FormState;
}): JSX.Element {
  return (
    <form method="post" action={`/policies/${id}/approvals`} class="card form">
      <FormError message={state.error} />
      <CsrfField token={csrfToken} />
      <Field label="Approver" name="approverName" required value={state.values?.approverName} error={state.errors?.approverName} maxlength={300} />
      <Field label="Approved on" name="approvedOn" type="date" required value={state.values?.approvedOn} error={state.errors?.approvedOn} />
      <Field label="Version" name="version" error={state.errors?.version}>
        <Select name="version" selected={state.values?.version} options={versions.map((v) => ({ value: String(v.version), label: `Version ${v.version}` }))} />
      </Field>
      <button type="submit">Record approval</button>
    </form>
  );
}

export interface PolicySectionsProps {
  id: string;
  content: string;
  status: string;
  currentVersion: number | null;
  versions: PolicyVersionView[];
  reviews: PolicyReviews;
  approvals: PolicyApprovalView[];
  canUpdate: boolean;
  canReview: boolean;
  approvalsAllowed: boolean;
  csrfToken: string;
}

/** The detail page's own sections: content (rendered), publishing, versions, reviews and outside approvals. */
export function PolicySections(p: PolicySectionsProps): JSX.Element {
  const latest = p.versions[0];
  const draftDiffers = latest ? latest.content !== p.content : p.content.trim() !== '';
  return (
    <>
      <section>
        <h2>Content</h2>
        <p class="muted" safe>{p.currentVersion
          ? `Published: version ${p.currentVersion}.${draftDiffers ? ' The draft below has changes not yet published.' : ''}`
          : 'Draft: not published yet.'}</p>
        <RenderedMarkdown source={p.content} empty="No content yet." />
        {p.canUpdate && (
          <p class="actions">
            <a class="button" href={`/policies/${p.id}/content`}>Edit content</a>
            <a class="button" href={`/policies/${p.id}/exceptions/new`}>Request an exception</a>
            {draftDiffers && (
              <form method="post" action={`/policies/${p.id}/publish`} class="inline">
                <CsrfField token={p.csrfToken} />
                <button type="submit">{`Publish as version ${(latest?.version ?? 0) + 1}`}</button>
              </form>
            )}
          </p>
        )}
      </section>
      <section>
        <h2>Versions</h2>
        <DataTable<PolicyVersionView>
          rows={p.versions}
          empty="Never published."
          columns={[
            { header: 'Version', cell: (v) => <a href={`/policies/${p.id}/versions/${v.version}`} safe>{`Version ${v.version}`}</a> },
            { header: 'Published', cell: (v) => <When value={v.publishedAt} /> },
            { header: 'By', cell: (v) => <Text value={v.publishedByName ?? 'system'} /> },
          ]}
        />
      </section>
      <section>
        <h2>Reviews</h2>
        <p safe>{`Reviewed every ${p.reviews.frequencyMonths} months. Last review: ${p.reviews.lastReviewedOn ?? 'never'}. Next review due: ${p.reviews.nextReviewDue ?? 'after the first publication'}.`}</p>
        <DataTable
          rows={p.reviews.reviews}
          empty="No reviews recorded."
          columns={[
            { header: 'Date', cell: (r) => <Text value={r.reviewedOn} /> },
            { header: 'Reviewer', cell: (r) => <Text value={r.reviewerName} /> },
            { header: 'Outcome', cell: (r) => <Text value={outcomeLabel(r.outcome)} /> },
            { header: 'Notes', cell: (r) => <Text value={r.notes} /> },
          ]}
        />
        {p.canReview && <ReviewForm id={p.id} csrfToken={p.csrfToken} />}
      </section>
      <section>
        <h2>Approvals recorded outside the app</h2>
        <DataTable<PolicyApprovalView>
          rows={p.approvals}
          empty="No approvals recorded."
          columns={[
            { header: 'Version', cell: (a) => <Text value={a.version} /> },
            { header: 'Approver', cell: (a) => <Text value={a.approverName} /> },
            { header: 'Approved on', cell: (a) => <Text value={a.approvedOn} /> },
          ]}
        />
        {p.canReview && p.approvalsAllowed && p.versions.length > 0 && <ApprovalForm id={p.id} csrfToken={p.csrfToken} versions={p.versions} />}
        {p.canReview && !p.approvalsAllowed && (
          <p class="muted">Recording approvals given outside the app is turned off (Settings › Policy settings).</p>
        )}
      </section>
    </>
  );
}

export function VersionPage({ id, version }: { id: string; version: PolicyVersionView }): JSX.Element {
  return (
    <>
      <p class="actions"><a href={`/policies/${id}`}>← Back to the policy</a></p>
      <p class="muted" safe>{`Published ${version.publishedAt.slice(0, 16).replace('T', ' ')} UTC by ${version.publishedByName ?? 'system'}. Published versions never change.`}</p>
      <RenderedMarkdown source={version.content} empty="(empty)" />
    </>
  );
}

export function PolicySettingsForm({ allowOutsideApprovals, canUpdate, csrfToken, saved }: {
  allowOutsideApprovals: boolean; canUpdate: boolean; csrfToken: string; saved?: boolean;
}): JSX.Element {
  return (
    <form method="post" action="/settings/policies" class="card form">
      <Flash kind="success" message={saved ? 'Saved.' : undefined} />
      <CsrfField token={csrfToken} />
      <div class="field">
        <label>
          <input type="checkbox" name="allowOutsideApprovals" value="on" checked={allowOutsideApprovals} disabled={!canUpdate} />
          {' Allow recording outside approvals'}
        </label>
        <span class="hint">Lets people with the Review right on Policies record approvals given outside the app (approver name and date).</span>
      </div>
      {canUpdate && <button type="submit">Save</button>}
    </form>
  );
}
