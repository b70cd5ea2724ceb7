import Papa from 'papaparse';
import { kindFromText, validatePackage } from './packages-service';
import type { PackageInput, PackageItem, PackageProblem } from './schema';

/**
 * CSV package files: a header with code and name, optionally description, parent_code (or parent) and kind; one row
 * per item. UTF-8 with or without a byte order mark, comma or semicolon separated, quoted fields may hold newlines
 * and separators. The package's own name, standard, version and description come from the dialog, not the file.
 * Problems are reported by file line (the line a row starts on), so a spreadsheet user can find them.
 */

export interface PackageCsvMeta {
  name?: string;
  standard?: string;
  version?: string;
  description?: string;
}

type Column = 'code' | 'name' | 'description' | 'parentCode' | 'kind';

/** Header names, compared ignoring case, spaces, hyphens and underscores. */
const HEADERS: Record<string, Column> = {
  code: 'code',
  name: 'name',
  description: 'description',
  parentcode: 'parentCode',
  parent: 'parentCode',
  kind: 'kind',
};

const headerKey = (cell: string) => cell.trim().toLowerCase().replace(/[\s_-]+/g, '');

export const PACKAGE_CSV_TEMPLATE = 'code,name,description,parent_code,kind\r\n';

export function parsePackageCsv(text: string, meta: PackageCsvMeta): { input: PackageInput; problems: PackageProblem[] } {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const newline = source.includes('\n') ? '\n' : '\r';
  const problems: PackageProblem[] = [];
  const rows: { line: number; cells: string[]; errors: string[] }[] = [];

  // Lines are counted incrementally from each row's starting offset (the previous row's cursor).
  let offset = 0;
  let line = 1;
  Papa.parse<string[]>(source, {
    delimiter: delimiterOf(source),
    skipEmptyLines: false,
    step: (result) => {
      const start = offset;
      const startLine = line;
      for (let i = start; i < result.meta.cursor && i < source.length; i++) if (source[i] === newline) line += 1;
      offset = result.meta.cursor;
      rows.push({ line: startLine, cells: result.data, errors: result.errors.map((e) => e.message) });
    },
  });

  const [header, ...body] = rows;
  const columns: (Column | null)[] = [];
  let headerUsable = false;
  if (!header || header.cells.every((cell) => !cell.trim())) {
    problems.push({ line: 1, field: 'header', message: 'the file is empty; the first line must name the columns code and name' });
  } else {
    const seen = new Set<Column>();
    for (const cell of header.cells) {
      const column = HEADERS[headerKey(cell)] ?? null;
      if (column === null && cell.trim()) problems.push({ line: header.line, field: 'header', message: `unknown column ${cell.trim()}` });
      else if (column && seen.has(column)) problems.push({ line: header.line, field: 'header', message: `column ${cell.trim()} appears twice` });
      if (column) seen.add(column);
      columns.push(column);
    }
    for (const required of ['code', 'name'] as const) {
      if (!seen.has(required)) problems.push({ line: header.line, field: 'header', message: `the column ${required} is required` });
    }
    for (const message of header.errors) problems.push({ line: header.line, field: 'header', message });
    headerUsable = problems.length === 0;
  }

  const items: PackageItem[] = [];
  const lineOfItem: number[] = [];
  for (const row of headerUsable ? body : []) {
    if (row.cells.every((cell) => !cell.trim())) continue;
    const item: Record<string, string> = {};
    row.cells.forEach((cell, i) => {
      const column = columns[i];
      if (column) item[column] = cell;
      else if (i >= columns.length && cell.trim()) problems.push({ line: row.line, field: 'row', message: `more fields than the header has columns (${columns.length})` });
    });
    for (const message of row.errors) problems.push({ line: row.line, field: 'row', message });
    const kind = kindFromText(item.kind ?? '');
    if (kind === null) problems.push({ line: row.line, ...(item.code?.trim() ? { code: item.code.trim() } : {}), field: 'kind', message: 'must be requirement, additional, heading or blank (blank means requirement)' });
    items.push({
      code: item.code ?? '',
      name: item.name ?? '',
      description: item.description ?? '',
      parentCode: item.parentCode?.trim() ? item.parentCode : null,
      kind: kind ?? '',
    });
    lineOfItem.push(row.line);
  }

  const input: PackageInput = {
    name: meta.name ?? '',
    standard: meta.standard ?? '',
    version: meta.version ?? '',
    description: meta.description ?? '',
    items,
  };
  for (const problem of validatePackage(input)) {
    if (problem.index === undefined) {
      if (problem.field !== 'items') problems.push(problem);
      else if (headerUsable) problems.push(items.length ? problem : { field: 'items', message: 'the file has no item rows' });
      continue;
    }
    // Rows under a header that cannot be read are not judged one by one.
    if (!headerUsable) continue;
    const { index, ...rest } = problem;
    const repeated = /^repeats the code of item (\d+)$/.exec(rest.message);
    const message = repeated ? `repeats the code on line ${lineOfItem[Number(repeated[1])]}` : rest.message;
    problems.push({ ...rest, message, line: lineOfItem[index], field: csvField(rest.field) });
  }
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { input, problems };
}

/** Semicolon when the header line has more semicolons than commas (European spreadsheet exports), else comma. */
function delimiterOf(source: string): ',' | ';' {
  const firstLine = source.slice(0, source.search(/\r?\n|$/));
  const countOf = (c: string) => firstLine.split(c).length - 1;
  return countOf(';') > countOf(',') ? ';' : ',';
}

/** JSON field names back to the CSV header names the user wrote. */
const csvField = (field: string) => (field === 'parentCode' ? 'parent_code' : field);
