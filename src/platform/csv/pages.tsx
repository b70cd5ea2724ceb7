import { Elysia, type AnyElysia } from 'elysia';
import { ImportPage, ImportResultView, RefusedFile } from './import-views';
import { renderScreen } from '../http/screen';
import type { AppContext } from '../http/context';
import { forbidden } from '../core/errors';
import type { Actor } from '../permissions/permissions';
import { screenAuth } from '../http/screen-auth';
import { csvCurrentRecords, csvTemplate, importRightsMissing, mayImport, runCsvImport, type ImportMode } from './engine';
import { importRights, type ImportType } from './import-type';
import { CSV_LIMITS, CsvRefusal } from './parse';

/** One entry of an Import button: a record type the viewer may import, and where its dialog is. */
export interface ImportEntry {
  title: string;
  href: string;
}

/** The import types registered by csvImports (app.ts), so list screens can offer every type under their path. */
const registered = new Map<string, ImportType>();

/** Registered import types whose area is `area` or lies under it ('policies' -> policies, policies/exceptions), in registration order. */
/** The list's own type first, then those below it in area order (whatever order the modules registered them in). */
export const importTypesUnder = (area: string): ImportType[] =>
  [...registered.values()].filter((t) => t.area === area || t.area.startsWith(`${area}/`))
    .sort((a, b) => Number(b.area === area) - Number(a.area === area) || a.area.localeCompare(b.area));

/** The entries of `types` the viewer may import (create or update right of the type). */
export const importEntries = (viewer: Actor, types: readonly ImportType[]): ImportEntry[] =>
  types.filter((t) => mayImport(viewer, t)).map((t) => ({ title: t.title, href: `/${t.area}/import` }));

/**
 * The Import button of a list screen. One entry that is the list's own type: a plain Import button. Otherwise a menu
 * that first offers the record type (Risks / Risk exceptions); nothing when the viewer may import none of them.
 */
export function ImportButton({ entries, own }: { entries: ImportEntry[]; own?: string }): JSX.Element {
  if (entries.length === 0) return <></>;
  if (entries.length === 1 && entries[0].href === own) return <a class="button secondary" href={entries[0].href}>Import</a>;
  if (entries.length === 1) return <a class="button secondary" href={entries[0].href} safe>{`Import ${entries[0].title.toLowerCase()}`}</a>;
  return (
    <details class="menu import-menu">
      <summary class="button secondary">Import</summary>
      <ul class="card">
        {entries.map((e) => <li><a href={e.href} safe>{e.title}</a></li>)}
      </ul>
    </details>
  );
}

const requireImport = (viewer: Actor, type: ImportType) => {
  if (!mayImport(viewer, type)) {
    throw Object.assign(forbidden(importRightsMissing(type)), { actor: viewer });
  }
};

const field = (body: unknown, name: string): unknown => (body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined);

const csvDownload = (set: { headers: Record<string, string | number> }, fileName: string, csv: string) => {
  set.headers['content-type'] = 'text/csv; charset=utf-8';
  set.headers['content-disposition'] = `attachment; filename="${fileName}"`;
  return csv;
};

/**
 * The import dialog of each type at /<area>/import: upload and Check file (htmx, with a progress indicator), the result
 * table, Import rows, and the template and current-records downloads. Check and import answer 200 with a fragment
 * (htmx swaps only 2xx answers), the fragment saying what was refused.
 */
export function csvImportPages(ctx: AppContext, types: readonly ImportType[]) {
  const pages: AnyElysia = new Elysia({ name: 'pages:csv-imports' }).use(screenAuth(ctx));
  for (const importType of types) {
    const type = importType;
    registered.set(type.area, type);
    const shell = (viewer: Actor, csrfToken: string) => ({ title: `Import ${type.title.toLowerCase()}`, viewer, csrfToken, active: type.area });
    const run = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, name: string, text: string, mode: ImportMode) => {
      try {
        const result = await runCsvImport(ctx.db, type, viewer, { name, bytes: new TextEncoder().encode(text) }, mode);
        return renderScreen(headers, shell(viewer, csrfToken),
          <ImportResultView area={type.area} result={result} csrfToken={csrfToken} csv={mode === 'check' ? text : undefined}
            recordHref={type.recordHref ?? ((id) => `/${type.area}/${id}`)} />);
      } catch (error) {
        if (error instanceof CsvRefusal) return renderScreen(headers, shell(viewer, csrfToken), <RefusedFile message={error.message} />);
        throw error;
      }
    };
    pages
      .get(`/${type.area}/import`, ({ viewer, csrfToken, headers }) => {
        requireImport(viewer, type);
        return renderScreen(headers, shell(viewer, csrfToken),
          <ImportPage area={type.area} title={type.title} csrfToken={csrfToken} maxMegabytes={CSV_LIMITS.maxBytes / 1024 / 1024} maxRows={CSV_LIMITS.maxRows} />);
      }, { page: true })
      .post(`/${type.area}/import/check`, async ({ viewer, csrfToken, headers, body }) => {
        requireImport(viewer, type);
        const file = field(body, 'file');
        if (!(file instanceof Blob) || file.size === 0) {
          return renderScreen(headers, shell(viewer, csrfToken), <RefusedFile message="Choose a CSV file to check (the chosen file is empty)." />);
        }
        if (file.size > CSV_LIMITS.maxBytes) {
          return renderScreen(headers, shell(viewer, csrfToken), <RefusedFile message={`The file is over ${CSV_LIMITS.maxBytes / 1024 / 1024} MB; split it into smaller files.`} />);
        }
        const bytes = new Uint8Array(await file.arrayBuffer());
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
        } catch {
          return renderScreen(headers, shell(viewer, csrfToken), <RefusedFile message='The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.' />);
        }
        return run(viewer, csrfToken, headers, file instanceof File ? file.name : 'upload.csv', text, 'check');
      }, { page: true })
      .post(`/${type.area}/import/apply`, async ({ viewer, csrfToken, headers, body }) => {
        requireImport(viewer, type);
        const csv = field(body, 'csv');
        const name = field(body, 'fileName');
        if (typeof csv !== 'string' || csv === '') {
          return renderScreen(headers, shell(viewer, csrfToken), <RefusedFile message="Check a file first, then import its rows." />);
        }
        return run(viewer, csrfToken, headers, typeof name === 'string' ? name : 'upload.csv', csv, 'apply');
      }, { page: true })
      .get(`/${type.area}/import/template.csv`, async ({ viewer, set, query }) => {
        requireImport(viewer, type);
        return csvDownload(set, `${type.area}-template.csv`, await csvTemplate(ctx.db, type, query.comments !== 'false'));
      }, { page: true })
      .get(`/${type.area}/import/current.csv`, async ({ viewer, set }) => {
        const { csv, truncated } = await csvCurrentRecords(ctx.db, type, viewer);
        if (truncated) set.headers['x-truncated'] = 'true';
        return csvDownload(set, `${type.area}.csv`, csv);
      }, { page: importRights(type).read });
  }
  return pages;
}
