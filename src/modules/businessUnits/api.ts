import type { AppContext } from '../../platform/http/context';
import { Data } from '../../platform/http/envelopes';
import { recordApi } from '../../platform/records/record-api';
import { t } from 'elysia';
import { BusinessUnitCreate, BusinessUnitListQuery, BusinessUnitTreeEntry, BusinessUnitUpdate, BusinessUnitView } from './schema';
import { businessUnitKind, businessUnitTree } from './service';

export const businessUnitsApi = (ctx: AppContext) =>
  recordApi(ctx, businessUnitKind, {
    path: '/business-units', tag: 'Business units', plural: 'business units',
    Create: BusinessUnitCreate, Update: BusinessUnitUpdate, View: BusinessUnitView, ListQuery: BusinessUnitListQuery,
  })
    .get('/tree', async ({ actor }) => ({ data: await businessUnitTree(ctx.db, actor) }), {
      scope: 'businessUnits:read', response: Data(t.Array(BusinessUnitTreeEntry)),
      detail: { tags: ['Business units'], summary: 'The business unit hierarchy, depth-first with depth and path (own level: only readable units)' },
    });
