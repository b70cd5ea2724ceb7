import { Elysia } from 'elysia';
import { apiAuth } from '../http/api-auth';
import { runWrite, type AppContext } from '../http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../http/envelopes';
import { pageEnvelope } from '../http/paging';
import { NameListInput, NameListPatch, NameListQuery, type NameList } from './name-list';

export interface NameListApiOptions {
  /** The list's address: '/api/v1/risk-classifications'. */
  prefix: string;
  /** The OpenAPI tag its operations appear under (declared in the module's `apiTags`). */
  tag: string;
}

/**
 * A name list's REST routes: list (with how many records use each entry), add, read, rename or describe, delete
 * (409 while records use it) and History. Reading needs the register's read scope, changing the Settings scopes.
 */
export function nameListApi<C extends string>(ctx: AppContext, list: NameList<C>, options: NameListApiOptions) {
  const { spec, aLabel } = list;
  const lower = spec.label.toLowerCase();
  const tags = [options.tag];
  const read = spec.readers;
  return new Elysia({ name: `api:${options.prefix}`, prefix: options.prefix })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await list.list(ctx.db, actor, query) }), {
      scope: read, query: NameListQuery, response: pageEnvelope(list.View),
      detail: { tags, summary: `List ${spec.plural.toLowerCase()} with how many ${spec.usedBy.many} use each` },
    })
    .post('', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => list.create(tx, actor, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'settings:create', body: NameListInput, response: { 201: Created },
      detail: { tags, summary: `Add ${aLabel} (409 when the name is taken)` },
    })
    .get('/:id', async ({ actor, params }) => ({ data: await list.get(ctx.db, actor, params.id) }), {
      scope: read, params: IdParam, response: Data(list.View), detail: { tags, summary: `Read ${aLabel}` },
    })
    .patch('/:id', async ({ actor, params, body }) => ({ data: await runWrite(ctx, (tx) => list.update(tx, actor, params.id, body)) }), {
      scope: 'settings:update', params: IdParam, body: NameListPatch, response: Data(list.View),
      detail: { tags, summary: `Rename or describe ${aLabel}` },
    })
    .delete('/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => list.remove(tx, actor, params.id));
      set.status = 204;
      return null;
    }, {
      scope: 'settings:update', params: IdParam,
      detail: { tags, summary: `Delete an unused ${lower} (409 naming how many ${spec.usedBy.many} use it)`, responses: deletedResponses },
    })
    .get('/:id/history', async ({ actor, params }) => ({ data: await list.history(ctx.db, actor, params.id) }), {
      scope: read, params: IdParam, response: HistoryList, detail: { tags, summary: `${aLabel[0].toUpperCase()}${aLabel.slice(1)}'s History` },
    });
}
