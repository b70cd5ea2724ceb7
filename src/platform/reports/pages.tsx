import { Elysia } from 'elysia';
import type { AppContext } from '../http/context';
import { renderScreen } from '../http/screen';
import { screenAuth } from '../http/screen-auth';
import { AppError, notFound } from '../core/errors';
import { levelOf, requirePermission, type Actor } from '../permissions/permissions';
import { streamedCsv } from '../csv/stream';
import { checkFilters, describeFilters, installedReports, PRINTABLE_LIMIT, reportCsvChunks, type InstalledReport } from './declarations';
import { PrintableReport, ReportList } from './views';

/** The reports this viewer may read (their right at any level), in module order. */
const readableReports = (viewer: Actor) => installedReports().filter((r) => levelOf(viewer, r.needs) !== null);

/** The declared report under `key`, refused unless the viewer holds its right: 404 for a key no module declares. */
function reportFor(viewer: Actor, key: string): InstalledReport {
  const found = installedReports().find((r) => r.key === key);
  if (!found) throw notFound(`report ${key}`);
  requirePermission(viewer, found.needs);
  return found;
}

const entryOf = (r: InstalledReport) => ({ key: r.key, title: r.title, description: r.description, listHref: r.listHref });

/**
 * The Report Center (`/reports`, screens only as the specification says): the list, each report's printable page and
 * its CSV download, all rendered from the modules' declarations with the rows the viewer may read.
 */
export const reportPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:reports' })
    .use(screenAuth(ctx))
    .get('/reports', ({ viewer, csrfToken, headers }) =>
      renderScreen(headers, { title: 'Reports', viewer, csrfToken, active: 'reports' }, <ReportList reports={readableReports(viewer).map(entryOf)} schedules={levelOf(viewer, 'settings:read') !== null} />),
    { page: true })
    .get('/reports/:key', async ({ viewer, csrfToken, headers, params, query, set }) => {
      const declared = reportFor(viewer, params.key);
      const offered = await declared.filtersFor(ctx, viewer);
      const bar = (selected: Record<string, unknown>) => offered.map((f) => ({
        name: f.name, label: f.label, options: f.options, type: f.kind === 'date' ? 'date' as const : undefined,
        selected: typeof selected[f.name] === 'string' ? String(selected[f.name]) : '',
      }));
      const shell = { title: declared.title, viewer, csrfToken, active: 'reports' };
      // The report's declared filters as query parameters. A filter or value it does not have is refused with 400, on
      // the report's own page with what was typed kept and each problem linked to its field; never dropped.
      let chosen;
      try {
        chosen = await checkFilters(ctx, viewer, declared, query);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'INVALID') throw error;
        set.status = 400;
        return renderScreen(headers, shell,
          <PrintableReport entry={entryOf(declared)} headers={[...declared.headers]} rows={[]} total={0}
            madeAt={new Date().toISOString()} madeFor={viewer.email ?? 'you'} filters={bar(query)}
            problems={error.problems.map((p) => ({ field: p.field, message: p.message }))} />);
      }
      const { cells, total } = await declared.table(ctx, viewer, chosen, PRINTABLE_LIMIT);
      return renderScreen(headers, shell,
        <PrintableReport entry={entryOf(declared)} headers={[...declared.headers]} rows={cells}
          total={total} madeAt={new Date().toISOString()} madeFor={viewer.email ?? 'you'}
          filters={bar(chosen)} filtered={await describeFilters(ctx, viewer, declared, chosen)} query={new URLSearchParams(chosen).toString()} />);
    }, { page: true })
    // Every row the viewer may read, written page by page as the client takes them (no limit, memory flat).
    .get('/reports/:key/csv', async ({ viewer, params, query }) => {
      const declared = reportFor(viewer, params.key);
      const chosen = await checkFilters(ctx, viewer, declared, query);
      return streamedCsv(reportCsvChunks(ctx, viewer, declared, chosen), `${declared.key}-${new Date().toISOString().slice(0, 10)}.csv`);
    }, { page: true });
