import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { batchOf, BatchResults } from '../../platform/records/batch';
import { Data, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import { exceptionsApi } from '../exceptions/api';
import { complianceParent } from '../exceptions/parents';
import {
  analysisHistory, getAnalysis, linkRecord, linkRecords, listAnalyses, MAPPING_KINDS, packageScore, unlinkRecord, updateAnalysis,
} from './analyses-service';
import { applyStatusCopy, crosswalk, previewStatusCopy } from './crosswalk-service';
import {
  Crosswalk, CrosswalkQuery, StatusCopyApply, StatusCopyBody, StatusCopyPreview, StatusCopyResult,
} from './schema';
import { AnalysisDetail, AnalysisListQuery, AnalysisUpdate, AnalysisView, KindParam, LinkBody, MAPPING_KIND_NAMES, MappingBatchItem, PackageScore } from './schema';

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
      body: batchOf(MappingBatchItem, 'Each an analysis and a record to map to it, as POST /analyses/{id}/{kind} (which also needs read on that record\'s module).'),
      response: BatchResults,
      detail: { tags, summary: 'Map many records to analyses in one transaction: one result per item; a mapping already there is answered changed: false' },
    })
    .get('/packages/:id/score', async ({ actor, params }) => ({ data: await packageScore(ctx.db, actor, params.id) }), {
      scope: 'compliance:read', params: IdParam, response: Data(PackageScore),
      detail: { tags, summary: 'Compliance score of a package: requirements and additional items counted separately, headings not at all (own level: analyses you can read)' },
    })
    .get('/crosswalk', async ({ actor, query }) => ({ data: await crosswalk(ctx.db, actor, query.left, query.right) }), {
      scope: 'compliance:read', query: CrosswalkQuery, response: Data(Crosswalk),
      detail: { tags, summary: 'Cross-framework view: the pairs of requirements of two packages that share at least one mapped control, with their statuses (a control you may not read is "(restricted)")' },
    })
    .post('/crosswalk/preview', async ({ actor, body }) => ({ data: await previewStatusCopy(ctx.db, actor, body.left, body.right, body.from) }), {
      scope: 'compliance:update', body: StatusCopyBody, response: Data(StatusCopyPreview),
      detail: { tags, summary: 'Preview copying statuses from one package to the other where the same controls apply (nothing is written)' },
    })
    .post('/crosswalk/apply', async ({ actor, body }) => ({
      data: { changed: await runWrite(ctx, (tx) => applyStatusCopy(tx, actor, body.left, body.right, body.from, body.changes)) },
    }), {
      scope: 'compliance:update', body: StatusCopyApply, response: Data(StatusCopyResult),
      detail: { tags, summary: 'Apply a previewed status copy in one transaction, each change audited; 409 when the preview no longer holds' },
    });
  for (const kind of MAPPING_KIND_NAMES) {
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
