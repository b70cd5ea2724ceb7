import type { RiskView } from '../schema';
import type { Page } from '../../../platform/http/paging';
import { Flash } from '../../../../views/components/flash';
import { Select, type Option } from '../../../../views/components/form';
import { Pager } from '../../../../views/components/pager';
import { DataTable, Text, When } from '../../../../views/components/table';
import { ScoreBadge, STATUS_LABELS, statusOptions } from './parts';

/** The list's filter state; it lives in the URL so a filtered list can be bookmarked, shared and reloaded. */
export interface RiskListState {
  q: string;
  status: string;
  classificationId: string;
  sort: string;
  page: number;
  pageSize: number;
}

export const SORT_OPTIONS: Option[] = [
  { value: '-createdAt', label: 'Newest first' },
  { value: 'createdAt', label: 'Oldest first' },
  { value: 'title', label: 'Title A–Z' },
  { value: '-title', label: 'Title Z–A' },
  { value: '-inherentScore', label: 'Inherent score, highest first' },
  { value: '-residualScore', label: 'Residual score, highest first' },
  { value: '-updatedAt', label: 'Recently updated' },
  { value: 'status', label: 'Status' },
];

/** The list's address for a state; defaults are left out so URLs stay short. */
export function riskListHref(state: RiskListState, page = state.page): string {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.status) params.set('status', state.status);
  if (state.classificationId) params.set('classificationId', state.classificationId);
  if (state.sort && state.sort !== '-createdAt') params.set('sort', state.sort);
  if (page > 1) params.set('page', String(page));
  if (state.pageSize !== 25) params.set('pageSize', String(state.pageSize));
  const query = params.toString();
  return query ? `/risks?${query}` : '/risks';
}

export const RESULTS_ID = 'risk-results';

/** The table and pager: the whole page renders it, and htmx swaps it alone when the filters change. */
export function RiskResults({ page, state }: { page: Page<RiskView>; state: RiskListState }): JSX.Element {
  return (
    <section id={RESULTS_ID} aria-live="polite">
      <DataTable<RiskView>
        rows={page.rows}
        empty={state.q || state.status || state.classificationId ? 'No risks match these filters.' : 'No risks yet.'}
        columns={[
          { header: 'Title', cell: (r) => <a href={`/risks/${r.id}`} safe>{r.title}</a> },
          { header: 'Classification', cell: (r) => <Text value={r.classification.name} /> },
          { header: 'Inherent', cell: (r) => <ScoreBadge score={r.inherentScore} band={r.inherentBand} /> },
          { header: 'Residual', cell: (r) => <ScoreBadge score={r.residualScore} band={r.residualBand} /> },
          { header: 'Owner', cell: (r) => <Text value={r.owner?.name ?? r.ownerGroup?.name ?? ''} /> },
          { header: 'Status', cell: (r) => <Text value={STATUS_LABELS[r.status] ?? r.status} /> },
          { header: 'Updated', cell: (r) => <When value={r.updatedAt} /> },
        ]}
      />
      <Pager page={page.page} pageSize={page.pageSize} total={page.total} href={(p) => riskListHref(state, p)} target={`#${RESULTS_ID}`} />
    </section>
  );
}

export interface RiskListProps {
  page: Page<RiskView>;
  state: RiskListState;
  classifications: { id: string; name: string }[];
  canCreate: boolean;
  /** The CSV Import button (a menu of Risks / Risk exceptions), shown to those who may import one of them. */
  importButton?: JSX.Element;
  done?: string;
}

/**
 * Filters are a plain GET form (works without JavaScript); with htmx they replace only the results
 * and push the same URL the form would have loaded.
 */
export function RiskList({ page, state, classifications, canCreate, importButton, done }: RiskListProps): JSX.Element {
  return (
    <>
      <Flash kind="success" message={done === 'deleted' ? 'Risk deleted.' : undefined} />
      {(canCreate || importButton) && (
        <p>
          {canCreate && <a class="button" href="/risks/new">New risk</a>}
          {importButton}
        </p>
      )}
      <form method="get" action="/risks" class="card filter-bar" role="search"
        hx-get="/risks" hx-target={`#${RESULTS_ID}`} hx-swap="outerHTML" hx-push-url="true"
        hx-trigger="submit, change, input changed delay:400ms from:#f-q">
        <div class="field">
          <label for="f-q">Search titles</label>
          <input type="search" id="f-q" name="q" value={state.q} maxlength={200} />
        </div>
        <div class="field">
          <label for="f-status">Status</label>
          <Select name="status" options={statusOptions(true)} selected={state.status} />
        </div>
        <div class="field">
          <label for="f-classificationId">Classification</label>
          <Select name="classificationId" selected={state.classificationId}
            options={[{ value: '', label: 'Any classification' }, ...classifications.map((c) => ({ value: c.id, label: c.name }))]} />
        </div>
        <div class="field">
          <label for="f-sort">Sort</label>
          <Select name="sort" options={SORT_OPTIONS} selected={state.sort} />
        </div>
        <button type="submit" class="secondary">Apply</button>
      </form>
      <RiskResults page={page} state={state} />
    </>
  );
}
