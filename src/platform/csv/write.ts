/**
 * Every CSV the service writes goes through here. A cell that a spreadsheet would run as a formula (starting with
 * = + - @, a tab or a carriage return) gets a leading apostrophe, so it is shown as text and never executed.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function safeCell(value: string | number | boolean | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** Whether a character code opens a formula in a spreadsheet: = + - @, a tab or a carriage return (FORMULA_START). */
const opensFormula = (code: number) => code === 61 || code === 43 || code === 45 || code === 64 || code === 9 || code === 13;
/** Whether a character code makes a field quoted: a quote, comma, semicolon, carriage return or line feed. */
const needsQuotes = (code: number) => code === 34 || code === 44 || code === 59 || code === 13 || code === 10;

/**
 * One CSV field: neutralised, then quoted when it holds a comma, semicolon, quote or line break. Written with character
 * codes rather than regular expressions: a report of 100,000 rows writes a million and a half of them.
 */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : String(value);
  if (text.length === 0) return text;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (needsQuotes(text.charCodeAt(i))) {
      quoted = true;
      break;
    }
  }
  const safe = opensFormula(text.charCodeAt(0)) ? `'${text}` : text;
  return quoted ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvLine(cells: readonly (string | number | boolean | null | undefined)[]): string {
  let line = cells.length ? csvField(cells[0]) : '';
  for (let i = 1; i < cells.length; i++) line += `,${csvField(cells[i])}`;
  return line;
}

/** A whole file: UTF-8 with a byte order mark (so spreadsheets open it as UTF-8), CRLF line ends. */
export function toCsv(rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string {
  return `\uFEFF${rows.map(csvLine).join('\r\n')}\r\n`;
}
