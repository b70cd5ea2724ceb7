import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { batchOf, BatchResults } from '../../platform/records/batch';
import { PageQuery, pageEnvelope } from '../../platform/http/paging';
import { Created, Data, deletedResponses, HistoryList } from '../../platform/http/envelopes';
import { Uuid } from '../../platform/records/record-schema';
import { ReviewCreate, RiskReviews, TreatmentCreate, TreatmentUpdate, TreatmentView } from './schema';
import {
  createTreatment, createTreatments, deleteTreatment, listAllTreatments, listTreatments, recordRiskReview, riskReviews, treatmentHistory, updateTreatment,
} from './treatments-service';


const RiskParam = t.Object({ id: Uuid });
const TreatmentParam = t.Object({ id: Uuid, treatmentId: Uuid });
const tags = ['Risk treatments and reviews'];

export const riskTreatmentsApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:risk-treatments', prefix: '/api/v1/risks' })
    .use(apiAuth(ctx))
    .get('/treatments', async ({ actor, query }) => ({ data: await listAllTreatments(ctx.db, actor, query) }), {
      scope: 'risks:read',
      query: t.Object({ ...PageQuery.properties, riskId: t.Optional({ ...Uuid, description: 'Only this risk\'s treatments' }) }),
      response: pageEnvelope(TreatmentView),
      detail: { tags, summary: 'Treatments of every risk you can read, a page at a time, by risk (own level: risks you or your groups own)' },
    })
    .post('/treatments/batch', async ({ actor, body }) => ({
      data: { results: await runWrite(ctx, (tx) => createTreatments(tx, actor, body.items)) },
    }), {
      scope: 'risks:update',
      body: batchOf(t.Object({ riskId: Uuid, ...TreatmentCreate.properties }, { additionalProperties: false }), 'Each the risk and the treatment, as POST /risks/{id}/treatments takes it.'),
      response: BatchResults,
      detail: { tags, summary: 'Add treatments to many risks in one transaction: one result per item (refused items are listed, the others written)' },
    })
    .get('/:id/treatments', async ({ actor, params }) => ({ data: await listTreatments(ctx.db, actor, params.id) }), {
      scope: 'risks:read', params: RiskParam, response: Data(t.Array(TreatmentView)), detail: { tags, summary: "A risk's treatments" },
    })
    .post('/:id/treatments', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => createTreatment(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'risks:update', params: RiskParam, body: TreatmentCreate, response: { 201: Created },
      detail: { tags, summary: 'Add a treatment (an implemented mitigate treatment with a residual rating sets the risk\'s residual rating)' },
    })
    .patch('/:id/treatments/:treatmentId', async ({ actor, params, body }) => ({
      data: await runWrite(ctx, (tx) => updateTreatment(tx, actor, params.id, params.treatmentId, body)),
    }), { scope: 'risks:update', params: TreatmentParam, body: TreatmentUpdate, response: Data(TreatmentView), detail: { tags, summary: 'Change a treatment' } })
    .delete('/:id/treatments/:treatmentId', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deleteTreatment(tx, actor, params.id, params.treatmentId));
      set.status = 204;
      return null;
    }, { scope: 'risks:update', params: TreatmentParam, detail: { tags, summary: 'Remove a treatment', responses: deletedResponses } })
    .get('/:id/treatments/:treatmentId/history', async ({ actor, params }) => ({
      data: await treatmentHistory(ctx.db, actor, params.id, params.treatmentId),
    }), { scope: 'risks:read', params: TreatmentParam, response: HistoryList, detail: { tags, summary: "A treatment's History" } })
    .get('/:id/reviews', async ({ actor, params }) => ({ data: await riskReviews(ctx.db, actor, params.id) }), {
      scope: 'risks:read', params: RiskParam, response: Data(RiskReviews), detail: { tags, summary: "A risk's reviews and when the next is due" },
    })
    .post('/:id/reviews', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => recordRiskReview(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'risks:review', params: RiskParam, body: ReviewCreate, response: { 201: Created }, detail: { tags, summary: 'Record a review of a risk' } });
