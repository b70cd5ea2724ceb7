/**
 * Every CSV the service writes goes through here. A cell that a spreadsheet would run as a formula (starting with
 * = + - @, a tab or a carriage return) gets a leading apostrophe, so it is shown as text and never executed.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function safeCell(value: string | number | boolean | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One CSV field: neutralised, then quoted when it holds a comma, semicolon, quote or line break. */
export function csvField(value: string | number | boolean | null | undefined): string {
  const text = safeCell(value);
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (cells: readonly (string | number | boolean | null | undefined)[]): string => cells.map(csvField).join(',');

/** A whole file: UTF-8 with a byte order mark (so spreadsheets open it as UTF-8), CRLF line ends. */
export function toCsv(rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string {
  return `\uFEFF${rows.map(csvLine).join('\r\n')}\r\n`;
}
