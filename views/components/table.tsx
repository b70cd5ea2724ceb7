import { LIST_SYNC } from './filter-bar';

export interface Column<T> {
  header: string;
  cell: (row: T) => JSX.Element;
  /** Extra class on the cells, e.g. 'num' for right-aligned numbers. */
  class?: string;
  /** The list's sort key for this column: its header becomes a link that sorts by it (again: the other way). */
  sort?: string;
}

/** How a list is sorted and how to ask for another order ('name' ascending, '-name' descending). */
export interface TableSort {
  current: string;
  href(sort: string): string;
  /** With htmx, header links load into this element (they still work as plain links). */
  target?: string;
  /**
   * The id of the list's filter bar form: the current sort is then kept as a hidden field of that form placed in the
   * table (`form` attribute), so it is swapped with the results and a filter applied after a header click keeps the sort.
   */
  form?: string;
  /**
   * Whether a header click also puts its address in the browser's (default yes). A section inside a record page (what
   * links here) sorts in place and keeps the record page's address; its own address still holds the sort.
   */
  push?: boolean;
}

export interface DataTableProps<T> {
  columns: Column<T>[];
  rows: readonly T[];
  empty?: string;
  caption?: string;
  id?: string;
  sort?: TableSort;
}

function Header<T>({ column, sort }: { column: Column<T>; sort?: TableSort }): JSX.Element {
  if (!column.header) return <td></td>;
  if (!column.sort || !sort) return <th scope="col" safe>{column.header}</th>;
  const ascending = sort.current === column.sort;
  const descending = sort.current === `-${column.sort}`;
  const next = ascending ? `-${column.sort}` : column.sort;
  const href = sort.href(next);
  const way = ascending ? 'ascending' : descending ? 'descending' : undefined;
  return (
    <th scope="col" aria-sort={way}>
      <a href={href} class="sort" hx-get={sort.target ? href : undefined} hx-target={sort.target} hx-select={sort.target} hx-swap={sort.target ? 'outerHTML' : undefined}
        hx-push-url={sort.target && sort.push !== false ? 'true' : undefined} hx-sync={sort.target ? LIST_SYNC : undefined}>
        <span safe>{column.header}</span>
        <span class="sort-mark" aria-hidden="true">{ascending ? ' ▲' : descending ? ' ▼' : ' ↕'}</span>
        <span class="visually-hidden">{ascending ? ', sorted ascending; sort descending' : descending ? ', sorted descending; sort ascending' : ', sort'}</span>
      </a>
    </th>
  );
}

/**
 * A plain data table. Cells render JSX, so text must come through `safe` or a component that escapes.
 * A column without a header (row actions) gets an empty cell, not an empty header.
 *
 * On a phone (static/app.css, `table.stack` under 640 px) each row reads as a card: every cell on its own line after
 * its column's header, which the cell carries as `data-label`; the sortable headers stay above the cards as a row of
 * links. Nothing scrolls sideways.
 */
export function DataTable<T>({ columns, rows, empty = 'Nothing to show yet.', caption, id, sort }: DataTableProps<T>): JSX.Element {
  return (
    <div class="table-wrap" id={id}>
      {sort?.form && sort.current && <input type="hidden" name="sort" value={sort.current} form={sort.form} />}
      <table class="data stack">
        {caption && <caption class="muted" safe>{caption}</caption>}
        <thead>
          <tr>{columns.map((c) => <Header column={c} sort={sort} />)}</tr>
        </thead>
        <tbody>
          {rows.length === 0
            ? <tr><td class="empty" colspan={String(columns.length)} safe>{empty}</td></tr>
            : rows.map((row) => <tr>{columns.map((c) => <td class={c.class} data-label={c.header || undefined}>{c.cell(row)}</td>)}</tr>)}
        </tbody>
      </table>
    </div>
  );
}

/** Escaped text cell. */
export const Text = ({ value }: { value: string | number | null | undefined }) =>
  <span safe>{value === null || value === undefined ? '' : String(value)}</span>;

/**
 * A timestamp as "YYYY-MM-DD HH:MM UTC" (the ISO value sits in datetime). With `local` (History and the Audit Log), the
 * page's script rewrites it in the reader's own time zone, naming the zone; without scripts it stays in UTC.
 */
export function When({ value, empty = '—', local }: { value: string | Date | null | undefined; empty?: string; local?: boolean }): JSX.Element {
  if (!value) return <span class="muted" safe>{empty}</span>;
  const iso = new Date(value).toISOString();
  return <time datetime={iso} data-local={local ? '' : undefined} safe>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time>;
}

export const Tags = ({ values }: { values: readonly string[] }) =>
  <span class="tags">{values.map((v) => <span class="tag" safe>{v}</span>)}</span>;

/** A stored value as a History change shows it: '—' for nothing, objects and lists as JSON, the rest as text. */
export const shownValue = (value: unknown): string =>
  value === null || value === undefined || value === '' ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/**
 * A small square of a user-chosen colour (risk bands, labels). Drawn as SVG, whose fill attribute is not an inline style,
 * so it needs nothing beyond the Content-Security-Policy's `style-src 'self'`; the text beside it carries the meaning.
 */
export const Swatch = ({ color }: { color: string }) => (
  <svg class="swatch" viewBox="0 0 1 1" aria-hidden="true" focusable="false"><rect width="1" height="1" fill={color} /></svg>
);
