import type { PoamItem } from '../schema';
import { POAM_SEVERITIES, POAM_SOURCES, POAM_STATUSES } from '../schema';
import { POAM_SOURCE_LABELS } from '../poam-service';
import { valueLabel, valueOptions } from '../../../platform/core/value-labels';
import { FilterBar, matchingCount } from '../../../../views/components/filter-bar';
import type { Option } from '../../../../views/components/form';
import { Pager } from '../../../../views/components/pager';
import { DataTable, Text } from '../../../../views/components/table';

export const POAM_PATH = '/compliance/poam';

/** The list's filters and sort as the address holds them (blank: not set). */
export interface PoamFilters {
  q: string;
  status: string;
  severity: string;
  source: string;
  overdue: string;
  ownerId: string;
  sort: string;
}

const isFiltered = (f: PoamFilters) => Boolean(f.q || f.status || f.severity || f.source || f.overdue || f.ownerId);

/** The list's address (or its CSV's) with the filters and sort, a page when past the first; blanks left out. */
export function poamHref(f: PoamFilters, change: { sort?: string; page?: number } = {}, path = POAM_PATH): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...f, sort: change.sort ?? f.sort })) if (value) params.set(name, value);
  if (change.page && change.page > 1) params.set('page', String(change.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export interface PoamProps {
  rows: PoamItem[];
  total: number;
  page: number;
  pageSize: number;
  filters: PoamFilters;
}

/** The count, Export (following the filters and sort), the table with its sorting headers, and the pager; htmx swaps this alone. */
export function PoamResults({ rows, total, page, pageSize, filters }: PoamProps): JSX.Element {
  const filtered = isFiltered(filters);
  const count = `${total.toLocaleString('en')} weakness${total === 1 ? '' : 'es'}`;
  return (
    <section id="poam-results" aria-live="polite" aria-label="Weaknesses">
      <p class="results-bar">
        <span class="muted" safe>{filtered ? matchingCount(count, total) : count}</span>
        {total > 0 && <a class="button secondary small" href={poamHref(filters, {}, `${POAM_PATH}.csv`)} download="">Export CSV</a>}
      </p>
      <DataTable<PoamItem>
        rows={rows}
        empty={filtered ? 'No open weaknesses match these filters.' : 'No open weaknesses.'}
        sort={{ current: filters.sort, href: (sort) => poamHref(filters, { sort }), target: '#poam-results', form: 'poam-filters' }}
        columns={[
          { header: 'Source', sort: 'source', cell: (i) => <Text value={POAM_SOURCE_LABELS[i.source]} /> },
          { header: 'Weakness', sort: 'title', cell: (i) => <a href={i.link} safe>{i.title}</a> },
          { header: 'Reference', sort: 'reference', cell: (i) => <Text value={i.reference} /> },
          { header: 'Severity', sort: 'severity', cell: (i) => <Text value={valueLabel(i.severity)} /> },
          { header: 'Status', sort: 'status', cell: (i) => <Text value={valueLabel(i.status)} /> },
          {
            header: 'Due', sort: 'dueDate',
            cell: (i) => (i.overdue
              ? <span><span safe>{i.dueDate ?? ''}</span> <span class="tag tag-late">Overdue</span></span>
              : <Text value={i.dueDate ?? '—'} />),
          },
          { header: 'Owner', sort: 'owner', cell: (i) => <Text value={i.owner ?? '—'} /> },
        ]}
      />
      <Pager page={page} pageSize={pageSize} total={total} href={(n) => poamHref(filters, { page: n })} target="#poam-results" />
    </section>
  );
}

/** The POA&M register, read only: the one filter bar (htmx swaps the results and keeps the address), then the results. */
export function PoamPage(p: PoamProps & { owners: Option[] }): JSX.Element {
  return (
    <>
      <p class="muted">Open weaknesses from non-compliant analyses, audit findings not closed and controls whose latest test failed.</p>
      <FilterBar action={POAM_PATH} label="Filter weaknesses" target="#poam-results" filtered={isFiltered(p.filters)} id="poam-filters"
        search={{ value: p.filters.q, label: 'Search weaknesses' }}
        filters={[
          { name: 'status', label: 'Status', selected: p.filters.status, options: valueOptions(POAM_STATUSES) },
          { name: 'severity', label: 'Severity', selected: p.filters.severity, options: valueOptions(POAM_SEVERITIES) },
          { name: 'source', label: 'Source', selected: p.filters.source, options: POAM_SOURCES.map((value) => ({ value, label: POAM_SOURCE_LABELS[value] })) },
          { name: 'overdue', label: 'Overdue', selected: p.filters.overdue, options: [{ value: 'true', label: 'Overdue only' }, { value: 'false', label: 'Not overdue' }] },
          { name: 'ownerId', label: 'Owner', selected: p.filters.ownerId, options: p.owners, any: 'Anyone' },
        ]} />
      <PoamResults {...p} />
    </>
  );
}
