import type { AppContext } from '../http/context';
import type { Actor, Permission } from '../permissions/permissions';
import { listRecords, type ListParams, type OwnedTable, type RecordKind } from '../records/records';
import type { DbOrTx } from '../../../db/client';
import { invalid } from '../core/errors';
import { valueLabel as readable } from '../core/value-labels';

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

/** The rows of one report, as read for one viewer; `truncated` when more rows exist than a report holds. */
export interface ReportRows<R> {
  rows: R[];
  truncated: boolean;
}

/** A filter of a report, as the report's list screen offers it: a name, its label and the values it may take. */
export interface ReportFilter {
  name: string;
  label: string;
  options: { value: string; label: string }[];
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
  /** The rows the viewer may read, narrowed by the chosen filters (already checked against `filters`). */
  rows(ctx: AppContext, viewer: Actor, filters: ReportFilters): Promise<ReportRows<R>>;
}

/** Rows a report holds at most, as a list's CSV export (the specification's limit for downloads of current records). */
export const REPORT_LIMIT = 5_000;

/**
 * Every record of a register kind the actor may read (their own/all level applies), read a page of 200 at a time as the
 * list's CSV export reads them, at most `limit`.
 */
export async function readAllRecords<T extends OwnedTable, V>(
  db: DbOrTx, kind: RecordKind<T, Record<string, unknown>, V>, actor: Actor, params: ListParams = {}, limit = REPORT_LIMIT,
): Promise<ReportRows<V>> {
  const rows: V[] = [];
  let total = 0;
  for (let page = 1; rows.length < limit; page++) {
    const chunk = await listRecords(db, kind, actor, { ...params, page, pageSize: 200 });
    rows.push(...chunk.rows);
    total = chunk.total;
    if (chunk.rows.length < 200 || page * 200 >= chunk.total) break;
  }
  return { rows: rows.slice(0, limit), truncated: total > limit };
}

/** A report of a register kit list: its rows as the list reads them, its columns those of the list's CSV export. */
export function registerReport<T extends OwnedTable, V>(
  kind: RecordKind<T, Record<string, unknown>, V>,
  declared: Omit<ReportDeclaration<V>, 'rows' | 'needs' | 'columns'> & {
    columns: readonly (ReportColumn<V> & { only?: 'screen' | 'export' })[];
    params?: ListParams;
    /** The register's statuses: the report is filtered by status as its list is (its other filters: `filters`). */
    statuses?: readonly string[];
  },
): InstalledReport {
  const { params, columns, statuses, filters, ...rest } = declared;
  const statusFilter: ReportFilter[] = statuses ? [{ name: 'status', label: 'Status', options: statuses.map((s) => ({ value: s, label: readable(s) })) }] : [];
  return erased({
    ...rest,
    filters: async (ctx, viewer) => [...statusFilter, ...(filters ? await filters(ctx, viewer) : [])],
    needs: `${kind.module}:read` as Permission,
    columns: columns.filter((c) => c.only !== 'screen').map((c) => ({ header: c.header, value: c.value })),
    // The chosen filters are the list's own query parameters (status, classificationId, …), read by listRecords.
    rows: (ctx, viewer, filters) => readAllRecords(ctx.db, kind, viewer, { ...params, ...filters }),
  });
}

/** A report as the manifest lists it: its row type closed over, so the platform reads only headers and cells. */
export interface InstalledReport extends Omit<ReportDeclaration, 'columns' | 'rows'> {
  headers: readonly string[];
  /** The report's filters for this viewer (none when the report declares none). */
  filtersFor(ctx: AppContext, viewer: Actor): Promise<ReportFilter[]>;
  /** The report's cells for one viewer, at their level, narrowed by filters checked with checkFilters. */
  table(ctx: AppContext, viewer: Actor, filters?: ReportFilters): Promise<{ cells: ReportCell[][]; truncated: boolean }>;
}

/** A typed report made ready for the manifest's list: its columns applied to its rows where both are known. */
export function erased<R>({ columns, rows, filters, ...entry }: ReportDeclaration<R>): InstalledReport {
  return {
    ...entry,
    headers: columns.map((c) => c.header),
    filtersFor: async (ctx, viewer) => (filters ? filters(ctx, viewer) : []),
    async table(ctx, viewer, chosen = {}) {
      const read = await rows(ctx, viewer, chosen);
      return { cells: read.rows.map((row) => columns.map((c) => c.value(row))), truncated: read.truncated };
    },
  };
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
    if (typeof value !== 'string' || !filter.options.some((o) => o.value === value)) {
      problems.push({ field: name, message: `"${String(value)}" is not one of the choices of ${filter.label}` });
      continue;
    }
    chosen[name] = value;
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
