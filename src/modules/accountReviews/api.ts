import { runWrite, type AppContext } from '../../platform/http/context';
import { csvUpload, importAnswer, importResponses, ImportModeQuery } from '../../platform/csv/routes';
import { importReviewItems, ITEM_COLUMNS } from './import';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import { recordApi } from '../../platform/records/record-api';
import { ItemCreate, ItemDecision, ItemListQuery, ItemParams, ItemView, ProgramCreate, ProgramListQuery, ProgramUpdate, ProgramView } from './schema';
import { addItem, decideItem, getItem, itemHistory, listItems, programKind, removeItem } from './service';

const tags = ['Account reviews'];

/** Review programs (the register kit) and their items under /api/v1/account-reviews/:id/items. */
export const accountReviewsApi = (ctx: AppContext) =>
  recordApi(ctx, programKind, {
    path: '/account-reviews', tag: 'Account reviews', plural: 'review programs',
    Create: ProgramCreate, Update: ProgramUpdate, View: ProgramView, ListQuery: ProgramListQuery,
  })
    .get('/:id/items', async ({ actor, params, query }) => ({ data: await listItems(ctx.db, actor, params.id, query) }), {
      scope: 'accountReviews:read', params: IdParam, query: ItemListQuery, response: pageEnvelope(ItemView),
      detail: { tags, summary: "A review program's items (filter decision=pending|keep|revoke|modify, q on account or system)" },
    })
    .post('/:id/items', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => addItem(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'accountReviews:update', params: IdParam, body: ItemCreate, response: { 201: Created },
      detail: { tags, summary: 'Add an account to review (409 when the program is closed)' },
    })
    .post('/:id/items/import', async ({ actor, params, query, headers, request, set }) => {
      const file = await csvUpload(request, headers);
      return importAnswer(() => importReviewItems(ctx.db, actor, params.id, file, query.mode), set, query);
    }, {
      scope: 'accountReviews:update', params: IdParam, parse: 'none', query: ImportModeQuery, response: importResponses,
      detail: {
        tags,
        summary: 'Check or import a CSV of review items into the program (409 when it is closed)',
        description: [
          `Columns: ${ITEM_COLUMNS.map((c) => ('required' in c ? `${c.name}*` : c.name)).join(', ')}. Body: the CSV file, Content-Type text/csv; the file name in X-File-Name.`,
          'mode=check runs every row and rolls back (200); mode=apply imports only when every row succeeds (200, imported), else nothing (422, refused, rows with errors).',
          'The answer lists one page of the rows (`page`, `pageSize`, `outcome`) with exact counts.',
          'A file refused as a whole answers 422 { "error": "..." }.',
        ].join(' '),
        requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' } } } },
      },
    })
    .get('/:id/items/:itemId', async ({ actor, params }) => ({ data: await getItem(ctx.db, actor, params.id, params.itemId) }), {
      scope: 'accountReviews:read', params: ItemParams, response: Data(ItemView), detail: { tags, summary: 'Read a review item' },
    })
    .patch('/:id/items/:itemId', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => decideItem(tx, actor, params.id, params.itemId, body));
      return { data: await getItem(ctx.db, actor, params.id, params.itemId) };
    }, {
      scope: 'accountReviews:update', params: ItemParams, body: ItemDecision, response: Data(ItemView),
      detail: { tags, summary: 'Record a decision (keep, revoke, modify); reviewer defaults to you, reviewed now; 409 when the program is closed' },
    })
    .delete('/:id/items/:itemId', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => removeItem(tx, actor, params.id, params.itemId));
      set.status = 204;
      return null;
    }, {
      scope: 'accountReviews:update', params: ItemParams,
      detail: { tags, summary: 'Remove an item from an open program', responses: deletedResponses },
    })
    .get('/:id/items/:itemId/history', async ({ actor, params }) => ({ data: await itemHistory(ctx.db, actor, params.id, params.itemId) }), {
      scope: 'accountReviews:read', params: ItemParams, response: HistoryList, detail: { tags, summary: "A review item's History (its decisions)" },
    });
