import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/http/envelopes';
import { listHistory } from '../../platform/audit/history';
import { pageEnvelope } from '../../platform/http/paging';
import type { ListParams } from '../../platform/records/records';
import { parsePackageCsv } from './package-csv';
import {
  deletePackage, exportPackage, getPackage, importPackage, listPackages, packageKind, packageRefused, updatePackage,
} from './packages-service';
import { PackageCsvQuery, PackageInput, PackageListQuery, PackageRefused, PackageUpdate, PackageView } from './schema';

const tags = ['Compliance'];
const packageBody = (mediaType: string, schema: object, description: string) => ({
  requestBody: { required: true, description, content: { [mediaType]: { schema } } },
});

/**
 * Packages over REST. The import body is checked by the service rather than by the route, so a refused file lists
 * every problem (with its item index or CSV line), not only the first few a route validator would report.
 */
export const packagesApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:compliance-packages', prefix: '/api/v1/compliance/packages' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listPackages(ctx.db, actor, query as ListParams) }), {
      scope: 'compliance:read', query: PackageListQuery, response: pageEnvelope(PackageView),
      detail: { tags, summary: 'List compliance packages with item counts (own level: only those you or your groups own)' },
    })
    .post('', async ({ actor, body, set }) => {
      // importPackage validates the whole body (every problem) before writing anything.
      const created = await runWrite(ctx, (tx) => importPackage(tx, actor, body as PackageInput));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'compliance:create', response: { 201: Created, 400: PackageRefused },
      detail: {
        tags, summary: 'Import a package (JSON): the package, its items and one analysis per requirement and additional item',
        ...packageBody('application/json', PackageInput, 'The package JSON; up to 10,000 items. Refused whole, with every problem listed, when anything is wrong'),
      },
    })
    .post('/csv', async ({ actor, body, query, set }) => {
      const { input, problems } = parsePackageCsv(typeof body === 'string' ? body : '', query);
      if (problems.length) throw packageRefused(problems);
      const created = await runWrite(ctx, (tx) => importPackage(tx, actor, input));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'compliance:create', parse: 'text', query: PackageCsvQuery, response: { 201: Created, 400: PackageRefused },
      detail: {
        tags, summary: 'Import a package from CSV (header code, name, description, parent_code or parent, kind); name, standard and version in the query',
        ...packageBody('text/csv', { type: 'string' }, 'UTF-8 with or without BOM, comma or semicolon separated; problems are listed by file line'),
      },
    })
    .get('/:id', async ({ actor, params }) => ({ data: await getPackage(ctx.db, actor, params.id) }), {
      scope: 'compliance:read', params: IdParam, response: Data(PackageView), detail: { tags, summary: 'Read a package with its item counts by kind' },
    })
    .get('/:id/export', async ({ actor, params }) => exportPackage(ctx.db, actor, params.id), {
      scope: 'compliance:read', params: IdParam, response: PackageInput,
      detail: { tags, summary: 'Export a package in exactly the import shape (importing it gives the identical tree)' },
    })
    .patch('/:id', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => updatePackage(tx, actor, params.id, body));
      return { data: await getPackage(ctx.db, actor, params.id) };
    }, {
      scope: 'compliance:update', params: IdParam, body: PackageUpdate, response: Data(PackageView),
      detail: { tags, summary: "Change a package's name, standard, version, description or owner (the item tree stays as imported)" },
    })
    .delete('/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deletePackage(tx, actor, params.id));
      set.status = 204;
      return null;
    }, {
      scope: 'compliance:delete', params: IdParam,
      detail: { tags, summary: 'Delete a package with its items, analyses, mappings and exceptions', responses: deletedResponses },
    })
    .get('/:id/history', async ({ actor, params }) => {
      await getPackage(ctx.db, actor, params.id);
      return { data: await listHistory(ctx.db, packageKind.recordType, params.id) };
    }, { scope: 'compliance:read', params: IdParam, response: HistoryList, detail: { tags, summary: "A package's History" } });
