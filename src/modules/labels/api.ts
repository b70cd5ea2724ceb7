import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import { LabelInput, LabelListQuery, LabelPatch, LabelView } from './schema';
import { createLabel, deleteLabel, getLabel, labelHistory, listLabels, updateLabel } from './service';

const tags = ['Labels'];

/** Labels: read with settings:read, added with settings:create, changed and deleted with settings:update. */
export const labelsApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:labels', prefix: '/api/v1/labels' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listLabels(ctx.db, actor, query) }), {
      scope: 'settings:read', query: LabelListQuery, response: pageEnvelope(LabelView), detail: { tags, summary: 'List labels' },
    })
    .post('', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createLabel(tx, actor, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'settings:create', body: LabelInput, response: { 201: Created }, detail: { tags, summary: 'Add a label (409 when the name is taken)' } })
    .get('/:id', async ({ actor, params }) => ({ data: await getLabel(ctx.db, actor, params.id) }), {
      scope: 'settings:read', params: IdParam, response: Data(LabelView), detail: { tags, summary: 'Read a label' },
    })
    .patch('/:id', async ({ actor, params, body }) => ({ data: await runWrite(ctx, (tx) => updateLabel(tx, actor, params.id, body)) }), {
      scope: 'settings:update', params: IdParam, body: LabelPatch, response: Data(LabelView), detail: { tags, summary: 'Rename, recolour or describe a label' },
    })
    .delete('/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deleteLabel(tx, actor, params.id));
      set.status = 204;
      return null;
    }, { scope: 'settings:update', params: IdParam, detail: { tags, summary: 'Delete a label (409 naming how many records of each type still carry it)', responses: deletedResponses } })
    .get('/:id/history', async ({ actor, params }) => ({ data: await labelHistory(ctx.db, actor, params.id) }), {
      scope: 'settings:read', params: IdParam, response: HistoryList, detail: { tags, summary: "A label's History" },
    });
