import { Elysia } from 'elysia';
import { ImportButton, importEntries, importTypesUnder } from '../../platform/csv/pages';
import { attempt, formText } from '../../platform/http/form-input';
import {
  ConfirmPackageDelete, IMPORT_PATH, ImportForm, ImportPreview, PACKAGES_PATH, PREVIEW_PATH, PackageList, TOO_LARGE_MESSAGE, packageCsvColumns, type PackageListFilters,
  emptyImportValues,
  type ImportFormValues,
} from './views/packages';
import { renderScreen } from '../../platform/http/screen';
import { SCREEN_REQUEST_LIMIT } from '../../platform/http/screen-limits';
import { runWrite, type AppContext } from '../../platform/http/context';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { parsePackageCsv } from './package-csv';
import { deletePackage, exportPackage, getPackage, importPackage, listPackages, validatePackage } from './packages-service';
import { ITEM_KINDS, type ItemCounts, type PackageInput, type PackageItem, type PackageProblem, type PackageView } from './schema';
import { isUuid } from '../../platform/core/uuid';
import { toCsv } from '../../platform/csv/write';
import { platformService } from '../../platform/http/installed';
import { SHIPPED_PACKAGES, importShippedPackage } from './shipped';
import { exportOscalCatalog, oscalModelOf, readOscal } from './oscal';

/** The largest OSCAL catalog file the import dialog reads (other package files: the screens' 1 MB). */
export const OSCAL_SCREEN_LIMIT = 16 * 1024 * 1024;
export const OSCAL_TOO_LARGE_MESSAGE =
  'This OSCAL file is larger than the 16 MB the import dialog reads. Import it with POST /api/v1/compliance/packages as application/oscal+json (an API token with compliance:create).';
import { packageScores } from './analyses-service';

const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'compliance' });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);

/** What the preview shows of a file with problems: every item that is an object, its fields as text. */
function bestEffortInput(parsed: unknown): PackageInput | null {
  if (!isRecord(parsed)) return null;
  const items: PackageItem[] = (Array.isArray(parsed.items) ? parsed.items : []).filter(isRecord).map((item) => ({
    code: stringOr(item.code),
    name: stringOr(item.name),
    description: stringOr(item.description),
    parentCode: typeof item.parentCode === 'string' ? item.parentCode : null,
    kind: ITEM_KINDS.find((kind) => kind === item.kind) ?? '',
  }));
  return { name: stringOr(parsed.name), standard: stringOr(parsed.standard), version: stringOr(parsed.version), description: stringOr(parsed.description), items };
}

export function countItems(items: readonly PackageItem[]): ItemCounts {
  const counts: ItemCounts = { total: items.length, requirement: 0, additional: 0, heading: 0 };
  for (const item of items) {
    const kind = item.kind || 'requirement';
    if (kind in counts) counts[kind] += 1;
  }
  return counts;
}

export interface ReadPackage {
  input: PackageInput | null;
  problems: PackageProblem[];
  /** Which reading applied: package CSV, package JSON, or an OSCAL document (JSON whose top-level key is an OSCAL model). */
  format?: 'csv' | 'json' | 'oscal';
  /** What the preview says besides problems (withdrawn OSCAL controls left out). */
  note?: string;
}

const looksJson = (fileName: string, body: string) => /\.json$/i.test(fileName) || (!/\.csv$/i.test(fileName) && body.trimStart().startsWith('{'));

/**
 * Reads an uploaded package file without writing anything: JSON by its .json name or a leading "{", CSV otherwise.
 * The dialog's name, standard and version are the CSV's package fields; for JSON they replace the file's when filled.
 */
export function readPackageFile(fileName: string, text: string, values: ImportFormValues): ReadPackage {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (!looksJson(fileName, body)) return { ...parsePackageCsv(body, { name: values.name, standard: values.standard, version: values.version }), format: 'csv' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { input: null, problems: [{ field: 'file', message: `is not valid JSON (${error instanceof Error ? error.message : String(error)})` }], format: 'json' };
  }
  // An OSCAL catalog (or resolved profile catalog) converts to a package; the dialog's fields replace its name, standard, version.
  if (oscalModelOf(parsed) !== null) {
    const read = readOscal(parsed, values);
    const note = read.withdrawn ? `OSCAL catalog: ${read.withdrawn} withdrawn control${read.withdrawn === 1 ? '' : 's'} left out.` : 'OSCAL catalog.';
    return { input: read.input, problems: read.problems, format: 'oscal', note };
  }
  if (isRecord(parsed)) {
    for (const field of ['name', 'standard', 'version'] as const) if (values[field].trim()) parsed[field] = values[field];
  }
  const problems = validatePackage(parsed);
  return { input: problems.length ? bestEffortInput(parsed) : (parsed as PackageInput), problems, format: 'json' };
}

const formValues = (body: unknown): ImportFormValues =>
  ({ name: formText(body, 'name'), standard: formText(body, 'standard'), version: formText(body, 'version') });

/** "NIST SP 800-53 rev5" -> "nist-sp-800-53-rev5.json": a plain ASCII download name. */
export const exportFileName = (name: string, suffix = '.json') =>
  `${name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'package'}${suffix}`;

/** Rows of the list's CSV export at most (as the registers' Export). */
const EXPORT_LIMIT = 5_000;
const PACKAGE_SORTS = ['name', 'standard', 'version', 'headings', 'requirements', 'additional', 'createdAt'].flatMap((s) => [s, `-${s}`]);

/** The list's filters and sort as the address holds them; anything else reads as no filter. */
function packageFilters(query: Record<string, string | undefined>): PackageListFilters {
  return {
    q: (query.q ?? '').trim().slice(0, 200),
    ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '',
    sort: PACKAGE_SORTS.includes(query.sort ?? '') ? query.sort! : '',
  };
}

const listParams = (f: PackageListFilters) => ({ ...(f.q ? { q: f.q } : {}), ...(f.ownerId ? { ownerId: f.ownerId } : {}), ...(f.sort ? { sort: f.sort } : {}) });

/** Compliance › Packages: list with Export and Delete per row, the import dialog (preview, then Commit import), shipped frameworks. */
export const compliancePackagePages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:compliance-packages' })
    .use(screenAuth(ctx))
    .get(PACKAGES_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const page = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
      const filters = packageFilters(query);
      const [packages, users] = await Promise.all([listPackages(ctx.db, viewer, { ...listParams(filters), page }), platformService('listUsers')(ctx.db)]);
      const scores = await packageScores(ctx.db, viewer, packages.rows.map((p) => p.id));
      const canCreate = levelOf(viewer, 'compliance:create') !== null;
      // The Import menu offers the record type first: packages (their own import dialog) or compliance exceptions (CSV).
      const exceptionImports = importEntries(viewer, importTypesUnder('compliance'));
      const imports = [...(canCreate ? [{ title: 'Compliance packages', href: IMPORT_PATH }] : []), ...exceptionImports];
      const list = <PackageList page={packages} csrfToken={csrfToken} canCreate={canCreate} importButton={canCreate && exceptionImports.length === 0}
        canDelete={levelOf(viewer, 'compliance:delete') !== null}
        shipped={SHIPPED_PACKAGES} scores={scores} done={query.done} filters={filters} owners={users.map((u) => ({ value: u.id, label: u.name }))} />;
      // htmx swaps only the list (#packages); the menu stands outside it.
      const withMenu = exceptionImports.length > 0 && headers['hx-request'] !== 'true';
      return renderScreen(headers, shell('Compliance packages', viewer, csrfToken),
        withMenu ? <><p class="actions"><ImportButton entries={imports} /></p>{list}</> : list);
    }, { page: 'compliance:read' })

    // The list as filtered and sorted on screen, as CSV, at most EXPORT_LIMIT packages.
    .get(`${PACKAGES_PATH}/export.csv`, async ({ viewer, query, set }) => {
      const params = listParams(packageFilters(query));
      const rows: PackageView[] = [];
      for (let page = 1; rows.length < EXPORT_LIMIT; page++) {
        const chunk = await listPackages(ctx.db, viewer, { ...params, page, pageSize: 200 });
        rows.push(...chunk.rows);
        if (page * 200 >= chunk.total) break;
      }
      const scores = await packageScores(ctx.db, viewer, rows.map((p) => p.id));
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="compliance-packages-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv([packageCsvColumns.map((c) => c.header), ...rows.slice(0, EXPORT_LIMIT).map((p) => packageCsvColumns.map((c) => c.value(p, scores.get(p.id))))]);
    }, { page: 'compliance:read' })

    .get(IMPORT_PATH, ({ viewer, csrfToken, headers }) =>
      renderScreen(headers, shell('Import package', viewer, csrfToken), <ImportForm csrfToken={csrfToken} values={emptyImportValues} />),
    { page: 'compliance:create' })

    // Preview: parse and check on the server, render the tree and every problem; nothing is written.
    .post(PREVIEW_PATH, async ({ viewer, csrfToken, headers, body, set }) => {
      const values = formValues(body);
      const file = isRecord(body) ? body.file : undefined;
      const screen = (content: JSX.Element) => renderScreen(headers, shell('Import package', viewer, csrfToken), content);
      if (!(file instanceof Blob) || file.size === 0) {
        set.status = 400;
        return screen(<ImportForm csrfToken={csrfToken} values={values} error="Choose a CSV or JSON package file." />);
      }
      const fileName = file instanceof File && file.name ? file.name : 'package';
      // OSCAL catalogs are verbose (the moderate baseline is 1.8 MB for a 160 kB package): they may be larger than other files.
      const tooLarge = async () => {
        if (file.size > OSCAL_SCREEN_LIMIT) return OSCAL_TOO_LARGE_MESSAGE;
        if (file.size <= SCREEN_REQUEST_LIMIT) return null;
        return looksJson(fileName, await file.slice(0, 4096).text()) ? null : TOO_LARGE_MESSAGE;
      };
      const refusal = await tooLarge();
      if (refusal) {
        set.status = 413;
        return screen(<ImportForm csrfToken={csrfToken} values={values} error={refusal} />);
      }
      const { input, problems, format, note } = readPackageFile(fileName, await file.text(), values);
      if (format !== 'oscal' && file.size > SCREEN_REQUEST_LIMIT) {
        set.status = 413;
        return screen(<ImportForm csrfToken={csrfToken} values={values} error={TOO_LARGE_MESSAGE} />);
      }
      if (problems.length) set.status = 400;
      return screen(<ImportPreview csrfToken={csrfToken} fileName={fileName} values={values} input={input} problems={problems}
        counts={countItems(input?.items ?? [])} note={note} />);
    }, { page: 'compliance:create' })

    // Commit import: the previewed package arrives whole in one request and is created in one transaction.
    .post(IMPORT_PATH, async ({ viewer, csrfToken, headers, body, set, redirect }) => {
      const text = formText(body, 'package');
      if (text.length > SCREEN_REQUEST_LIMIT) {
        set.status = 413;
        return renderScreen(headers, shell('Import package', viewer, csrfToken), <ImportForm csrfToken={csrfToken} values={emptyImportValues} error={TOO_LARGE_MESSAGE} />);
      }
      const read = readPackageFile('package.json', text, emptyImportValues);
      const result = read.problems.length ? null : await attempt(() => runWrite(ctx, (tx) => importPackage(tx, viewer, read.input!)));
      if (result?.ok) return redirect(`${PACKAGES_PATH}?done=imported`, 303);
      const problems = result && !result.ok
        ? (result.error.problems.length ? result.error.problems : [{ field: 'package', message: result.error.message }])
        : read.problems;
      set.status = result && !result.ok ? result.error.status : 400;
      return renderScreen(headers, shell('Import package', viewer, csrfToken),
        <ImportPreview csrfToken={csrfToken} fileName="previewed package" values={emptyImportValues} input={read.input}
          problems={problems} counts={countItems(read.input?.items ?? [])} />);
    }, { page: 'compliance:create' })

    .post(`${PACKAGES_PATH}/shipped/:key`, async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => importShippedPackage(tx, viewer, params.key));
      return redirect(`${PACKAGES_PATH}?done=imported`, 303);
    }, { page: 'compliance:create' })

    // The package as an OSCAL catalog, as a download; importing the file gives the same package.
    .get(`${PACKAGES_PATH}/:id/export/oscal`, async ({ viewer, params, set }) => {
      const document = await exportOscalCatalog(ctx.db, viewer, params.id);
      set.headers['content-type'] = 'application/oscal+json; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="${exportFileName(String(document.catalog.metadata.title), '-oscal.json')}"`;
      return `${JSON.stringify(document, null, 2)}\n`;
    }, { page: 'compliance:read' })

    // The package in its import shape, as a download; importing the file gives the identical tree.
    .get(`${PACKAGES_PATH}/:id/export`, async ({ viewer, params, set }) => {
      const pkg = await exportPackage(ctx.db, viewer, params.id);
      set.headers['content-type'] = 'application/json; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="${exportFileName(pkg.name)}"`;
      return `${JSON.stringify(pkg, null, 2)}\n`;
    }, { page: 'compliance:read' })

    .get(`${PACKAGES_PATH}/:id/delete`, async ({ viewer, csrfToken, headers, params }) => {
      const pkg = await getPackage(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Delete ${pkg.name}`, viewer, csrfToken), <ConfirmPackageDelete pkg={pkg} csrfToken={csrfToken} />);
    }, { page: 'compliance:delete' })
    .post(`${PACKAGES_PATH}/:id/delete`, async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => deletePackage(tx, viewer, params.id));
      return redirect(`${PACKAGES_PATH}?done=deleted`, 303);
    }, { page: 'compliance:delete' });
