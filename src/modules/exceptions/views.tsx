import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { FilterBar, matchingCount } from '../../../views/components/filter-bar';
import { Pager } from '../../../views/components/pager';
import { DataTable, Text } from '../../../views/components/table';
import { holdsEveryRight, type Actor } from '../../platform/permissions/permissions';
import type { ExceptionView } from './schema';
import { HistoryTable } from '../../platform/record-screens/record-views';
import type { ShownEntry } from '../../platform/records/history-format';

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
export function DecisionButtons({ e, csrfToken, base, decider, back }: { e: ExceptionView; csrfToken: string; base: string; decider: Decider; back?: 'record' }): JSX.Element {
  const ownRequest = e.requestedById !== null && e.requestedById === decider.userId;
  if (ownRequest && !decider.mayOverride) return <span class="muted">You requested it: another reviewer decides.</span>;
  return (
    <form method="post" action={`${base}/${e.id}/decision`} class="inline">
      <CsrfField token={csrfToken} />
      {back && <input type="hidden" name="back" value={back} />}
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
  /** The list's filters and sort as the address holds them (kept by paging, sorting and Export). */
  filters: ExceptionListFilters;
  owners: Option[];
  canReview: boolean;
  decider: Decider;
  done?: string;
  error?: string;
}

export interface ExceptionListFilters {
  q: string;
  status: string;
  expired: string;
  ownerId: string;
  sort: string;
}

/** The list's address with its filters, sort and page (and the same for its CSV export). */
export function exceptionListHref(base: string, f: ExceptionListFilters, extra: { page?: number; sort?: string } = {}, path = base): string {
  const params = new URLSearchParams(Object.entries({ q: f.q, status: f.status, expired: f.expired, ownerId: f.ownerId, sort: extra.sort ?? f.sort })
    .filter(([, value]) => value !== ''));
  if ((extra.page ?? 1) > 1) params.set('page', String(extra.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

const DONE: Record<string, string> = { approved: 'Exception approved.', rejected: 'Exception rejected.' };

export function ExceptionList(p: ExceptionListProps): JSX.Element {
  const f = p.filters;
  const filtered = Boolean(f.q || f.status || f.expired || f.ownerId);
  const target = '#exception-results';
  const count = `${p.total.toLocaleString('en')} exception${p.total === 1 ? '' : 's'}`;
  return (
    <>
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <FormError message={p.error} />
      <FilterBar action={p.base} id="exception-filters" label={`Filter ${p.title.toLowerCase()}`} target={target} filtered={filtered}
        search={{ value: f.q, label: 'Search titles' }}
        filters={[
          { name: 'status', label: 'Status', selected: f.status, options: Object.entries(EXCEPTION_STATUS_LABELS).map(([value, label]) => ({ value, label })) },
          { name: 'expired', label: 'Expiry', selected: f.expired, options: [{ value: 'true', label: 'Expired' }, { value: 'false', label: 'Not expired' }] },
          { name: 'ownerId', label: 'Owner', selected: f.ownerId, options: p.owners, any: 'Anyone' },
        ]} />
      <section id="exception-results" aria-live="polite" aria-label={p.title}>
        <p class="results-bar">
          <span class="muted" safe>{filtered ? matchingCount(count, p.total) : count}</span>
          {p.total > 0 && <a class="button secondary small" href={exceptionListHref(p.base, f, {}, `${p.base}/export.csv`)} download="">Export CSV</a>}
        </p>
      <DataTable<ExceptionView>
        id="exceptions"
        rows={p.rows}
        empty={filtered ? 'No exceptions match these filters.' : 'No exceptions yet.'}
        sort={{ current: f.sort, href: (sort) => exceptionListHref(p.base, f, { sort }), target, form: 'exception-filters' }}
        columns={[
          { header: 'Title', sort: 'title', cell: (e) => <a href={`${p.base}/${e.id}`} safe>{e.title}</a> },
          { header: p.parentLabel, cell: (e) => <a href={`${p.parentBase}/${e.parentId}`} safe>{e.parent.title}</a> },
          { header: 'Status', sort: 'status', cell: (e) => <Text value={EXCEPTION_STATUS_LABELS[e.status] ?? e.status} /> },
          { header: 'Expires', sort: 'expiresAt', cell: (e) => <Expiry e={e} /> },
          { header: 'Owner', sort: 'owner', cell: (e) => <Text value={e.owner?.name ?? e.ownerGroup?.name ?? '—'} /> },
          { header: 'Approver', sort: 'approver', cell: (e) => <Text value={e.approver?.name ?? '—'} /> },
          ...(p.canReview ? [{ header: 'Decision', cell: (e: ExceptionView) => (e.status === 'requested' ? <DecisionButtons e={e} csrfToken={p.csrfToken} base={p.base} decider={p.decider} /> : <Text value={e.decisionNote} />) }] : []),
        ]}
      />
      <Pager page={p.page} pageSize={p.pageSize} total={p.total} href={(n: number) => exceptionListHref(p.base, f, { page: n })} target={target} />
      </section>
    </>
  );
}

export interface ExceptionPageProps {
  e: ExceptionView;
  /** Screen path of this parent kind's exceptions (/risks/exceptions) and of a parent (/risks). */
  base: string;
  parentBase: string;
  parentLabel: string;
  csrfToken: string;
  history: ShownEntry[];
  canUpdate: boolean;
  canReview: boolean;
  decider: Decider;
  done?: string;
  /** A refused edit or decision: what was typed, shown again with the problems. */
  refused?: { values: ExceptionRequestValues; errors: FieldErrors; message: string };
}

const PAGE_DONE: Record<string, string> = { updated: 'Exception updated.', ...DONE };

/** One exception: its fields, the edit form while it is requested, the decision for a reviewer, and its History. */
export function ExceptionPage(p: ExceptionPageProps): JSX.Element {
  const e = p.e;
  const v = p.refused?.values ?? { title: e.title, description: e.description, expiresAt: e.expiresAt };
  return (
    <>
      <nav class="breadcrumbs" aria-label="Breadcrumb">
        <a href={p.base} safe>{`← All ${p.parentLabel.toLowerCase()} exceptions`}</a>
      </nav>
      <Flash kind="success" message={p.done ? PAGE_DONE[p.done] : undefined} />
      {/* A refusal with no form to show it in (a decision, an edit of a decided exception). */}
      {!(p.canUpdate && e.status === 'requested') && <FormError message={p.refused?.message} />}
      <dl class="card details">
        <dt safe>{p.parentLabel}</dt><dd><a href={`${p.parentBase}/${e.parentId}`} safe>{e.parent.title}</a></dd>
        <dt>Status</dt><dd safe>{EXCEPTION_STATUS_LABELS[e.status] ?? e.status}</dd>
        <dt>Expires on</dt><dd><Expiry e={e} /></dd>
        <dt>Owner</dt><dd safe>{e.owner?.name ?? e.ownerGroup?.name ?? '—'}</dd>
        <dt>Approver</dt><dd safe>{e.approver?.name ?? '—'}</dd>
        {e.status !== 'requested' && <><dt>Decision note</dt><dd class="prewrap" safe>{e.decisionNote || '—'}</dd></>}
        <dt>Description</dt><dd class="prewrap" safe>{e.description}</dd>
      </dl>
      {p.canReview && e.status === 'requested' && (
        <section class="card" aria-labelledby="decide-heading">
          <h2 id="decide-heading">Decide</h2>
          <DecisionButtons e={e} csrfToken={p.csrfToken} base={p.base} decider={p.decider} back="record" />
        </section>
      )}
      {p.canUpdate && e.status === 'requested' && (
        <form method="post" action={`${p.base}/${e.id}`} class="card" id="edit-exception">
          <h2>Edit the request</h2>
          <FormError message={p.refused?.message} />
          <CsrfField token={p.csrfToken} />
          <Field label="Title" name="exceptionTitle" value={v.title} error={p.refused?.errors.title} required maxlength={300} />
          <Field label="Description" name="exceptionDescription" type="textarea" value={v.description} error={p.refused?.errors.description} required />
          <Field label="Expires on" name="expiresAt" type="date" value={v.expiresAt} error={p.refused?.errors.expiresAt} required />
          <p class="actions"><button type="submit">Save changes</button><a href={`${p.base}/${e.id}`}>Cancel</a></p>
        </form>
      )}
      {p.canUpdate && e.status !== 'requested' && <p class="muted">A decided exception is not changed: request a new one.</p>}
      <h2 id="history-heading">History</h2>
      <HistoryTable id="exception-history" entries={p.history} />
    </>
  );
}
