import { Elysia, t, type AnyElysia } from 'elysia';
import { apiAuth } from '../api-auth';
import type { AppContext } from '../context';
import { ErrorBody, exactly } from '../envelopes';
import { invalid } from '../errors';
import { stringEnum } from '../schema-helpers';
import { cleanFileName, runCsvImport, type ImportFile, type ImportMode, type ImportResult } from './engine';
import { importRights, type ImportType } from './import-type';
import { CsvRefusal } from './parse';
import { csvImportPages } from './pages';

const RowSchema = t.Object({
  line: t.Integer({ description: 'Line of the file where the row starts (the header is line 1)' }),
  outcome: stringEnum(['create', 'update', 'unchanged', 'error'] as const),
  changes: t.Optional(t.Array(t.Object({ column: t.String(), old: t.String(), new: t.String() }), { description: 'Update rows: each changed column, old -> new' })),
  errors: t.Optional(t.Array(t.Object({ column: t.String(), message: t.String() }), { description: 'Error rows: every reason' })),
});
/** The answer of every CSV check or import (record types and account review items alike). */
export const ImportAnswer = exactly(t.Object({
  data: t.Object({
    outcome: stringEnum(['checked', 'imported', 'refused'] as const),
    counts: t.Object({ create: t.Integer(), update: t.Integer(), unchanged: t.Integer(), error: t.Integer() }),
    rows: t.Array(RowSchema),
  }),
}));

/** The query and answers of every CSV import route. */
export const ImportModeQuery = t.Object({
  mode: stringEnum(['check', 'apply'] as const, { description: 'check: run every row and roll back; apply: import, only if every row succeeds' }),
});
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

/** A run's REST answer: 200 checked or imported, 422 refused (with its rows) or a file refused as a whole. */
export async function importAnswer(run: () => Promise<ImportResult>, set: { status?: number | string }) {
  try {
    const result = await run();
    set.status = result.outcome === 'refused' ? 422 : 200;
    return { data: { outcome: result.outcome, counts: result.counts, rows: result.rows } };
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
      return importAnswer(() => runCsvImport(ctx.db, type, actor, file, query.mode as ImportMode), set);
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
          'otherwise nothing is imported (422, outcome refused, rows with their errors). A file refused as a whole (not CSV, empty, header only, over 10 MB or 50,000 rows,',
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
