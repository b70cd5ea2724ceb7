import { Elysia, t, type Static } from 'elysia';
import { apiAuth } from '../../platform/api-auth';
import { runWrite, type AppContext } from '../../platform/context';
import { batchOf, BatchResults } from '../../platform/batch';
import { Data, HistoryList, IdParam } from '../../platform/envelopes';
import { listQuery, pageEnvelope } from '../../platform/paging';
import { NullableUuid, ownerView, Uuid } from '../../platform/record-schema';
import { stringEnum } from '../../platform/schema-helpers';
import { exceptionsApi } from '../exceptions/api';
import { complianceParent } from '../exceptions/parents';
import {
  analysisHistory, getAnalysis, linkRecord, linkRecords, listAnalyses, MAPPING_KINDS, packageScore, unlinkRecord, updateAnalysis, type MappingKind,
} from './analyses-service';

/** The REST shapes of analyses, mappings and the package score (one schema: route validation and OpenAPI). */

export const ANALYSIS_STATUSES = ['not_assessed', 'compliant', 'partially_compliant', 'non_compliant', 'not_applicable'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

const Person = t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]);
const Counts = t.Object({ controls: t.Integer(), policies: t.Integer(), risks: t.Integer(), projects: t.Integer() });
const Linked = t.Object({ id: t.String(), title: t.String(), status: t.String() });

export const AnalysisView = t.Object({
  id: t.String(),
  packageId: t.String(),
  package: t.Object({ id: t.String(), name: t.String() }),
  itemId: t.String(),
  item: t.Object({ code: t.String(), name: t.String(), description: t.String(), kind: t.String(), parentCode: t.Union([t.String(), t.Null()]) }),
  status: stringEnum(ANALYSIS_STATUSES),
  notes: t.String(),
  assessorId: t.Union([t.String(), t.Null()]),
  assessor: Person,
  assessedAt: t.Union([t.String(), t.Null()]),
  mappingCounts: t.Object({ ...Counts.properties }, { description: 'How many records of each kind are mapped (whether or not you can read them)' }),
  ...ownerView,
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type AnalysisView = Static<typeof AnalysisView>;

export const AnalysisDetail = t.Composite([AnalysisView, t.Object({
  mappings: t.Object({
    controls: t.Array(Linked), policies: t.Array(Linked), risks: t.Array(Linked), projects: t.Array(Linked),
  }, { description: 'Mapped records you can read (a module you hold no read right on shows none)' }),
})]);
export type AnalysisDetail = Static<typeof AnalysisDetail>;

export const AnalysisUpdate = t.Partial(t.Object({
  status: stringEnum(ANALYSIS_STATUSES),
  notes: t.String({ maxLength: 100_000 }),
  assessorId: NullableUuid,
  ownerId: NullableUuid,
  ownerGroupId: NullableUuid,
}), {
  additionalProperties: false, minProperties: 1,
  description: 'Changing status or notes records an assessment: assessor defaults to you and assessedAt is set to now',
});
export type AnalysisUpdate = Static<typeof AnalysisUpdate>;

export const ANALYSIS_SORTS = ['position', 'status', 'assessedAt', 'updatedAt'] as const;
export const AnalysisListQuery = listQuery(ANALYSIS_SORTS, {
  packageId: t.Optional(Uuid),
  status: t.Optional(stringEnum(ANALYSIS_STATUSES)),
  kind: t.Optional(stringEnum(['requirement', 'additional'] as const)),
});
export type AnalysisListQuery = Static<typeof AnalysisListQuery>;

export const LinkBody = t.Object({ id: Uuid }, { additionalProperties: false });

const StatusCounts = t.Object({
  total: t.Integer(), not_assessed: t.Integer(), compliant: t.Integer(), partially_compliant: t.Integer(),
  non_compliant: t.Integer(), not_applicable: t.Integer(),
  applicable: t.Integer({ description: 'total minus not_applicable' }),
  percentCompliant: t.Union([t.Number(), t.Null()], {
    description: 'compliant / applicable × 100, one decimal; not assessed items count against it; null when nothing is applicable',
  }),
  percentAssessed: t.Union([t.Number(), t.Null()], { description: '(applicable − not_assessed) / applicable × 100, one decimal' }),
});
export type StatusCounts = Static<typeof StatusCounts>;

export const PackageScore = t.Object({
  packageId: t.String(),
  requirements: StatusCounts,
  additional: t.Composite([StatusCounts], { description: 'Additional items, counted separately; headings are not counted' }),
});
export type PackageScore = Static<typeof PackageScore>;

const KindParam = t.Object({ id: t.String({ format: 'uuid' }), recordId: t.String({ format: 'uuid' }) });

export function analysesApi(ctx: AppContext) {
  const tags = ['Compliance analyses'];
  let api = new Elysia({ name: 'api:complianceAnalyses', prefix: '/api/v1/compliance' })
    .use(apiAuth(ctx))
    .get('/analyses', async ({ actor, query }) => ({ data: await listAnalyses(ctx.db, actor, query) }), {
      scope: 'compliance:read', query: AnalysisListQuery, response: pageEnvelope(AnalysisView),
      detail: { tags, summary: 'List analyses (filters packageId, status, kind; own level: analyses you own or of packages you own)' },
    })
    .get('/analyses/:id', async ({ actor, params }) => ({ data: await getAnalysis(ctx.db, actor, params.id) }), {
      scope: 'compliance:read', params: IdParam, response: Data(AnalysisDetail), detail: { tags, summary: 'Read an analysis with its mappings' },
    })
    .patch('/analyses/:id', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => updateAnalysis(tx, actor, params.id, body));
      return { data: await getAnalysis(ctx.db, actor, params.id) };
    }, { scope: 'compliance:update', params: IdParam, body: AnalysisUpdate, response: Data(AnalysisDetail), detail: { tags, summary: 'Assess an analysis (status, notes, assessor) or change its owner' } })
    .get('/analyses/:id/history', async ({ actor, params }) => ({ data: await analysisHistory(ctx.db, actor, params.id) }), {
      scope: 'compliance:read', params: IdParam, response: HistoryList, detail: { tags, summary: "An analysis's History (assessments and mapping changes)" },
    })
    .post('/mappings/batch', async ({ actor, body }) => ({
      data: { results: await runWrite(ctx, (tx) => linkRecords(tx, actor, body.items)) },
    }), {
      scope: 'compliance:update',
      body: batchOf(t.Object({
        analysisId: Uuid,
        kind: stringEnum(Object.keys(MAPPING_KINDS) as MappingKind[], { description: 'What is mapped: controls, policies, risks or projects' }),
        id: Uuid,
      }, { additionalProperties: false }), 'Each an analysis and a record to map to it, as POST /analyses/{id}/{kind} (which also needs read on that record\'s module).'),
      response: BatchResults,
      detail: { tags, summary: 'Map many records to analyses in one transaction: one result per item; a mapping already there is answered changed: false' },
    })
    .get('/packages/:id/score', async ({ actor, params }) => ({ data: await packageScore(ctx.db, actor, params.id) }), {
      scope: 'compliance:read', params: IdParam, response: Data(PackageScore),
      detail: { tags, summary: 'Compliance score of a package: requirements and additional items counted separately, headings not at all (own level: analyses you can read)' },
    });
  for (const kind of Object.keys(MAPPING_KINDS) as MappingKind[]) {
    const module = MAPPING_KINDS[kind].module;
    api = api
      .post(`/analyses/:id/${kind}`, async ({ actor, params, body, set }) => {
        await runWrite(ctx, (tx) => linkRecord(tx, actor, params.id, kind, body.id));
        set.status = 201;
        return { data: await getAnalysis(ctx.db, actor, params.id) };
      }, {
        scope: 'compliance:update', params: IdParam, body: LinkBody, response: { 201: Data(AnalysisDetail) },
        detail: { tags, summary: `Map a ${module} record to the analysis (also needs ${module}:read: 403 without it, 404 for a record you cannot read; 409 if already mapped)` },
      })
      .delete(`/analyses/:id/${kind}/:recordId`, async ({ actor, params }) => {
        await runWrite(ctx, (tx) => unlinkRecord(tx, actor, params.id, kind, params.recordId));
        return { data: await getAnalysis(ctx.db, actor, params.id) };
      }, {
        scope: 'compliance:update', params: KindParam, response: Data(AnalysisDetail),
        detail: { tags, summary: `Remove a mapped ${module} record (also needs ${module}:read)` },
      });
  }
  return new Elysia({ name: 'api:compliance-analyses' }).use(api).use(exceptionsApi(ctx, complianceParent));
}
