import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/http/envelopes';
import { listHistory } from '../../platform/audit/history';
import { pageEnvelope } from '../../platform/http/paging';
import {
  ClassificationInput, ClassificationListQuery, ClassificationPatch, ClassificationView, RiskScale, RiskScaleView,
} from './schema';
import {
  RISK_SCALE_RECORD, createClassification, deleteClassification, getClassification, getRiskScale, listClassifications,
  replaceRiskScale, updateClassification,
} from './settings-service';

const tags = ['Risk settings'];

/** Classifications and the risk scale: read with risks:read, changed with Settings rights. */
export const riskSettingsApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:risk-settings', prefix: '/api/v1' })
    .use(apiAuth(ctx))
    .get('/risk-classifications', async ({ actor, query }) => ({ data: await listClassifications(ctx.db, actor, query) }), {
      scope: 'risks:read', query: ClassificationListQuery, response: pageEnvelope(ClassificationView),
      detail: { tags, summary: 'List risk classifications with how many risks use each' },
    })
    .post('/risk-classifications', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createClassification(tx, actor, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'settings:create', body: ClassificationInput, response: { 201: Created },
      detail: { tags, summary: 'Add a risk classification (409 when the name is taken)' },
    })
    .get('/risk-classifications/:id', async ({ actor, params }) => ({ data: await getClassification(ctx.db, actor, params.id) }), {
      scope: 'risks:read', params: IdParam, response: Data(ClassificationView), detail: { tags, summary: 'Read a risk classification' },
    })
    .patch('/risk-classifications/:id', async ({ actor, params, body }) => {
      return { data: await runWrite(ctx, (tx) => updateClassification(tx, actor, params.id, body)) };
    }, {
      scope: 'settings:update', params: IdParam, body: ClassificationPatch, response: Data(ClassificationView),
      detail: { tags, summary: 'Rename or describe a risk classification' },
    })
    .delete('/risk-classifications/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deleteClassification(tx, actor, params.id));
      set.status = 204;
      return null;
    }, {
      scope: 'settings:update', params: IdParam,
      detail: { tags, summary: 'Delete an unused risk classification (409 naming how many risks use it)', responses: deletedResponses },
    })
    .get('/risk-classifications/:id/history', async ({ actor, params }) => {
      await getClassification(ctx.db, actor, params.id);
      return { data: await listHistory(ctx.db, 'risk_classification', params.id) };
    }, { scope: 'risks:read', params: IdParam, response: HistoryList, detail: { tags, summary: "A risk classification's History" } })
    .get('/risk-scale', async ({ actor }) => ({ data: await getRiskScale(ctx.db, actor) }), {
      scope: 'risks:read', response: Data(RiskScaleView),
      detail: { tags, summary: 'The risk scale: likelihood and impact levels, the score matrix and the bands' },
    })
    .put('/risk-scale', async ({ actor, body }) => {
      return { data: await runWrite(ctx, (tx) => replaceRiskScale(tx, actor, body)) };
    }, {
      scope: 'settings:update', body: RiskScale, response: Data(RiskScaleView),
      detail: {
        tags,
        summary: 'Replace levels, cells and bands at once (a cell for every pair; bands must not overlap; levels used by risks stay)',
      },
    })
    .get('/risk-scale/history', async ({ actor }) => {
      await getRiskScale(ctx.db, actor);
      return { data: await listHistory(ctx.db, RISK_SCALE_RECORD.recordType, RISK_SCALE_RECORD.recordId) };
    }, { scope: 'risks:read', response: HistoryList, detail: { tags, summary: "The risk scale's History" } });
