import { Elysia, t } from 'elysia';
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
import { exportOscalCatalog, importOscalCatalog, OSCAL_MEDIA_TYPES, OSCAL_VERSION, oscalModelOf } from './oscal';
import { requirePermission } from '../../platform/permissions/permissions';
import { exportFileName } from './packages-pages';

const tags = ['Compliance'];
const packageBody = (mediaType: string, schema: object, description: string, example?: unknown) => ({
  requestBody: { required: true, description, content: { [mediaType]: { schema, ...(example === undefined ? {} : { example }) } } },
});

/** The example the document shows for a package import: a heading and two requirements under it. */
const packageExample = {
  name: 'Internal security baseline',
  standard: 'ISB',
  version: '2026',
  description: 'The company baseline every system meets',
  items: [
    { code: 'AC', name: 'Access control', kind: 'heading' },
    { code: 'AC-1', name: 'Accounts are reviewed every quarter', parentCode: 'AC' },
    { code: 'AC-2', name: 'Administrators sign in with a second factor', parentCode: 'AC', description: 'Every administrator account, including break-glass ones' },
  ],
} satisfies PackageInput;

/** Whether a package import request carries an OSCAL document: by its media type or the `format=oscal` query flag. */
export function isOscalRequest(request: Request, contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return (OSCAL_MEDIA_TYPES as readonly string[]).includes(type) || new URL(request.url).searchParams.get('format') === 'oscal';
}

/** What the document shows of an OSCAL catalog; the full rules are NIST's OSCAL catalog JSON Schema. */
const oscalCatalogSchema = {
  type: 'object',
  required: ['catalog'],
  description: `An OSCAL catalog (JSON), as NIST's OSCAL ${OSCAL_VERSION} catalog JSON Schema defines it: catalog.metadata.title is the package name, groups are headings, controls requirements, controls inside controls their children; statement parts are the description`,
  properties: {
    catalog: {
      type: 'object',
      required: ['uuid', 'metadata'],
      properties: {
        uuid: { type: 'string' },
        metadata: { type: 'object', required: ['title'], properties: { title: { type: 'string' }, version: { type: 'string' }, 'oscal-version': { type: 'string' } } },
        groups: { type: 'array', items: { type: 'object' } },
        controls: { type: 'array', items: { type: 'object' } },
      },
    },
  },
};

const OscalImportQuery = t.Object({
  format: t.Optional(t.Literal('oscal', { description: 'oscal: the body is an OSCAL catalog whatever its media type (the same as sending application/oscal+json)' })),
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
    .post('', async ({ actor, body, set, request }) => {
      // Both imports validate the whole body (every problem) before writing anything.
      const oscal = isOscalRequest(request, request.headers.get('content-type') ?? '');
      const model = oscal ? null : oscalModelOf(body);
      if (model) {
        // An OSCAL document sent as package JSON would be refused field by field; say what it is and how to send it.
        requirePermission(actor, 'compliance:create');
        throw packageRefused([{ field: 'body', message: `is an OSCAL ${model} document: send it with Content-Type application/oscal+json or with ?format=oscal` }]);
      }
      const created = await runWrite(ctx, (tx) => (oscal ? importOscalCatalog(tx, actor, body) : importPackage(tx, actor, body as PackageInput)));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'compliance:create', query: OscalImportQuery, response: { 201: Created, 400: PackageRefused },
      // An OSCAL document is read as text here and parsed by the import, so a file that is not JSON is refused naming why.
      parse: ({ request, contentType }) => (isOscalRequest(request, contentType) ? request.text() : undefined),
      detail: {
        tags, summary: 'Import a package (JSON or an OSCAL catalog): the package, its items and one analysis per requirement and additional item',
        description: `The body is the package JSON (application/json), or an OSCAL catalog or resolved profile catalog in JSON when sent as ${OSCAL_MEDIA_TYPES.join(' or ')} `
          + 'or with ?format=oscal: groups become headings, controls requirements, control enhancements their children, the statement the description '
          + '(parameters substituted where the catalog sets values, otherwise shown by their label or choices), the OSCAL ids the codes; withdrawn controls are left out. '
          + 'Refused (400, nothing written) naming the problem: not JSON, not OSCAL, an OSCAL model other than a catalog, an unresolved profile (its imports cannot be '
          + 'resolved offline), more than 10,000 controls. See docs/compliance-packages.md.',
        requestBody: {
          required: true,
          description: 'The package JSON; up to 10,000 items. Refused whole, with every problem listed, when anything is wrong',
          content: {
            'application/json': { schema: PackageInput as object, example: packageExample },
            ...Object.fromEntries(OSCAL_MEDIA_TYPES.map((type) => [type, { schema: oscalCatalogSchema }])),
          } as Record<string, { schema: object; example?: unknown }>,
        },
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
    .get('/:id/export/oscal', async ({ actor, params }) => {
      const document = await exportOscalCatalog(ctx.db, actor, params.id);
      return new Response(`${JSON.stringify(document, null, 2)}\n`, {
        headers: {
          'content-type': 'application/oscal+json; charset=utf-8',
          'content-disposition': `attachment; filename="${exportFileName(document.catalog.metadata.title, '-oscal.json')}"`,
        },
      });
    }, {
      scope: 'compliance:read', params: IdParam,
      detail: {
        tags, summary: `Export a package as an OSCAL ${OSCAL_VERSION} catalog (importing it gives the same package)`,
        description: 'Headings are groups, requirements and additional items controls, descriptions statement parts. What OSCAL cannot say itself (a code that is not a valid '
          + 'OSCAL id, the kind, the position, the standard) travels in properties of the namespace urn:grc-service:ns:oscal. The document meets NIST\'s OSCAL catalog JSON Schema.',
        responses: { 200: { description: 'The OSCAL catalog', content: { 'application/oscal+json': { schema: oscalCatalogSchema } } as Record<string, { schema: object }> } },
      },
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
