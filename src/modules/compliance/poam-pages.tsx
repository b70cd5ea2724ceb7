import { Elysia } from 'elysia';
import { renderScreen } from '../../platform/http/screen';
import { POAM_LABELS, PoamPage, PoamResults, type PoamFilters } from './views/poam';
import type { AppContext } from '../../platform/http/context';
import { screenAuth } from '../../platform/http/screen-auth';
import { POAM_SEVERITIES, POAM_SOURCES, POAM_STATUSES, type PoamQuery } from './schema';
import { listPoam, poamCsv, poamItems } from './poam-service';

type Query = Record<string, string | undefined>;
const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined =>
  (values as readonly string[]).includes(value ?? '') ? (value as T) : undefined;

/** Filters from the address; anything not recognised is ignored, as on every list screen. */
function filtersOf(query: Query): Omit<PoamQuery, 'page' | 'pageSize'> {
  return {
    status: oneOf(POAM_STATUSES, query.status), severity: oneOf(POAM_SEVERITIES, query.severity), source: oneOf(POAM_SOURCES, query.source),
    overdue: oneOf(['true', 'false'] as const, query.overdue),
  };
}

const shown = (f: Omit<PoamQuery, 'page' | 'pageSize'>): PoamFilters =>
  ({ status: f.status ?? '', severity: f.severity ?? '', source: f.source ?? '', overdue: f.overdue ?? '' });

/** The POA&M screen (filters, paging) and its CSV download with the same filters. */
export const poamPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:poam' })
    .use(screenAuth(ctx))
    .get('/compliance/poam', async ({ viewer, csrfToken, headers, query }) => {
      const filters = filtersOf(query);
      const page = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
      const list = await listPoam(ctx.db, viewer, { ...filters, page, pageSize: 50 });
      const props = { ...list, filters: shown(filters) };
      if (headers['hx-request'] === 'true' && headers['hx-target']) return <PoamResults {...props} />;
      return renderScreen(headers, { title: 'POA&M', viewer, csrfToken, active: 'poam' }, <PoamPage {...props} />);
    }, { page: 'compliance:read' })
    .get('/compliance/poam.csv', async ({ viewer, query, set }) => {
      const items = await poamItems(ctx.db, viewer, filtersOf(query));
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="poam-${new Date().toISOString().slice(0, 10)}.csv"`;
      return poamCsv(items, POAM_LABELS);
    }, { page: 'compliance:read' });
