import Papa from 'papaparse';
import { CSV_LIMITS } from '../http/screen-limits';

/** File rules of every CSV import (docs/csv-import.md). */
export { CSV_LIMITS };

/** A file refused as a whole: nothing in it is checked or imported. */
export class CsvRefusal extends Error {}

export interface CsvRow {
  /** Line of the file where the row starts (the header is line 1; quoted newlines make later rows start further down). */
  line: number;
  cells: string[];
}

export interface ParsedCsv {
  /** Column names as written (trimmed). */
  header: string[];
  rows: CsvRow[];
  delimiter: ',' | ';';
}

const MB = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** UTF-8 text of the upload, with or without a byte order mark; anything else is refused. */
export function decodeCsv(bytes: Uint8Array): string {
  if (bytes.byteLength === 0) throw new CsvRefusal('The file is empty.');
  if (bytes.byteLength > CSV_LIMITS.maxBytes) {
    throw new CsvRefusal(`The file is ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MB; the limit is ${MB(CSV_LIMITS.maxBytes)}. Split it into smaller files.`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new CsvRefusal('The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.');
  }
  if (text.includes('\u0000')) throw new CsvRefusal('The file is not a CSV text file (it contains binary data).');
  return text;
}

/** Comma or semicolon, whichever the header line uses more (outside quotes). */
function detectDelimiter(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char === ',') commas += 1;
    else if (!quoted && char === ';') semicolons += 1;
  }
  return semicolons > commas ? ';' : ',';
}

/** An opened upload: its header and an index of its rows; the rows' cells are parsed again a chunk at a time. */
export interface CsvFile {
  /** Column names as written (trimmed). */
  header: string[];
  delimiter: ',' | ';';
  /** Data rows (the header not counted). */
  rowCount: number;
  /** The first data row, if any (an import template's comment row is recognised by it). */
  firstRow: CsvRow | null;
  /** The data rows from `skip` on, in file order, `size` at a time: only one chunk's cells are alive at once. */
  chunks(size: number, skip?: number): Generator<CsvRow[]>;
}


/**
 * Opens a CSV upload. Refuses (CsvRefusal) a file that is not UTF-8 text, is empty, is over the size or row limit,
 * or has an unterminated quote — all before any row is used, because the whole file is read once here, keeping only
 * where each row starts and its line number. Blank lines are skipped.
 */
export function openCsv(input: Uint8Array | string): CsvFile {
  const text = typeof input === 'string' ? input.replace(/^\uFEFF/, '') : decodeCsv(input);
  if (text.trim() === '') throw new CsvRefusal('The file is empty.');
  const delimiter = detectDelimiter(text);
  let header: string[] | null = null;
  let firstRow: CsvRow | null = null;
  const starts: number[] = [];
  const lines: number[] = [];
  let refusal: string | null = null;
  let line = 1;
  let counted = 0;
  const lineAt = (offset: number) => {
    // Lines start after each newline; skipped blank lines before a row are counted too.
    for (let i = counted; i < offset; i++) if (text.charCodeAt(i) === 10) line += 1;
    counted = Math.max(counted, offset);
    return line;
  };
  let previousCursor = 0;
  let newline = '';
  Papa.parse<string[]>(text, {
    delimiter,
    skipEmptyLines: 'greedy',
    step(result, parser) {
      newline ||= result.meta.linebreak;
      let start = previousCursor;
      while (start < text.length && (text[start] === '\n' || text[start] === '\r')) start += 1;
      const rowLine = lineAt(start);
      previousCursor = result.meta.cursor;
      const problem = result.errors.find((e) => e.type === 'Quotes');
      if (problem) {
        refusal = `Line ${rowLine}: a quoted field is not closed (${problem.message}). Check the quotes in the file.`;
        parser.abort();
        return;
      }
      if (!header) {
        header = result.data.map((name) => name.trim());
        return;
      }
      if (starts.length >= CSV_LIMITS.maxRows) {
        refusal = `The file has more than ${CSV_LIMITS.maxRows.toLocaleString('en')} rows; the limit is ${CSV_LIMITS.maxRows.toLocaleString('en')}. Split it into smaller files.`;
        parser.abort();
        return;
      }
      firstRow ??= { line: rowLine, cells: result.data };
      starts.push(start);
      lines.push(rowLine);
    },
  });
  if (refusal) throw new CsvRefusal(refusal);
  if (!header) throw new CsvRefusal('The file is empty.');
  return {
    header,
    delimiter,
    rowCount: starts.length,
    firstRow,
    *chunks(size, skip = 0) {
      for (let first = skip; first < starts.length; first += size) {
        const last = Math.min(first + size, starts.length);
        const slice = text.slice(starts[first], last < starts.length ? starts[last] : text.length);
        const parsed = Papa.parse<string[]>(slice, { delimiter, newline: newline as '\n', skipEmptyLines: 'greedy' }).data;
        // Same parser, same settings, cut at row starts: the rows must line up with the index.
        if (parsed.length !== last - first) throw new Error(`CSV rows ${first}-${last}: ${parsed.length} parsed on the second read`);
        yield parsed.map((cells, i) => ({ line: lines[first + i], cells }));
      }
    },
  };
}

/** Parses a whole CSV upload at once (small files); refuses what openCsv refuses, and a file with only a header. */
export function parseCsv(input: Uint8Array | string): ParsedCsv {
  const file = openCsv(input);
  if (file.rowCount === 0) throw new CsvRefusal('The file has only a header row and no records.');
  return { header: file.header, rows: [...file.chunks(file.rowCount)].flat(), delimiter: file.delimiter };
}
