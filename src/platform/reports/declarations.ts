import type { AppContext } from '../http/context';
import type { Actor, Permission } from '../permissions/permissions';
import { listRecords, type ListParams, type OwnedTable, type RecordKind } from '../records/records';
import type { DbOrTx } from '../../../db/client';

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
  rows(ctx: AppContext, viewer: Actor): Promise<ReportRows<R>>;
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
  },
): InstalledReport {
  const { params, columns, ...rest } = declared;
  return erased({
    ...rest,
    needs: `${kind.module}:read` as Permission,
    columns: columns.filter((c) => c.only !== 'screen').map((c) => ({ header: c.header, value: c.value })),
    rows: (ctx, viewer) => readAllRecords(ctx.db, kind, viewer, params),
  });
}

/** A report as the manifest lists it: its row type closed over, so the platform reads only headers and cells. */
export interface InstalledReport extends Omit<ReportDeclaration, 'columns' | 'rows'> {
  headers: readonly string[];
  /** The report's cells for one viewer, at their level. */
  table(ctx: AppContext, viewer: Actor): Promise<{ cells: ReportCell[][]; truncated: boolean }>;
}

/** A typed report made ready for the manifest's list: its columns applied to its rows where both are known. */
export function erased<R>({ columns, rows, ...entry }: ReportDeclaration<R>): InstalledReport {
  return {
    ...entry,
    headers: columns.map((c) => c.header),
    async table(ctx, viewer) {
      const read = await rows(ctx, viewer);
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
