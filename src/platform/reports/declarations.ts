import type { AppContext } from '../http/context';
import type { Actor, Permission } from '../permissions/permissions';
import { listValuesCsv, streamListValues, streamRecords, type ListParams, type ListValuesSelect, type OwnedTable, type RecordKind } from '../records/records';
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { invalid } from '../core/errors';
import { valueLabel as readable } from '../core/value-labels';
import { isRealDate } from '../core/dates';
import { platformService } from '../http/installed';
import { csvLine } from '../csv/write';
import { rewritePostgresCsv } from '../csv/postgres-csv';

/**
 * What modules declare in their manifests for the Report Center (`/reports`, screens only): each report names its
 * columns and reads its rows through the module's own services with the viewer, so the own/all level applies and the
 * platform, which renders the list, the printable page and the CSV, never imports a module (docs/reports.md).
 */

/** A cell as text: what the printable page shows and the CSV holds (names the viewer may not read as "(restricted)"). */
export type ReportCell = string | number | boolean | null | undefined;

export interface ReportColumn<R> {
  header: string;
  value(row: R): ReportCell;
}

/** The rows of a report as read for one viewer, a page at a time: every row they may read, narrowed by the chosen filters. */
export type ReportPages<R> = AsyncIterable<R[]>;

/**
 * A filter of a report, as the report's list screen offers it: a name, its label and the values it may take; or, with
 * `kind: 'date'`, a day (YYYY-MM-DD) bounding a date range, `notBefore` naming the range's other end.
 */
export interface ReportFilter {
  name: string;
  label: string;
  options: { value: string; label: string }[];
  kind?: 'choice' | 'date';
  /** For the end of a date range: the filter holding its start, which it may not precede. */
  notBefore?: string;
}

/** The chosen filters of a report, by name; only chosen ones. */
export type ReportFilters = Record<string, string>;

export interface ReportDeclaration<R = never> {
  /** Stable key, also the address: `/reports/riskRegister`. */
  key: string;
  title: string;
  /** One sentence: what the report holds. */
  description: string;
  /** The right that lists the report (at any level); the rows are those the viewer may read at their level. */
  needs: Permission;
  /** The register on screen, with its filters (the Risks list); absent when the report has no list of its own. */
  listHref?: string;
  columns: readonly ReportColumn<R>[];
  /** The report's filters, read per viewer (choices such as classifications come from the module's settings). */
  filters?(ctx: AppContext, viewer: Actor): Promise<ReportFilter[]>;
  /**
   * Every row the viewer may read, narrowed by the chosen filters (already checked against `filters`), a page at a
   * time: the CSV writes each page as it comes, so it holds every row with memory flat; the printable page keeps the first.
   */
  pages(ctx: AppContext, viewer: Actor, filters: ReportFilters): ReportPages<R>;
}

/** Rows the printable page (and a scheduled report's mail) shows at most; it says so, and the CSV holds them all. */
export const PRINTABLE_LIMIT = 5_000;

/**
 * Every record of a register kind the actor may read (their own/all level applies), as the list reads them, a page at
 * a time (streamRecords: one statement through a cursor on PostgreSQL). `keep` narrows each page by what the list
 * cannot filter (a date range).
 */
export async function* recordPages<T extends OwnedTable, V>(
  db: DbOrTx, kind: RecordKind<T, Record<string, unknown>, V>, actor: Actor, params: ListParams = {}, keep?: (row: V) => boolean,
  customFields = true,
): AsyncGenerator<V[]> {
  for await (const page of streamRecords(db, kind, actor, params, { customFields })) {
    const kept = keep ? page.filter(keep) : page;
    if (kept.length) yield kept;
  }
}

/** The first `limit` records of a register kind the actor may read (a list's CSV export), and whether more exist. */
export async function readAllRecords<T extends OwnedTable, V>(
  db: DbOrTx, kind: RecordKind<T, Record<string, unknown>, V>, actor: Actor, params: ListParams = {}, limit = PRINTABLE_LIMIT,
): Promise<{ rows: V[]; truncated: boolean }> {
  const rows: V[] = [];
  const pages = recordPages(db, kind, actor, params);
  for await (const page of pages) {
    rows.push(...page);
    if (rows.length > limit) {
      await pages.return(undefined);
      break;
    }
  }
  return { rows: rows.slice(0, limit), truncated: rows.length > limit };
}

/** A report's rows read whole by its module (a plan sorted across registers) given as pages, for the CSV to write in turn. */
export async function* inPages<R>(rows: readonly R[], size = 1000): AsyncGenerator<R[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/* ---------- Filters every report can offer ---------- */

/** Owner group: every group of the organisation (the list screens' owner group filter offers the same). */
export async function ownerGroupFilter(db: DbOrTx): Promise<ReportFilter> {
  const groups = await platformService('listGroups')(db);
  return { name: 'ownerGroupId', label: 'Owner group', options: groups.map((g) => ({ value: g.id, label: g.name })) };
}

/** A date range as two filters, `<name>From` and `<name>To` ("Due from", "Due to"), both days included. */
export const dateRangeFilters = (name: string, label: string): ReportFilter[] => [
  { name: `${name}From`, label: `${label} from`, options: [], kind: 'date' },
  { name: `${name}To`, label: `${label} to`, options: [], kind: 'date', notBefore: `${name}From` },
];

/** Whether `day` (YYYY-MM-DD, or none) falls in the chosen range `<name>From`..`<name>To`; a day-less row is outside any range. */
export function inDateRange(chosen: ReportFilters, name: string, day: string | null | undefined): boolean {
  const from = chosen[`${name}From`];
  const to = chosen[`${name}To`];
  if (!from && !to) return true;
  if (!day) return false;
  const d = day.slice(0, 10);
  return (!from || d >= from) && (!to || d <= to);
}

/** A chosen value as one of a filter's typed choices (checkFilters has checked it against them), without a cast. */
export const chosenOf = <T extends string>(choices: readonly T[], value: string | undefined): T | undefined => choices.find((c) => c === value);

/** Yes / No, for a flag the rows carry (overdue, expired, locked). */
export const yesNoFilter = (name: string, label: string): ReportFilter =>
  ({ name, label, options: [{ value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }] });

/**
 * The chosen filters split: those the list reads as its own query parameters, and those tested on the rows (named by
 * a prefix in `tested`: 'validUntil' takes validUntilFrom and validUntilTo).
 */
export function splitFilters(chosen: ReportFilters, tested: readonly string[]): { params: ReportFilters; rest: ReportFilters } {
  const params: ReportFilters = {};
  const rest: ReportFilters = {};
  for (const [name, value] of Object.entries(chosen)) (tested.some((t) => name.startsWith(t)) ? rest : params)[name] = value;
  return { params, rest };
}

/** A stored value as its label (valueLabel), written by PostgreSQL: for a column's `sql` where the screen shows the label. */
export const labelledInSql = (column: PgColumn, values: readonly string[]): SQL =>
  sql`case ${column} ${sql.join(values.map((v) => sql`when ${v} then ${readable(v)}::text`), sql` `)} else ${column} end`;

/** A report of a register kit list: its rows as the list reads them, its columns those of the list's CSV export. */
export function registerReport<T extends OwnedTable, V>(
  kind: RecordKind<T, Record<string, unknown>, V>,
  declared: Omit<ReportDeclaration<V>, 'pages' | 'needs' | 'columns'> & {
    columns: readonly (ReportColumn<V> & { only?: 'screen' | 'export'; sql?: SQL | PgColumn })[];
    /** Lookup tables the columns' `sql` reads (joined to the register's table, its owner and owner group). */
    joins?: ListValuesSelect['joins'];
    params?: ListParams;
    /** The register's statuses: the report is filtered by status as its list is (its other filters: `filters`). */
    statuses?: readonly string[];
    /**
     * Filters the list cannot apply as a query parameter (a date range), by the prefix of their names ('validUntil'
     * for validUntilFrom and validUntilTo), each a test of a row against the chosen values; declared in `filters` like
     * the others, applied before the report's limit.
     */
    tests?: Record<string, (row: V, chosen: ReportFilters) => boolean>;
  },
): InstalledReport {
  const { params, columns, statuses, filters, tests = {}, joins, ...rest } = declared;
  const statusFilter: ReportFilter[] = statuses ? [{ name: 'status', label: 'Status', options: statuses.map((s) => ({ value: s, label: readable(s) })) }] : [];
  const shown = columns.filter((c) => c.only !== 'screen');
  const common = {
    ...rest,
    // Every register has owners: the owner group filter comes with each, as on its list.
    filters: async (ctx: AppContext, viewer: Actor) => [...statusFilter, await ownerGroupFilter(ctx.db), ...(filters ? await filters(ctx, viewer) : [])],
    needs: `${kind.module}:read` as Permission,
  };
  const inSql = shown.map((c) => c.sql).filter((value) => value !== undefined);
  if (inSql.length === shown.length && !Object.keys(tests).length) {
    // Every cell written by PostgreSQL: each row is its cells as read, nothing made per row but the CSV line.
    const select = { values: inSql, joins };
    return {
      ...erased<ReportCell[]>({
        ...common,
        columns: shown.map((c, i) => ({ header: c.header, value: (cells) => cells[i] })),
        pages: (ctx, viewer, chosen) => streamListValues(ctx.db, kind, viewer, { ...params, ...chosen }, select) as AsyncGenerator<ReportCell[][]>,
      }, (cells) => cells),
      // On PostgreSQL the CSV is COPY's own text, rewritten to the service's CSV as the bytes pass: no value is made
      // into JavaScript (docs/reports.md).
      csvRows: async (ctx, viewer, chosen) => {
        const copied = await listValuesCsv(ctx.db, kind, viewer, { ...params, ...chosen }, select);
        return copied && rewritePostgresCsv(copied);
      },
    };
  }
  return erased({
    ...common,
    columns: shown.map((c) => ({ header: c.header, value: c.value })),
    // The chosen filters are the list's own query parameters (status, ownerGroupId, classificationId, …), read by
    // streamRecords; the rest are tested on the rows.
    pages: (ctx, viewer, chosen) => {
      const { params: listed, rest: tested } = splitFilters(chosen, Object.keys(tests));
      const keep = Object.keys(tested).length ? (row: V) => Object.values(tests).every((test) => test(row, tested)) : undefined;
      // A report's columns are the list's, which show no custom field: left out of the read.
      return recordPages(ctx.db, kind, viewer, { ...params, ...listed }, keep, false);
    },
  });
}

/** A report as the manifest lists it: its row type closed over, so the platform reads only headers and cells. */
export interface InstalledReport extends Omit<ReportDeclaration, 'columns' | 'pages'> {
  headers: readonly string[];
  /** The report's filters for this viewer (none when the report declares none). */
  filtersFor(ctx: AppContext, viewer: Actor): Promise<ReportFilter[]>;
  /** Every row's cells for one viewer, at their level, narrowed by filters checked with checkFilters, a page at a time. */
  cellPages(ctx: AppContext, viewer: Actor, filters?: ReportFilters): AsyncGenerator<ReportCell[][]>;
  /**
   * Where the database writes the report's CSV itself: its rows (no header) as the service's CSV, for this viewer at
   * their level, narrowed by the checked filters; undefined where it cannot (then the CSV is written from cellPages).
   */
  csvRows?(ctx: AppContext, viewer: Actor, filters: ReportFilters): Promise<AsyncGenerator<Uint8Array> | undefined>;
  /** The first `limit` rows' cells (the printable page) and how many rows the report holds for this viewer. */
  table(ctx: AppContext, viewer: Actor, filters?: ReportFilters, limit?: number): Promise<{ cells: ReportCell[][]; total: number }>;
}

/**
 * A typed report made ready for the manifest's list: its columns applied to its rows where both are known. `cellsOf`
 * gives a row's cells at once where they are its values already (cells written by PostgreSQL): no copy per row.
 */
export function erased<R>({ columns, pages, filters, ...entry }: ReportDeclaration<R>, cellsOf?: (row: R) => ReportCell[]): InstalledReport {
  const values = columns.map((c) => c.value);
  const cells = cellsOf ?? ((row: R) => values.map((value) => value(row)));
  async function* cellPages(ctx: AppContext, viewer: Actor, chosen: ReportFilters = {}): AsyncGenerator<ReportCell[][]> {
    for await (const page of pages(ctx, viewer, chosen)) yield cellsOf ? (page as ReportCell[][]) : page.map(cells);
  }
  return {
    ...entry,
    headers: columns.map((c) => c.header),
    filtersFor: async (ctx, viewer) => (filters ? filters(ctx, viewer) : []),
    cellPages,
    // The rows past the limit are counted as they stream by, not kept: the page says "first N of M".
    async table(ctx, viewer, chosen = {}, limit = PRINTABLE_LIMIT) {
      const shown: ReportCell[][] = [];
      let total = 0;
      for await (const page of pages(ctx, viewer, chosen)) {
        total += page.length;
        for (const row of page) {
          if (shown.length >= limit) break;
          shown.push(cells(row));
        }
      }
      return { cells: shown, total };
    },
  };
}

/**
 * A report as CSV text, a page at a time: the byte order mark and the header row, then each page's lines as it is read
 * (CRLF line ends, cells a spreadsheet would run as formulas guarded, as toCsv writes them).
 */
export async function* reportCsvChunks(ctx: AppContext, viewer: Actor, report: InstalledReport, chosen: ReportFilters): AsyncGenerator<string | Uint8Array> {
  yield `\uFEFF${csvLine(report.headers)}\r\n`;
  const written = await report.csvRows?.(ctx, viewer, chosen);
  if (written) {
    yield* written;
    return;
  }
  for await (const page of report.cellPages(ctx, viewer, chosen)) {
    let text = '';
    for (const cells of page) text += `${csvLine(cells)}\r\n`;
    yield text;
  }
}

let reports: readonly InstalledReport[] = [];

/** Called by installModules with every module's reports, in module order. */
export function installReports(declared: readonly InstalledReport[]): void {
  const keys = new Set<string>();
  for (const r of declared) {
    if (keys.has(r.key)) throw new Error(`report ${r.key} is declared twice`);
    keys.add(r.key);
  }
  reports = declared;
}

export const installedReports = (): readonly InstalledReport[] => reports;

/**
 * The chosen filters of a report checked against what it offers this viewer: a filter it does not have, or a value that
 * is none of the filter's choices, is refused (400 with every problem), never dropped, so a scheduled report or a link
 * never silently holds every row. Blank values are left out.
 */
export async function checkFilters(ctx: AppContext, viewer: Actor, report: InstalledReport, given: Record<string, unknown>): Promise<ReportFilters> {
  const offered = await report.filtersFor(ctx, viewer);
  const chosen: ReportFilters = {};
  const problems: { field: string; message: string }[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || value === null || value === '') continue;
    const filter = offered.find((f) => f.name === name);
    if (!filter) { problems.push({ field: name, message: `${report.title} has no filter "${name}"` }); continue; }
    if (filter.kind === 'date') {
      if (typeof value !== 'string' || !isRealDate(value.trim())) problems.push({ field: name, message: `${filter.label}: enter a real date, such as 2026-03-31` });
      else chosen[name] = value.trim();
      continue;
    }
    if (typeof value !== 'string' || !filter.options.some((o) => o.value === value)) {
      problems.push({ field: name, message: `"${String(value)}" is not one of the choices of ${filter.label}` });
      continue;
    }
    chosen[name] = value;
  }
  for (const filter of offered) {
    const start = filter.notBefore ? chosen[filter.notBefore] : undefined;
    if (start && chosen[filter.name] && chosen[filter.name] < start) {
      const label = offered.find((f) => f.name === filter.notBefore)?.label ?? filter.notBefore;
      problems.push({ field: filter.name, message: `${filter.label} must not be before ${label} (${start})` });
    }
  }
  if (problems.length) throw invalid(problems);
  return chosen;
}

/** The chosen filters in words ("Status: Open; Residual band: High"), for the printable page and the scheduled mail. */
export async function describeFilters(ctx: AppContext, viewer: Actor, report: InstalledReport, chosen: ReportFilters): Promise<string> {
  const offered = await report.filtersFor(ctx, viewer);
  return Object.entries(chosen).map(([name, value]) => {
    const filter = offered.find((f) => f.name === name);
    return `${filter?.label ?? name}: ${filter?.options.find((o) => o.value === value)?.label ?? value}`;
  }).join('; ');
}
