import { expect } from 'bun:test';
import type { Browser } from './browser';

/** A list screen as its reader sees it: the count line, each table row's text, the pager's line. */
export async function listScreen(b: Browser, path: string, name: string) {
  const res = await b.get(path);
  const html = await res.text();
  const start = html.indexOf(`id="${name}-table"`);
  const table = start < 0 ? '' : html.slice(start, html.indexOf('</table>', start));
  const body = table.slice(table.indexOf('<tbody>'));
  const rows = body.split('<tr>').slice(1).map((row) => row.replace(/<[^>]+>/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim());
  return {
    status: res.status, html, rows,
    total: /<p class="results-bar"><span class="muted">([^<]+)<\/span>/.exec(html)?.[1],
    pager: /<nav class="pager" aria-label="Pages"><span class="muted">([^<]+)<\/span>/.exec(html)?.[1],
  };
}

/** The names given in the order the rows show them (each row holding one of them); names not shown are left out. */
export const inOrder = (rows: readonly string[], names: readonly string[]): string[] =>
  names.map((n) => ({ n, at: rows.findIndex((r) => r.includes(n)) })).filter((x) => x.at >= 0).sort((a, b) => a.at - b.at).map((x) => x.n);

/** A list's CSV download: its byte order mark and its lines (CRLF), after checking it is a named CSV attachment. */
export async function csvOf(b: Browser, path: string, file: string) {
  const res = await b.get(path);
  expect(res.status, path).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/csv');
  expect(res.headers.get('content-disposition')).toMatch(new RegExp(`attachment; filename="${file}-\\d{4}-\\d{2}-\\d{2}\\.csv"`));
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { bom: [...bytes.slice(0, 3)], lines: new TextDecoder().decode(bytes.slice(3)).split('\r\n').filter(Boolean) };
}
