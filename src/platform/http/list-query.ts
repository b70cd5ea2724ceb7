/**
 * A screen list's filters, sort and page from its address, and the download of its filtered rows. Lists paged in SQL
 * (Users, the Outbox) read the state here and query themselves; the small Settings lists, read whole (a few hundred
 * rows at most: roles, labels, tokens, sessions, rules), are filtered, sorted and paged here by their `ListRules`. Their
 * downloads: csv/list-download.ts.
 */
import { isUuid } from '../core/uuid';
import type { ListPage, ListState } from '../../../views/components/list';

export type { ListPage, ListState } from '../../../views/components/list';

type Query = Record<string, string | undefined>;

export const LIST_PAGE_SIZE = 50;
/** Rows a download holds at most (as the registers' Export). */
export const LIST_EXPORT_LIMIT = 5_000;

/** The values a filter takes: a list of them, or any record id ('id'). */
export type FilterValues = readonly string[] | 'id';

/** The page asked for: a whole number from 1; anything else is page 1. */
export const pageOf = (value: string | undefined): number => {
  const n = Number(value ?? '1');
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
};

const allowed = (value: string | undefined, values: FilterValues): string =>
  value === undefined ? '' : values === 'id' ? (isUuid(value) ? value : '') : values.includes(value) ? value : '';

/**
 * The state of a list as its address holds it: the search (trimmed, 200 characters at most), each filter's value when it
 * is one the filter takes, the sort when it is one of `sorts` ('name', or '-name' the other way); a value that cannot be
 * meant reads as no filter.
 */
export function listState(query: Query, filters: Record<string, FilterValues>, sorts: readonly string[]): ListState {
  return {
    q: (query.q ?? '').trim().slice(0, 200),
    filters: Object.fromEntries(Object.entries(filters).map(([name, values]) => [name, allowed(query[name], values)])),
    sort: allowed(query.sort, sorts.flatMap((s) => [s, `-${s}`])),
    page: pageOf(query.page),
  };
}

type SortValue = string | number | Date | null;

/** How a list read whole is searched, filtered and sorted. */
export interface ListRules<T> {
  /** The texts the search looks in (case-insensitive). */
  text: (row: T) => readonly string[];
  /** Each filter: the values it takes and whether a row matches one. */
  filters?: Record<string, { values: FilterValues; matches: (row: T, value: string) => boolean }>;
  /** Each sort key and the value it sorts by (blank values last). */
  sorts: Record<string, (row: T) => SortValue>;
  /** The order when the address names none. */
  defaultSort: string;
}

/** The state of a list read whole, from its address. */
export const ruledState = <T>(query: Query, rules: ListRules<T>): ListState =>
  listState(query, Object.fromEntries(Object.entries(rules.filters ?? {}).map(([name, f]) => [name, f.values])), Object.keys(rules.sorts));

const compareValues = (a: SortValue, b: SortValue): number => {
  if (a === b) return 0;
  if (a === null || a === '') return 1;
  if (b === null || b === '') return -1;
  if (typeof a === 'string' && typeof b === 'string') return a.localeCompare(b, 'en', { sensitivity: 'base', numeric: true });
  return Number(a) - Number(b);
};

/** The rows the state's search and filters hold, in its order (ties keep the order they came in). */
export function chosenRows<T>(rows: readonly T[], state: ListState, rules: ListRules<T>): T[] {
  const words = state.q.toLowerCase();
  const filters = Object.entries(state.filters).filter(([, value]) => value !== '');
  const matching = rows.filter((row) =>
    (words === '' || rules.text(row).some((t) => t.toLowerCase().includes(words)))
    && filters.every(([name, value]) => rules.filters?.[name]?.matches(row, value) ?? true));
  const sort = state.sort || rules.defaultSort;
  const by = rules.sorts[sort.replace(/^-/, '')];
  if (!by) return matching;
  const way = sort.startsWith('-') ? -1 : 1;
  return matching
    .map((row, index) => ({ row, index, value: by(row) }))
    // Blank values stay last either way.
    .sort((a, b) => {
      const blankA = a.value === null || a.value === '';
      const blankB = b.value === null || b.value === '';
      if (blankA !== blankB) return blankA ? 1 : -1;
      return way * compareValues(a.value, b.value) || a.index - b.index;
    })
    .map((r) => r.row);
}

/** The state's page of rows already chosen, with their total. */
export function pageOfRows<T>(rows: readonly T[], state: ListState, pageSize = LIST_PAGE_SIZE): ListPage<T> {
  return { rows: rows.slice((state.page - 1) * pageSize, state.page * pageSize), total: rows.length, page: state.page, pageSize };
}

/** Every row of a list read a page at a time, up to the export limit. */
export async function everyRow<T>(read: (page: number, pageSize: number) => Promise<{ rows: T[]; total: number }>, pageSize = 200): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; rows.length < LIST_EXPORT_LIMIT; page++) {
    const chunk = await read(page, pageSize);
    rows.push(...chunk.rows);
    if (page * pageSize >= chunk.total || chunk.rows.length === 0) break;
  }
  return rows.slice(0, LIST_EXPORT_LIMIT);
}
