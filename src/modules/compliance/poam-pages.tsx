import { Elysia } from 'elysia';
import { renderScreen } from '../../platform/http/screen';
import { POAM_PATH, PoamPage, PoamResults, type PoamFilters } from './views/poam';
import type { AppContext } from '../../platform/http/context';
import { screenAuth } from '../../platform/http/screen-auth';
import { platformService } from '../../platform/http/installed';
import { isUuid } from '../../platform/core/uuid';
import { POAM_SEVERITIES, POAM_SORTS, POAM_SOURCES, POAM_STATUSES, type PoamQuery } from './schema';
import { listPoam, poamCsv, poamItems } from './poam-service';

type Query = Record<string, string | undefined>;
const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined =>
  (values as readonly string[]).includes(value ?? '') ? (value as T) : undefined;
const SORT_KEYS = POAM_SORTS.flatMap((s) => [s, `-${s}`]);

/** Filters and sort from the address; anything not recognised is ignored, as on every list screen. */
function filtersOf(query: Query): Omit<PoamQuery, 'page' | 'pageSize'> {
  const q = (query.q ?? '').trim().slice(0, 200);
  return {
    status: oneOf(POAM_STATUSES, query.status), severity: oneOf(POAM_SEVERITIES, query.severity), source: oneOf(POAM_SOURCES, query.source),
    overdue: oneOf(['true', 'false'] as const, query.overdue), ownerId: isUuid(query.ownerId ?? '') ? query.ownerId : undefined,
    q: q || undefined, sort: oneOf(SORT_KEYS, query.sort),
  };
}

const shown = (f: Omit<PoamQuery, 'page' | 'pageSize'>): PoamFilters => ({
  q: f.q ?? '', status: f.status ?? '', severity: f.severity ?? '', source: f.source ?? '', overdue: f.overdue ?? '', ownerId: f.ownerId ?? '', sort: f.sort ?? '',
});

/** The POA&M screen (the one filter bar, sorting headers, paging) and its CSV download with the same filters and order. */
export const poamPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:poam' })
    .use(screenAuth(ctx))
    .get(POAM_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const filters = filtersOf(query);
      const page = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
      const list = await listPoam(ctx.db, viewer, { ...filters, page, pageSize: 50 });
      const props = { ...list, filters: shown(filters) };
      if (headers['hx-request'] === 'true' && headers['hx-target']) return <PoamResults {...props} />;
      const users = await platformService('listUsers')(ctx.db);
      return renderScreen(headers, { title: 'POA&M', viewer, csrfToken, active: 'poam' },
        <PoamPage {...props} owners={users.map((u) => ({ value: u.id, label: u.name }))} />);
    }, { page: 'compliance:read' })
    .get(`${POAM_PATH}.csv`, async ({ viewer, query, set }) => {
      const items = await poamItems(ctx.db, viewer, filtersOf(query));
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="poam-${new Date().toISOString().slice(0, 10)}.csv"`;
      return poamCsv(items);
    }, { page: 'compliance:read' });
