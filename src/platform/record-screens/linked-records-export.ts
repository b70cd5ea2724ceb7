import { Elysia } from 'elysia';
import type { AppContext } from '../http/context';
import { screenAuth } from '../http/screen-auth';
import { notFound } from '../core/errors';
import { toCsv } from '../csv/write';
import { LINKED_EXPORT_LIMIT, linkedPage, linkedSectionOf, linkedSortOf } from '../records/linked-records';
import { recordType } from '../records/record-types';

/**
 * A what-links-here section's Export CSV (src/platform/records/linked-records.tsx): every linked record the viewer may
 * read (at most LINKED_EXPORT_LIMIT), by name, with the section's detail column under its header, in the order chosen.
 * The same rules as the section's pages: a host record the viewer may read, and the listed type's read right.
 */
export const linkedRecordsExport = (ctx: AppContext) => new Elysia({ name: 'platform:linked-records-export' })
  .use(screenAuth(ctx))
  .get('/linked/:kind/:id/:key/export.csv', async ({ viewer, params, query, set }) => {
    const { links, record } = await linkedSectionOf(ctx, viewer, params);
    const type = recordType(links.listed);
    const view = await linkedPage(ctx, viewer, links, params.id, 1, linkedSortOf(links, query.sort), LINKED_EXPORT_LIMIT);
    if (!view) throw notFound('section');
    const name = `${record.row.title}-${links.heading ?? type.plural}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || 'linked-records';
    set.headers['content-type'] = 'text/csv; charset=utf-8';
    set.headers['content-disposition'] = `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`;
    return toCsv([
      [links.name?.header ?? type.label, ...(links.detail ? [links.detail.header] : []), ...(links.columns ?? []).map((c) => c.header)],
      ...view.rows.map((row) => [row.title, ...(links.detail ? [row.detail ?? ''] : []), ...row.more.map((value) => value ?? '')]),
    ]);
  }, { page: true });
