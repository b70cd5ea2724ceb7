import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import { linkBase } from '../../platform/http/public-address';
import {
  FindingFromAnswer, RequestCreate, RequestDetail, RequestListQuery, RequestSent, RequestView, ReturnInput, ReviewInput, RiskFromAnswer,
  TemplateCreate, TemplateListQuery, TemplateUpdate, TemplateView,
} from './schema';
import {
  acceptRequest, createFindingFromAnswer, createRiskFromAnswer, createTemplate, getRequest, getTemplate, listRequests, listTemplates,
  remindRequest, requestHistory, returnRequest, reviewRequest, revokeRequest, sendRequest, templateHistory, updateTemplate,
} from './service';

const tags = ['Assessments'];
const LinkSent = Data(t.Object({ url: t.String({ description: 'The new link, shown once; the earlier one stops working' }), expiresAt: t.String() }));

/** Templates under /api/v1/assessments/templates: sections and questions, versioned on every change of the sections. */
export const templatesApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:assessmentTemplates', prefix: '/api/v1/assessments/templates' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listTemplates(ctx.db, actor, query) }), {
      scope: 'assessments:read', query: TemplateListQuery, response: pageEnvelope(TemplateView),
      detail: { tags, summary: 'Templates you may read: the shipped ones and, at the own level, those you or your groups own' },
    })
    .post('', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createTemplate(tx, actor, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'assessments:create', body: TemplateCreate, response: { 201: Created }, detail: { tags, summary: 'Write a template (version 1)' } })
    .get('/:id', async ({ actor, params }) => ({ data: await getTemplate(ctx.db, actor, params.id) }), {
      scope: 'assessments:read', params: IdParam, response: Data(TemplateView), detail: { tags, summary: 'Read a template: its current version' },
    })
    .patch('/:id', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => updateTemplate(tx, actor, params.id, body));
      return { data: await getTemplate(ctx.db, actor, params.id) };
    }, {
      scope: 'assessments:update', params: IdParam, body: TemplateUpdate, response: Data(TemplateView),
      detail: { tags, summary: 'Change a template; new sections make a new version, requests already sent keep theirs' },
    })
    .get('/:id/history', async ({ actor, params }) => ({ data: await templateHistory(ctx.db, actor, params.id) }), {
      scope: 'assessments:read', params: IdParam, response: HistoryList, detail: { tags, summary: "A template's History" },
    });

/** Requests under /api/v1/assessments/requests: sent to one address, answered at /assess/<token>, reviewed here. */
export const requestsApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:assessmentRequests', prefix: '/api/v1/assessments/requests' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listRequests(ctx.db, actor, query) }), {
      scope: 'assessments:read', query: RequestListQuery, response: pageEnvelope(RequestView), detail: { tags, summary: 'Questionnaires sent that you may read' },
    })
    .post('', async ({ actor, body, request, set }) => {
      const base = linkBase(ctx.config.PUBLIC_URL, request.url);
      const sent = await runWrite(ctx, (tx) => sendRequest(tx, actor, body, base));
      set.status = 201;
      return { data: sent };
    }, {
      scope: 'assessments:create', body: RequestCreate, response: { 201: Data(RequestSent) },
      detail: { tags, summary: 'Send a questionnaire to one address: the invitation is mailed with the link (its secret is stored hashed and shown once here)' },
    })
    .get('/:id', async ({ actor, params }) => ({ data: await getRequest(ctx.db, actor, params.id) }), {
      scope: 'assessments:read', params: IdParam, response: Data(RequestDetail), detail: { tags, summary: 'Read a request with its answers, weights, scores and comments' },
    })
    .get('/:id/history', async ({ actor, params }) => ({ data: await requestHistory(ctx.db, actor, params.id) }), {
      scope: 'assessments:read', params: IdParam, response: HistoryList, detail: { tags, summary: "A request's History: sent, drafts, submitted, reviewed" },
    })
    .post('/:id/remind', async ({ actor, params, request }) => ({ data: await runWrite(ctx, (tx) => remindRequest(tx, actor, params.id, linkBase(ctx.config.PUBLIC_URL, request.url))) }), {
      scope: 'assessments:update', params: IdParam, response: LinkSent, detail: { tags, summary: 'Mail a reminder with a new link (the draft is kept; 409 unless waiting for answers)' },
    })
    .post('/:id/revoke', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => revokeRequest(tx, actor, params.id));
      return { data: await getRequest(ctx.db, actor, params.id) };
    }, { scope: 'assessments:update', params: IdParam, response: Data(RequestDetail), detail: { tags, summary: 'Revoke: the link stops working' } })
    .post('/:id/review', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => reviewRequest(tx, actor, params.id, body));
      return { data: await getRequest(ctx.db, actor, params.id) };
    }, {
      scope: 'assessments:update', params: IdParam, body: ReviewInput, response: Data(RequestDetail),
      detail: { tags, summary: 'Score answers (0–100 % of their weight) and comment on them; the score is worked out again (409 unless submitted)' },
    })
    .post('/:id/accept', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => acceptRequest(tx, actor, params.id));
      return { data: await getRequest(ctx.db, actor, params.id) };
    }, { scope: 'assessments:update', params: IdParam, response: Data(RequestDetail), detail: { tags, summary: 'Accept the submitted answers: the link closes' } })
    .post('/:id/return', async ({ actor, params, body, request }) => ({ data: await runWrite(ctx, (tx) => returnRequest(tx, actor, params.id, body, linkBase(ctx.config.PUBLIC_URL, request.url))) }), {
      scope: 'assessments:update', params: IdParam, body: ReturnInput, response: LinkSent,
      detail: { tags, summary: 'Return the answers for changes: a new link is mailed with the message and opens them again' },
    })
    .post('/:id/findings', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => createFindingFromAnswer(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'assessments:update', params: IdParam, body: FindingFromAnswer, response: { 201: Created },
      detail: { tags, summary: 'Create an audit finding from an answer (needs audits:create too; 403 otherwise)' },
    })
    .post('/:id/risks', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => createRiskFromAnswer(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'assessments:update', params: IdParam, body: RiskFromAnswer, response: { 201: Created },
      detail: { tags, summary: 'Create a risk from an answer (needs risks:create too; 403 otherwise)' },
    });
