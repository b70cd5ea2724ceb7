import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import type { Permission } from '../../platform/permissions/permissions';
import { policyParent, riskParent, type ExceptionParent } from './parents';
import { ExceptionCreate, ExceptionDecision, ExceptionListQuery, ExceptionUpdate, ExceptionView } from './schema';
import {
  createException, decideException, deleteException, exceptionHistory, getException, listExceptions, updateException,
} from './service';

/** The REST surface of one parent kind's exceptions, e.g. /api/v1/risks/exceptions. */
export function exceptionsApi(ctx: AppContext, parent: ExceptionParent) {
  const scope = (right: 'read' | 'update' | 'delete' | 'review') => `${parent.module}:${right}` as Permission;
  const tags = [`${parent.label} exceptions`];
  const noun = `${parent.label.toLowerCase()} exception`;
  return new Elysia({ name: `api:${parent.recordType}`, prefix: `/api/v1${parent.path}` })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listExceptions(ctx.db, parent, actor, query) }), {
      scope: scope('read'), query: ExceptionListQuery, response: pageEnvelope(ExceptionView),
      detail: { tags, summary: `List ${noun}s (filters status, expired; own level: those you or your groups own)` },
    })
    .post('', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createException(tx, parent, actor, body));
      set.status = 201;
      return { data: created };
    }, { scope: scope('update'), body: ExceptionCreate, response: { 201: Created }, detail: { tags, summary: `Request a ${noun} (arrives as requested)` } })
    .get('/:id', async ({ actor, params }) => ({ data: await getException(ctx.db, parent, actor, params.id) }), {
      scope: scope('read'), params: IdParam, response: Data(ExceptionView), detail: { tags, summary: `Read a ${noun}` },
    })
    .patch('/:id', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => updateException(tx, parent, actor, params.id, body));
      return { data: await getException(ctx.db, parent, actor, params.id) };
    }, { scope: scope('update'), params: IdParam, body: ExceptionUpdate, response: Data(ExceptionView), detail: { tags, summary: `Change a requested ${noun} (409 once decided)` } })
    .post('/:id/decision', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => decideException(tx, parent, actor, params.id, body));
      return { data: await getException(ctx.db, parent, actor, params.id) };
    }, {
      scope: scope('review'), params: IdParam, body: ExceptionDecision, response: Data(ExceptionView),
      detail: { tags, summary: `Approve or reject a requested ${noun} (needs review on the ${parent.label.toLowerCase()}; 409 once decided)` },
    })
    .delete('/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deleteException(tx, parent, actor, params.id));
      set.status = 204;
      return null;
    }, { scope: scope('delete'), params: IdParam, detail: { tags, summary: `Delete a ${noun}`, responses: deletedResponses } })
    .get('/:id/history', async ({ actor, params }) => ({ data: await exceptionHistory(ctx.db, parent, actor, params.id) }), {
      scope: scope('read'), params: IdParam, response: HistoryList, detail: { tags, summary: `A ${noun}'s History` },
    });
}

/** Every parent kind's exceptions, for app.ts. */
export const exceptionsApis = (ctx: AppContext) =>
  new Elysia({ name: 'api:exceptions' })
    .use(exceptionsApi(ctx, riskParent))
    .use(exceptionsApi(ctx, policyParent));
