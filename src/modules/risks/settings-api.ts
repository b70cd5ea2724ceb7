import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Data, HistoryList } from '../../platform/http/envelopes';
import { listHistory } from '../../platform/audit/history';
import { RiskScale, RiskScaleView } from './schema';
import { RISK_SCALE_RECORD, getRiskScale, replaceRiskScale } from './settings-service';

const tags = ['Risk settings'];

/** The risk scale: read with risks:read, replaced with Settings rights (the classifications are classifications.ts). */
export const riskSettingsApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:risk-settings', prefix: '/api/v1' })
    .use(apiAuth(ctx))
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
