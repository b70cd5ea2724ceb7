/** A screen list's rows as a CSV download, through the one writer (byte order mark, formula guard), up to the export limit. */
import { LIST_EXPORT_LIMIT } from '../http/list-query';
import { toCsv } from './write';

/** One column of a list's CSV: its header and the cell of a row (labels and names, times already in the reader's zone). */
export interface CsvColumn<T> {
  header: string;
  cell: (row: T) => string | number;
}

/** A CSV download named after the list and the day, through the one writer (byte order mark, formula guard). */
export function csvFile(set: { headers: Record<string, string | number> }, name: string, table: readonly (readonly (string | number)[])[]): string {
  set.headers['content-type'] = 'text/csv; charset=utf-8';
  set.headers['content-disposition'] = `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`;
  return toCsv(table);
}

/** The rows of a list as a CSV download: a header line, then each row's cells, up to the export limit. */
export const csvDownload = <T>(set: { headers: Record<string, string | number> }, name: string, columns: readonly CsvColumn<T>[], rows: readonly T[]): string =>
  csvFile(set, name, [columns.map((c) => c.header), ...rows.slice(0, LIST_EXPORT_LIMIT).map((row) => columns.map((c) => c.cell(row)))]);
