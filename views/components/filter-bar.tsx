import { Select, type Option } from './form';

/**
 * The requests of one list (its filter bar, header sort links, pager) share one queue on the page's main element: the
 * last one asked for wins, so an older answer arriving late cannot replace the list with what the person left behind.
 */
export const LIST_SYNC = 'closest main:replace';

/** A filtered list's count in words: "1 risk matches these filters", "2 risks match these filters". */
export const matchingCount = (count: string, n: number): string => `${count} ${n === 1 ? 'matches' : 'match'} these filters`;

/** One of a list's own filters: a select of allowed values (labelled), sent under its name. */
export interface FilterSelect {
  name: string;
  label: string;
  options: Option[];
  selected: string;
  /** The first option, meaning "no filter": 'Any', 'Anyone'. */
  any?: string;
  /** A day (a date input, YYYY-MM-DD) instead of a select: one end of a date range. */
  type?: 'date';
}

export interface FilterBarProps {
  /** The list's address: the form is a plain GET to it, so every filter lives in the URL. */
  action: string;
  /** The form's id, for fields kept outside it (the table's current sort: TableSort.form). */
  id?: string;
  /** What the bar filters, for screen readers: 'Filter risks'. */
  label: string;
  /** The element htmx replaces with the same element of the answer (the results), leaving the bar and its focus alone. */
  target: string;
  /** The search box, when the list searches text. */
  search?: { value: string; label: string };
  filters: readonly FilterSelect[];
  /** State the bar does not show but keeps (the sort chosen by a column header, the page size). */
  keep?: Record<string, string>;
  /** Shown when a filter is set: a link back to the unfiltered list. */
  filtered: boolean;
  /**
   * A plain GET form, applied by its button: where a refused filter answers a page of its own (400, the values kept)
   * that htmx would not swap in, so the person would see nothing happen (the Report Center's printable reports).
   */
  plain?: boolean;
}

/**
 * The filter bar of every list: search, the list's own filters and Apply, as a GET form that works without script.
 * With htmx, a change re-reads the results alone and pushes the address, so a filtered list can be bookmarked.
 */
export function FilterBar(p: FilterBarProps): JSX.Element {
  const id = (name: string) => `filter-${name}`;
  return (
    <form method="get" action={p.action} id={p.id} class="filter-bar card" role="search" aria-label={p.label}
      {...(p.plain ? {} : {
        'hx-get': p.action, 'hx-target': p.target, 'hx-select': p.target, 'hx-swap': 'outerHTML', 'hx-push-url': 'true',
        // A change of each select or day re-reads the results; the search box re-reads as typed, not on `change`: that
        // fires when the box loses focus, so a click on a sorting header or a page link would send the form too, and its
        // answer (without the header's sort) could arrive last and undo the click.
        'hx-trigger': [...p.filters.map((f) => `change from:#${id(f.name)}`), ...(p.search ? [`input changed delay:400ms from:#${id('q')}`] : []), 'submit'].join(', '),
        // One request for the list at a time: a later one (a header clicked while the search box's change is in flight) replaces it.
        'hx-sync': LIST_SYNC,
      })}>
      {p.search && (
        <div class="field">
          <label for={id('q')} safe>{p.search.label}</label>
          <input type="search" id={id('q')} name="q" value={p.search.value} maxlength="200" />
        </div>
      )}
      {p.filters.map((f) => (
        <div class="field">
          <label for={id(f.name)} safe>{f.label}</label>
          {f.type === 'date'
            ? <input type="date" id={id(f.name)} name={f.name} value={f.selected} />
            : <Select id={id(f.name)} name={f.name} selected={f.selected} options={[{ value: '', label: f.any ?? 'Any' }, ...f.options]} />}
        </div>
      ))}
      {Object.entries(p.keep ?? {}).filter(([, value]) => value !== '').map(([name, value]) => <input type="hidden" name={name} value={value} />)}
      <div class="filter-actions">
        <button type="submit" class="secondary">Apply</button>
        {p.filtered && <a href={p.action}>Clear filters</a>}
      </div>
    </form>
  );
}
