import { Elysia, t } from 'elysia';
import type { TObject, TSchema } from '@sinclair/typebox';
import { apiAuth } from '../http/api-auth';
import { runWrite, type AppContext } from '../http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../http/envelopes';
import { pageEnvelope } from '../http/paging';
import type { Permission } from '../permissions/permissions';
import { batchOf, BatchResults, resultOf } from './batch';
import {
  createRecord, createRecords, deleteRecord, getRecord, listRecords, loadOwnerLookup, recordHistory, updateRecord, updateRecords, type ListParams, type OwnedTable, type RecordKind,
} from './records';

export interface RecordApiOptions {
  /** Path under /api/v1, e.g. '/controls'. */
  path: string;
  tag: string;
  /** Plural noun for summaries: 'controls'. */
  plural: string;
  Create: TObject;
  Update: TObject;
  View: TSchema;
  ListQuery: TObject;
  /** Summaries of the operations where the register words them its own way (risks: 'Read a risk with its computed scores'). */
  summaries?: Partial<Record<'list' | 'create' | 'read' | 'update' | 'delete' | 'history', string>>;
}

/**
 * The standard REST surface of a register: list, create, read, change, delete and History, each declaring the
 * scope it needs. Modules add their sub-resources to the returned plugin.
 */
export function recordApi<T extends OwnedTable, V>(ctx: AppContext, kind: RecordKind<T, Record<string, unknown>, V>, o: RecordApiOptions) {
  const scope = (right: string) => `${kind.module}:${right}` as Permission;
  const tags = [o.tag];
  const noun = kind.label.toLowerCase();
  const summary = { ...{
    list: `List ${o.plural} (own level: only those you or your groups own)`, create: `Create a ${noun}`, read: `Read a ${noun}`,
    update: `Change a ${noun}`, delete: `Delete a ${noun} (409 while others reference it)`, history: `A ${noun}'s History`,
  }, ...o.summaries };
  return new Elysia({ name: `api:${kind.recordType}`, prefix: `/api/v1${o.path}` })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listRecords(ctx.db, kind, actor, query as ListParams) }), {
      scope: scope('read'), query: o.ListQuery, response: pageEnvelope(o.View),
      detail: { tags, summary: summary.list },
    })
    .post('', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createRecord(tx, kind, actor, body as Record<string, unknown>));
      set.status = 201;
      return { data: created };
    }, { scope: scope('create'), body: o.Create, response: { 201: Created }, detail: { tags, summary: summary.create } })
    .get('/:id', async ({ actor, params }) => ({ data: await getRecord(ctx.db, kind, actor, params.id) }), {
      scope: scope('read'), params: IdParam, response: Data(o.View), detail: { tags, summary: summary.read },
    })
    .patch('/:id', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => updateRecord(tx, kind, actor, params.id, body as Record<string, unknown>));
      return { data: await getRecord(ctx.db, kind, actor, params.id) };
    }, { scope: scope('update'), params: IdParam, body: o.Update, response: Data(o.View), detail: { tags, summary: summary.update } })
    .delete('/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deleteRecord(tx, kind, actor, params.id));
      set.status = 204;
      return null;
    }, { scope: scope('delete'), params: IdParam, detail: { tags, summary: summary.delete, responses: deletedResponses } })
    .get('/:id/history', async ({ actor, params }) => {
      return { data: await recordHistory(ctx.db, kind, actor, params.id) };
    }, { scope: scope('read'), params: IdParam, response: HistoryList, detail: { tags, summary: summary.history } });
}

export interface RecordBatchApiOptions {
  /** The register's path under /api/v1, e.g. '/controls' (for the documentation: the routes take the prefix of the plugin that uses them). */
  path: string;
  tag: string;
  plural: string;
  /** One item of a batch create (usually the register's create shape). */
  Create: TObject;
  /** The changes of one item of a batch update (usually the register's update shape). */
  Update: TObject;
}

/**
 * Batch create and change of a register (`POST` and `PATCH` `<path>/batch`, see batch.ts): the kit's batch writes
 * (createRecords / updateRecords, those of the CSV import) with the rules of createRecord / updateRecord, in one
 * transaction, one result per item. `.use` it in the register's recordApi chain, whose prefix it takes.
 */
export function recordBatchApi<T extends OwnedTable>(ctx: AppContext, kind: RecordKind<T, Record<string, unknown>, unknown>, o: RecordBatchApiOptions) {
  const scope = (right: string) => `${kind.module}:${right}` as Permission;
  const tags = [o.tag];
  const BatchUpdateItem = t.Object({ id: t.String({ format: 'uuid' }), changes: o.Update }, { additionalProperties: false });
  return new Elysia({ name: `api:${kind.recordType}:batch` })
    .use(apiAuth(ctx))
    .post('/batch', async ({ actor, body }) => {
      const outcomes = await runWrite(ctx, async (tx) =>
        createRecords(tx, kind, actor, body.items as Record<string, unknown>[], { owners: await loadOwnerLookup(tx) }));
      return { data: { results: outcomes.map(resultOf) } };
    }, {
      scope: scope('create'), body: batchOf(o.Create, `Each as the body of POST ${o.path}.`), response: BatchResults,
      detail: { tags, summary: `Create many ${o.plural} in one transaction: one result per item (refused items are listed, the others written)` },
    })
    .patch('/batch', async ({ actor, body }) => {
      const items = (body.items as { id: string; changes: Record<string, unknown> }[]).map((item) => ({ id: item.id, patch: item.changes }));
      const outcomes = await runWrite(ctx, async (tx) => updateRecords(tx, kind, actor, items, { owners: await loadOwnerLookup(tx) }));
      return { data: { results: outcomes.map(resultOf) } };
    }, {
      scope: scope('update'), body: batchOf(BatchUpdateItem, `Each an id and the changes, as the body of PATCH ${o.path}/{id}.`), response: BatchResults,
      detail: { tags, summary: `Change many ${o.plural} in one transaction: one result per item (refused items are listed, the others written)` },
    });
}
