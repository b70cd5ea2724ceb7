export interface Column<T> {
  header: string;
  cell: (row: T) => JSX.Element;
  /** Extra class on the cells, e.g. 'num' for right-aligned numbers. */
  class?: string;
}

export interface DataTableProps<T> {
  columns: Column<T>[];
  rows: readonly T[];
  empty?: string;
  caption?: string;
  id?: string;
}

/** A plain, scrollable data table. Cells render JSX, so text must come through `safe` or a component that escapes. */
export function DataTable<T>({ columns, rows, empty = 'Nothing to show yet.', caption, id }: DataTableProps<T>): JSX.Element {
  return (
    <div class="table-wrap" id={id}>
      <table class="data">
        {caption && <caption class="muted" safe>{caption}</caption>}
        <thead>
          <tr>{columns.map((c) => <th scope="col" safe>{c.header}</th>)}</tr>
        </thead>
        <tbody>
          {rows.length === 0
            ? <tr><td class="empty" colspan={String(columns.length)} safe>{empty}</td></tr>
            : rows.map((row) => <tr>{columns.map((c) => <td class={c.class}>{c.cell(row)}</td>)}</tr>)}
        </tbody>
      </table>
    </div>
  );
}

/** Escaped text cell. */
export const Text = ({ value }: { value: string | number | null | undefined }) =>
  <span safe>{value === null || value === undefined ? '' : String(value)}</span>;

/** A timestamp as "YYYY-MM-DD HH:MM UTC" (the same for every viewer; the ISO value sits in datetime). */
export function When({ value, empty = '—' }: { value: string | Date | null | undefined; empty?: string }): JSX.Element {
  if (!value) return <span class="muted" safe>{empty}</span>;
  const iso = new Date(value).toISOString();
  return <time datetime={iso} safe>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time>;
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
