import { Elysia, t, type Static } from 'elysia';
import { apiAuth } from '../../platform/api-auth';
import { runWrite, type AppContext } from '../../platform/context';
import { batchOf, BatchResults } from '../../platform/batch';
import { PageQuery, pageEnvelope } from '../../platform/paging';
import { Created, Data, deletedResponses, HistoryList } from '../../platform/envelopes';
import { IsoDate, NullableDate, Uuid } from '../../platform/record-schema';
import { stringEnum } from '../../platform/schema-helpers';
import { LevelRef } from './schema';
import {
  createTreatment, createTreatments, deleteTreatment, listAllTreatments, listTreatments, recordRiskReview, riskReviews, treatmentHistory, updateTreatment,
} from './treatments-service';

export const TREATMENT_TYPES = ['mitigate', 'accept', 'transfer', 'avoid'] as const;
export const TREATMENT_STATUSES = ['planned', 'implemented'] as const;
export const REVIEW_OUTCOMES = ['no_change', 'changed', 'escalated'] as const;

export const TreatmentCreate = t.Object({
  type: stringEnum(TREATMENT_TYPES),
  status: t.Optional(stringEnum(TREATMENT_STATUSES, { description: 'Blank gives planned' })),
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  dueOn: t.Optional(NullableDate),
  residualLikelihood: t.Optional(t.Union([LevelRef, t.Null()], { description: 'Mitigate only; never above the risk\'s inherent likelihood' })),
  residualImpact: t.Optional(t.Union([LevelRef, t.Null()], { description: 'Mitigate only; never above the risk\'s inherent impact' })),
  controlIds: t.Optional(t.Array(Uuid, {
    maxItems: 500, description: 'Mitigate only. Replaces the links to controls you can read (needs controls:read on each)',
  })),
}, { additionalProperties: false });
export type TreatmentCreate = Static<typeof TreatmentCreate>;
export const TreatmentUpdate = t.Partial(TreatmentCreate, { additionalProperties: false, minProperties: 1 });
export type TreatmentUpdate = Static<typeof TreatmentUpdate>;

const Level = t.Object({ value: t.Integer(), name: t.String() });
export const TreatmentView = t.Object({
  id: t.String(),
  riskId: t.String(),
  type: stringEnum(TREATMENT_TYPES),
  status: stringEnum(TREATMENT_STATUSES),
  title: t.String(),
  description: t.String(),
  dueOn: t.Union([t.String(), t.Null()]),
  residualLikelihood: t.Union([Level, t.Null()]),
  residualImpact: t.Union([Level, t.Null()]),
  controls: t.Array(t.Object({ id: t.String(), name: t.String() }), { description: 'Linked controls you can read' }),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type TreatmentView = Static<typeof TreatmentView>;

export const ReviewCreate = t.Object({
  reviewedOn: IsoDate,
  outcome: stringEnum(REVIEW_OUTCOMES),
  notes: t.Optional(t.String({ maxLength: 100_000 })),
  reviewerId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An active user; defaults to you' })),
}, { additionalProperties: false });
export type ReviewCreate = Static<typeof ReviewCreate>;

export const RiskReviews = t.Object({
  frequencyMonths: t.Integer(),
  lastReviewedOn: t.Union([t.String(), t.Null()]),
  nextReviewDue: t.String({ description: 'Last review plus the review frequency; the creation date plus the frequency when never reviewed' }),
  overdue: t.Boolean(),
  reviews: t.Array(t.Object({
    id: t.String(),
    reviewer: t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]),
    reviewedOn: t.String(),
    outcome: stringEnum(REVIEW_OUTCOMES),
    notes: t.String(),
    createdAt: t.String(),
  })),
});
export type RiskReviews = Static<typeof RiskReviews>;

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
