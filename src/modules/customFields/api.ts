import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, deletedResponses, IdParam } from '../../platform/http/envelopes';
import { customFieldSchemas, CustomFieldDeleteQuery, CustomFieldUpdate } from './schema';
import { createCustomField, deleteCustomField, getCustomField, listCustomFields, updateCustomField } from './service';

const tags = ['Custom fields'];

export const customFieldsApi = (ctx: AppContext) => {
  const { CustomFieldCreate, CustomFieldListQuery, CustomFieldView } = customFieldSchemas();
  return new Elysia({ name: 'api:customFields', prefix: '/api/v1/custom-fields' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listCustomFields(ctx.db, actor, query) }), {
      scope: 'customFields:read', query: CustomFieldListQuery, response: Data(t.Array(CustomFieldView)),
      detail: { tags, summary: 'List custom field definitions (filter ?module=)' },
    })
    .post('', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createCustomField(tx, actor, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'customFields:create', body: CustomFieldCreate, response: { 201: Created }, detail: { tags, summary: 'Define a custom field' } })
    .get('/:id', async ({ actor, params }) => ({ data: await getCustomField(ctx.db, actor, params.id) }), {
      scope: 'customFields:read', params: IdParam, response: Data(CustomFieldView), detail: { tags, summary: 'Read a custom field definition' },
    })
    .patch('/:id', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => updateCustomField(tx, actor, params.id, body));
      return { data: await getCustomField(ctx.db, actor, params.id) };
    }, {
      scope: 'customFields:update', params: IdParam, body: CustomFieldUpdate, response: Data(CustomFieldView),
      detail: { tags, summary: 'Change label, options, required or position (409 when a removed option is still held)' },
    })
    .delete('/:id', async ({ actor, params, query, set }) => {
      await runWrite(ctx, (tx) => deleteCustomField(tx, actor, params.id, { confirm: query.confirm === true }));
      set.status = 204;
      return null;
    }, {
      scope: 'customFields:delete', params: IdParam, query: CustomFieldDeleteQuery,
      detail: { tags, summary: 'Delete a definition and its values (409 unless ?confirm=true while records hold values)', responses: deletedResponses },
    });
};
