import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/api-auth';
import { runWrite, type AppContext } from '../../platform/context';
import { batchOf, BatchResults, resultOf } from '../../platform/batch';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/envelopes';
import { listHistory } from '../../platform/history';
import { pageEnvelope } from '../../platform/paging';
import { createRecords, loadOwnerLookup, updateRecords } from '../../platform/records';
import { riskBatchKind } from './import';
import { RiskCreate, RiskListQuery, RiskUpdate, RiskView } from './schema';
import { createRisk, deleteRisk, getRisk, listRisks, updateRisk } from './service';

const tags = ['Risks'];

export const risksApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:risks', prefix: '/api/v1/risks' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listRisks(ctx.db, actor, query) }), {
      scope: 'risks:read', query: RiskListQuery, response: pageEnvelope(RiskView),
      detail: { tags, summary: 'List risks (own level: only those you or your groups own)' },
    })
    .post('', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createRisk(tx, actor, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'risks:create', body: RiskCreate, response: { 201: Created }, detail: { tags, summary: 'Create a risk' } })
    .post('/batch', async ({ actor, body }) => {
      const outcomes = await runWrite(ctx, async (tx) => createRecords(tx, await riskBatchKind(tx, actor), actor, body.items, { owners: await loadOwnerLookup(tx) }));
      return { data: { results: outcomes.map(resultOf) } };
    }, {
      scope: 'risks:create', body: batchOf(RiskCreate, 'Each as the body of POST /risks.'), response: BatchResults,
      detail: { tags, summary: 'Create many risks in one transaction: one result per item (refused items are listed, the others written)' },
    })
    .patch('/batch', async ({ actor, body }) => {
      const items = body.items.map((item) => ({ id: item.id, patch: item.changes }));
      const outcomes = await runWrite(ctx, async (tx) => updateRecords(tx, await riskBatchKind(tx, actor), actor, items, { owners: await loadOwnerLookup(tx) }));
      return { data: { results: outcomes.map(resultOf) } };
    }, {
      scope: 'risks:update',
      body: batchOf(t.Object({ id: t.String({ format: 'uuid' }), changes: RiskUpdate }, { additionalProperties: false }), 'Each an id and the changes, as the body of PATCH /risks/{id}.'),
      response: BatchResults,
      detail: { tags, summary: 'Change many risks in one transaction: one result per item (refused items are listed, the others written)' },
    })
    .get('/:id', async ({ actor, params }) => ({ data: await getRisk(ctx.db, actor, params.id) }), {
      scope: 'risks:read', params: IdParam, response: Data(RiskView), detail: { tags, summary: 'Read a risk with its computed scores' },
    })
    .patch('/:id', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => updateRisk(tx, actor, params.id, body));
      return { data: await getRisk(ctx.db, actor, params.id) };
    }, { scope: 'risks:update', params: IdParam, body: RiskUpdate, response: Data(RiskView), detail: { tags, summary: 'Change a risk' } })
    .delete('/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deleteRisk(tx, actor, params.id));
      set.status = 204;
      return null;
    }, { scope: 'risks:delete', params: IdParam, detail: { tags, summary: 'Delete a risk', responses: deletedResponses } })
    .get('/:id/history', async ({ actor, params }) => {
      await getRisk(ctx.db, actor, params.id);
      return { data: await listHistory(ctx.db, 'risk', params.id) };
    }, { scope: 'risks:read', params: IdParam, response: HistoryList, detail: { tags, summary: "A risk's History" } });
