import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors } from '../../../views/components/form';
import { Pager } from '../../../views/components/pager';
import { DataTable, Text } from '../../../views/components/table';
import { holdsEveryRight, type Actor } from '../../platform/permissions/permissions';
import type { ExceptionView } from './schema';

export const EXCEPTION_STATUS_LABELS: Record<string, string> = { requested: 'Requested', approved: 'Approved', rejected: 'Rejected' };

/** The expiry date, marked when it has passed. */
export const Expiry = ({ e }: { e: Pick<ExceptionView, 'expiresAt' | 'expired'> }) =>
  e.expired ? <span><span safe>{e.expiresAt}</span> <span class="tag tag-late">Expired</span></span> : <span safe>{e.expiresAt}</span>;

export interface ExceptionRequestValues {
  title: string;
  description: string;
  expiresAt: string;
}

/** Request form for one parent; posts to `action`. Field names are prefixed so it can share a page with other forms. */
export function ExceptionRequestForm({ action, csrfToken, values, errors, error }: {
  action: string; csrfToken: string; values?: ExceptionRequestValues; errors?: FieldErrors; error?: string;
}): JSX.Element {
  const v = values ?? { title: '', description: '', expiresAt: '' };
  return (
    <form method="post" action={action} class="card" id="request-exception">
      <h3>Request an exception</h3>
      <FormError message={error} />
      <CsrfField token={csrfToken} />
      <Field label="Title" name="exceptionTitle" value={v.title} error={errors?.title} required maxlength={300} />
      <Field label="Description" name="exceptionDescription" type="textarea" value={v.description} error={errors?.description} required />
      <Field label="Expires on" name="expiresAt" type="date" value={v.expiresAt} error={errors?.expiresAt} required />
      <button type="submit">Request exception</button>
    </form>
  );
}

/** Who is looking at the decision buttons: the requester of an exception does not decide it unless an administrator overrides. */
export interface Decider {
  userId: string | null;
  mayOverride: boolean;
}
export const deciderOf = (viewer: Actor): Decider => ({ userId: viewer.userId, mayOverride: holdsEveryRight(viewer) });

/** Approve and reject buttons for a requested exception; for its requester, the administrator's override or a sentence why not. */
export function DecisionButtons({ e, csrfToken, base, decider }: { e: ExceptionView; csrfToken: string; base: string; decider: Decider }): JSX.Element {
  const ownRequest = e.requestedById !== null && e.requestedById === decider.userId;
  if (ownRequest && !decider.mayOverride) return <span class="muted">You requested it: another reviewer decides.</span>;
  return (
    <form method="post" action={`${base}/${e.id}/decision`} class="inline">
      <CsrfField token={csrfToken} />
      <label class="visually-hidden" for={`note-${e.id}`}>{ownRequest ? 'Why you decide your own request (required)' : 'Decision note'}</label>
      <input id={`note-${e.id}`} name="note" placeholder={ownRequest ? 'Why (required)' : 'Note'} maxlength={10000} required={ownRequest} />
      {ownRequest && (
        <label class="inline"><input type="checkbox" name="override" value="on" required /> Override: I requested it</label>
      )}
      <button type="submit" name="decision" value="approved">Approve</button>
      <button type="submit" name="decision" value="rejected" class="danger">Reject</button>
    </form>
  );
}

export interface ExceptionListProps {
  title: string;
  /** Screen path of this parent kind's exceptions, e.g. /risks/exceptions. */
  base: string;
  /** Screen path of a parent, e.g. /risks. */
  parentBase: string;
  parentLabel: string;
  csrfToken: string;
  rows: ExceptionView[];
  total: number;
  page: number;
  pageSize: number;
  status: string;
  expired: string;
  canReview: boolean;
  decider: Decider;
  done?: string;
  error?: string;
}

const DONE: Record<string, string> = { approved: 'Exception approved.', rejected: 'Exception rejected.' };

export function ExceptionList(p: ExceptionListProps): JSX.Element {
  const query = new URLSearchParams({ ...(p.status ? { status: p.status } : {}), ...(p.expired ? { expired: p.expired } : {}) }).toString();
  return (
    <>
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <FormError message={p.error} />
      <form method="get" action={p.base} class="actions" id="exception-filters">
        <label for="f-status">Status</label>
        <Select name="status" selected={p.status} options={[{ value: '', label: 'Any' }, ...Object.entries(EXCEPTION_STATUS_LABELS).map(([value, label]) => ({ value, label }))]} />
        <label for="f-expired">Expiry</label>
        <Select name="expired" selected={p.expired} options={[{ value: '', label: 'Any' }, { value: 'true', label: 'Expired' }, { value: 'false', label: 'Not expired' }]} />
        <button type="submit">Filter</button>
      </form>
      <DataTable<ExceptionView>
        id="exceptions"
        rows={p.rows}
        empty="No exceptions match."
        columns={[
          { header: 'Title', cell: (e) => <Text value={e.title} /> },
          { header: p.parentLabel, cell: (e) => <a href={`${p.parentBase}/${e.parentId}`} safe>{e.parent.title}</a> },
          { header: 'Status', cell: (e) => <Text value={EXCEPTION_STATUS_LABELS[e.status] ?? e.status} /> },
          { header: 'Expires', cell: (e) => <Expiry e={e} /> },
          { header: 'Owner', cell: (e) => <Text value={e.owner?.name ?? e.ownerGroup?.name ?? '—'} /> },
          { header: 'Approver', cell: (e) => <Text value={e.approver?.name ?? '—'} /> },
          ...(p.canReview ? [{ header: 'Decision', cell: (e: ExceptionView) => (e.status === 'requested' ? <DecisionButtons e={e} csrfToken={p.csrfToken} base={p.base} decider={p.decider} /> : <Text value={e.decisionNote} />) }] : []),
        ]}
      />
      <Pager page={p.page} pageSize={p.pageSize} total={p.total} href={(n: number) => `${p.base}?${query}${query ? '&' : ''}page=${n}`} />
    </>
  );
}
