import { Elysia, t, type AnyElysia, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { paging } from '../http/paging';
import { apiAuth } from '../http/api-auth';
import type { AppContext } from '../http/context';
import { ErrorBody, exactly } from '../http/envelopes';
import { queryInteger } from '../http/strict-input';
import { invalid } from '../core/errors';
import { stringEnum } from '../http/schema-helpers';
import { cleanFileName, runCsvImport, type ImportFile, type ImportResult } from './engine';
import { importRights, type ImportType } from './import-type';
import { CsvRefusal } from './parse';
import { csvImportPages } from './pages';

const RowSchema = t.Object({
  line: Type.Integer({ description: 'Line of the file where the row starts (the header is line 1)' }),
  outcome: stringEnum(['create', 'update', 'unchanged', 'error'] as const),
  id: t.Optional(t.String({ description: 'The record the row updates or leaves unchanged, or (once imported) the one it created; a checked create row has none' })),
  title: t.Optional(t.String({ description: "The record's title (or name) as the row leaves it" })),
  changes: t.Optional(t.Array(t.Object({ column: t.String(), old: t.String(), new: t.String() }), {
    description: 'Update rows: each changed column, old -> new; create rows: each column the row sets (old blank). Linked records, owners and groups as the file names them',
  })),
  errors: t.Optional(t.Array(t.Object({ column: t.String(), message: t.String() }), { description: 'Error rows: every reason' })),
});
/** Rows an import answer lists by default and at most; the counts are always exact, and `page` lists the rest. */
export const ANSWER_ROWS = { default: 1_000, max: 5_000 } as const;

/** The answer of every CSV check or import (record types and account review items alike). */
export const ImportAnswer = exactly(t.Object({
  data: t.Object({
    outcome: stringEnum(['checked', 'imported', 'refused'] as const),
    counts: t.Object({ create: Type.Integer(), update: Type.Integer(), unchanged: Type.Integer(), error: Type.Integer() }),
    rows: t.Array(RowSchema, { description: 'One page of the rows (filtered by `outcome` when given), in file order' }),
    total: Type.Integer({ description: 'Rows that `rows` pages through: every data row of the file, or those with the `outcome` asked for' }),
    page: Type.Integer(),
    pageSize: Type.Integer(),
  }),
}));

/** The query and answers of every CSV import route. */
export const ImportModeQuery = t.Object({
  mode: stringEnum(['check', 'apply'] as const, { description: 'check: run every row and roll back; apply: import, only if every row succeeds' }),
  outcome: t.Optional(stringEnum(['create', 'update', 'unchanged', 'error'] as const, { description: 'List only the rows with this outcome (the counts stay those of the whole file)' })),
  page: t.Optional(queryInteger({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page of the listed rows, from 1' })),
  pageSize: t.Optional(queryInteger({
    minimum: 1, maximum: ANSWER_ROWS.max, default: ANSWER_ROWS.default,
    description: `Rows listed per answer, 1 to ${ANSWER_ROWS.max} (default ${ANSWER_ROWS.default}); a check of the same file with page=2 lists the next ones`,
  })),
});
export type ImportModeQuery = Static<typeof ImportModeQuery>;
export const importResponses = { 200: ImportAnswer, 422: t.Union([ImportAnswer, ErrorBody]) };

const CSV_TYPES = /^(text\/csv|text\/plain|application\/csv|application\/vnd\.ms-excel|application\/octet-stream)\b/i;

function fileNameHeader(value: string | undefined): string {
  if (!value) return 'upload.csv';
  try {
    return cleanFileName(decodeURIComponent(value));
  } catch {
    return cleanFileName(value);
  }
}

/** The uploaded CSV of an import route: the body (Content-Type text/csv) and the file name from X-File-Name. */
export async function csvUpload(request: Request, headers: Record<string, string | undefined>): Promise<ImportFile> {
  if (!CSV_TYPES.test(headers['content-type'] ?? '')) throw invalid([{ field: 'Content-Type', message: 'must be text/csv' }]);
  return { name: fileNameHeader(headers['x-file-name']), bytes: new Uint8Array(await request.arrayBuffer()) };
}

/**
 * A run's REST answer: 200 checked or imported, 422 refused (with its rows) or a file refused as a whole. The answer
 * lists one page of the rows (a file of 50,000 rows with errors would otherwise answer tens of megabytes); the counts
 * are those of the whole file.
 */
export async function importAnswer(run: () => Promise<ImportResult>, set: { status?: number | string }, query: ImportModeQuery) {
  try {
    const result = await run();
    set.status = result.outcome === 'refused' ? 422 : 200;
    const { page, pageSize, offset } = paging({ page: query.page, pageSize: query.pageSize ?? ANSWER_ROWS.default });
    const listed = query.outcome ? result.rows.filter((row) => row.outcome === query.outcome) : result.rows;
    return {
      data: { outcome: result.outcome, counts: result.counts, rows: listed.slice(offset, offset + pageSize), total: listed.length, page, pageSize },
    };
  } catch (error) {
    if (!(error instanceof CsvRefusal)) throw error;
    set.status = 422;
    return { error: error.message };
  }
}

/**
 * POST /api/v1/<area>/import?mode=check|apply for each import type: the CSV is the body (Content-Type text/csv), the file
 * name in X-File-Name. Needs <module>:create or <module>:update (token scope and the creator's right).
 */
export function csvImportApi(ctx: AppContext, types: readonly ImportType[]) {
  const api = new Elysia({ name: 'api:csv-imports' }).use(apiAuth(ctx));
  for (const importType of types) {
    const type = importType;
    const rights = importRights(type);
    const scopes = rights.create === rights.update ? `\`${rights.create}\`` : `\`${rights.create}\` or \`${rights.update}\``;
    api.post(`/api/v1/${type.area}/import`, async ({ actor, request, query, headers, set }) => {
      const file = await csvUpload(request, headers);
      return importAnswer(() => runCsvImport(ctx.db, type, actor, file, query.mode), set, query);
    }, {
      scopeAnyOf: [rights.create, rights.update],
      parse: 'none',
      query: ImportModeQuery,
      response: importResponses,
      detail: {
        tags: [type.title],
        summary: `Check or import a CSV file of ${type.title.toLowerCase()}`,
        security: [{ bearerAuth: [] }],
        'x-required-scope': rights.create,
        'x-required-scopes-any-of': [...new Set([rights.create, rights.update])],
        description: [
          `Needs scope ${scopes} on the token (and the creator's right); creating rows need \`${rights.create}\`, rows with an id need \`${rights.update}\`.`,
          'Body: the CSV file (UTF-8, comma or semicolon separated, header row first), Content-Type text/csv; the file name in the X-File-Name header.',
          'mode=check runs every row through the service in a transaction that is rolled back (200). mode=apply imports only when every row succeeds (200, outcome imported);',
          'otherwise nothing is imported (422, outcome refused, rows with their errors). The answer lists one page of the rows (`page`, `pageSize`, `outcome`) with exact counts. A file refused as a whole (not CSV, empty, header only, over 10 MB or 50,000 rows,',
          'unknown or repeated column) answers 422 { "error": "<message>" }. Columns: see docs/csv-import.md.',
        ].join(' '),
        parameters: [{ name: 'X-File-Name', in: 'header', required: false, schema: { type: 'string' }, description: 'Name of the file, recorded in History and the Audit Log' }],
        requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' as const } } } },
      },
    });
  }
  return api;
}

/** The REST routes and screens of every import type, as one plugin for app.ts. */
export const csvImports = (ctx: AppContext, types: readonly ImportType[]): AnyElysia =>
  new Elysia({ name: 'module:csv-imports' }).use(csvImportApi(ctx, types)).use(csvImportPages(ctx, types));
