import { FilterBar, matchingCount, type FilterSelect } from './filter-bar';
import { Pager } from './pager';
import { DataTable, type Column } from './table';

/** A list's search, own filters, sort and page as its address holds them ('' for none: the list's default order). */
export interface ListState {
  q: string;
  filters: Record<string, string>;
  sort: string;
  page: number;
}

/** A page of a list as the screens show it, with the total the filters hold. */
export interface ListPage<T> {
  rows: T[];
  total: number;
  page: number;
  pageSize: number;
}

/** Whether the search or any of the list's own filters is set. */
export const listFiltered = (state: ListState): boolean => state.q !== '' || Object.values(state.filters).some((v) => v !== '');

/** A list's address with its search, filters, sort and page (and the same for its CSV export: `path`). */
export function listHref(path: string, state: ListState, extra: { page?: number; sort?: string } = {}): string {
  const params = new URLSearchParams(Object.entries({ q: state.q, ...state.filters, sort: extra.sort ?? state.sort }).filter(([, value]) => value !== ''));
  if ((extra.page ?? 1) > 1) params.set('page', String(extra.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

const counted = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** The line above a list's table: how many rows the filters hold, and the Export of exactly those (times in the reader's zone). */
export function ResultsBar(p: { total: number; one: string; many: string; filtered: boolean; exportHref?: string }): JSX.Element {
  const count = counted(p.total, p.one, p.many);
  return (
    <p class="results-bar">
      <span class="muted" safe>{p.filtered ? matchingCount(count, p.total) : count}</span>
      {p.exportHref && p.total > 0 && <a class="button secondary small" href={p.exportHref} download="" data-reader-zone="">Export CSV</a>}
    </p>
  );
}

export interface FilteredListProps<T> {
  /** The list's address; its CSV is `${path}/export.csv` unless `exportPath` says otherwise (false: none). */
  path: string;
  /** Names the ids: `${name}-filters` (the bar), `${name}-results`, `${name}-table`. */
  name: string;
  /** What the list holds, for the count and screen readers: 'role', 'roles'. */
  one: string;
  many: string;
  state: ListState;
  /** The search box's label ('Search names and descriptions'); none: the list has no search. */
  search?: string;
  /** The list's own filters, each a select of labelled values. */
  selects?: readonly Omit<FilterSelect, 'selected'>[];
  page: ListPage<T>;
  columns: Column<T>[];
  /** The order when the address names none (the header marked as sorted). */
  defaultSort: string;
  /** Said when the list holds nothing at all; with filters set it says that nothing matches them. */
  empty: string;
  exportPath?: string | false;
}

/**
 * A list as every screen shows one: the filter bar (search, the list's selects, Apply), then the results: the count and
 * Export of the filtered rows, a table whose headers sort (the sort kept in the address and in the bar's form), and
 * paging with the total. Without scripts every part is a plain link or GET form.
 */
export function FilteredList<T>(p: FilteredListProps<T>): JSX.Element {
  const formId = `${p.name}-filters`;
  const target = `#${p.name}-results`;
  const filtered = listFiltered(p.state);
  const exportPath = p.exportPath === undefined ? `${p.path}/export.csv` : p.exportPath;
  return (
    <>
      <FilterBar action={p.path} id={formId} label={`Filter ${p.many}`} target={target} filtered={filtered}
        search={p.search ? { value: p.state.q, label: p.search } : undefined}
        filters={(p.selects ?? []).map((s) => ({ ...s, selected: p.state.filters[s.name] ?? '' }))} />
      <section id={`${p.name}-results`} aria-live="polite" aria-label={`Matching ${p.many}`}>
        <ResultsBar total={p.page.total} one={p.one} many={p.many} filtered={filtered} exportHref={exportPath ? listHref(exportPath, p.state) : undefined} />
        <DataTable<T> id={`${p.name}-table`} rows={p.page.rows} columns={p.columns}
          empty={filtered ? `No ${p.many} match these filters.` : p.empty}
          sort={{ current: p.state.sort || p.defaultSort, href: (sort) => listHref(p.path, p.state, { sort }), target, form: formId }} />
        <Pager page={p.page.page} pageSize={p.page.pageSize} total={p.page.total} href={(n) => listHref(p.path, p.state, { page: n })} target={target} />
      </section>
    </>
  );
}
