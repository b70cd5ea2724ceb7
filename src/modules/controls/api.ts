import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, IdParam } from '../../platform/http/envelopes';
import { recordApi, recordBatchApi } from '../../platform/records/record-api';
import { ControlCreate, ControlListQuery, ControlTestCreate, ControlTesting, ControlUpdate, ControlView } from './schema';
import { controlKind, controlTesting, recordControlTest } from './service';

const tags = ['Controls'];

export const controlsApi = (ctx: AppContext) =>
  recordApi(ctx, controlKind, { path: '/controls', tag: 'Controls', plural: 'controls', Create: ControlCreate, Update: ControlUpdate, View: ControlView, ListQuery: ControlListQuery })
    .use(recordBatchApi(ctx, controlKind, { path: '/controls', tag: 'Controls', plural: 'controls', Create: ControlCreate, Update: ControlUpdate }))
    .get('/:id/tests', async ({ actor, params }) => ({ data: await controlTesting(ctx.db, actor, params.id) }), {
      scope: 'controls:read', params: IdParam, response: Data(ControlTesting),
      detail: { tags, summary: "A control's testing schedule, test records and next test due" },
    })
    .post('/:id/tests', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => recordControlTest(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'controls:update', params: IdParam, body: ControlTestCreate, response: { 201: Created }, detail: { tags, summary: 'Record a control test' } });
