import type { AppContext } from '../../platform/http/context';
import { recordApi, recordBatchApi } from '../../platform/records/record-api';
import { RiskCreate, RiskListQuery, RiskUpdate, RiskView } from './schema';
import { riskKind } from './service';

/** The risk register's REST surface: the kit's routes (list, create, read, change, delete, History, batch) for riskKind. */
export const risksApi = (ctx: AppContext) =>
  recordApi(ctx, riskKind, {
    path: '/risks', tag: 'Risks', plural: 'risks', Create: RiskCreate, Update: RiskUpdate, View: RiskView, ListQuery: RiskListQuery,
    summaries: { read: 'Read a risk with its computed scores', delete: 'Delete a risk' },
  })
    .use(recordBatchApi(ctx, riskKind, { path: '/risks', tag: 'Risks', plural: 'risks', Create: RiskCreate, Update: RiskUpdate }));
