import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import { withExample } from '../../platform/http/schema-helpers';
import { mailLink } from '../../platform/notifications/wording';
import { ALL_PERMISSIONS, type Permission } from '../../platform/permissions/permissions';
import {
  answerQuestionnaire, decideProposal, getQuestionnaire, listQuestionnaires, myQuestionnaires, questionnaireHistory, sendQuestionnaire,
} from './questionnaire-service';
import { ProposalParams, ProposalRejection, QuestionnaireAnswers, QuestionnaireCreate, questionnaireExamples, QuestionnaireListQuery, QuestionnaireView } from './schema';

const TAG = 'Data privacy';

/**
 * Data Liaison questionnaires: /api/v1/data-privacy/questionnaires. The privacy officer's routes need dataPrivacy
 * scopes; the person asked holds no data privacy right, so their routes take a token with any read scope (every token
 * carries one) and the service admits only the person the questionnaire is addressed to (404 for anyone else).
 */
export const questionnairesApi = (ctx: AppContext) => {
  const link = (path: string) => mailLink(ctx.config, path);
  // Made when the routes are made, after the modules are installed: the read scopes of every installed area.
  const anyRead: Permission[] = ALL_PERMISSIONS.filter((p) => p.endsWith(':read'));
  const personal = (summary: string) => ({
    tags: [TAG], summary, security: [{ bearerAuth: [] }], 'x-required-scope': anyRead[0], 'x-required-scopes-any-of': anyRead,
    description: 'Needs a token with any read scope: the person a questionnaire is addressed to answers it without data privacy rights; anyone else needs dataPrivacy:read (own level: questionnaires they or their groups sent) and is answered 404 otherwise.',
  });
  return new Elysia({ name: 'api:data-privacy:questionnaires', prefix: '/api/v1/data-privacy/questionnaires' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listQuestionnaires(ctx.db, actor, query) }), {
      scope: 'dataPrivacy:read', query: QuestionnaireListQuery, response: pageEnvelope(QuestionnaireView),
      detail: { tags: [TAG], summary: 'List Data Liaison questionnaires (own level: those you or your groups sent), newest first' },
    })
    .post('', async ({ actor, body, set }) => {
      const sent = await runWrite(ctx, (tx) => sendQuestionnaire(tx, actor, body, link));
      set.status = 201;
      return { data: sent };
    }, {
      scope: 'dataPrivacy:create', body: withExample(QuestionnaireCreate, questionnaireExamples.create), response: { 201: Created },
      detail: { tags: [TAG], summary: 'Send a questionnaire about fields of a processing activity you may read to a business owner (an active user); they are told by mail' },
    })
    .get('/mine', async ({ actor }) => ({ data: await myQuestionnaires(ctx.db, actor) }), {
      scopeAnyOf: anyRead, response: Data(t.Array(QuestionnaireView)),
      detail: personal('The questionnaires addressed to you, those waiting for your answers first'),
    })
    .get('/:id', async ({ actor, params }) => ({ data: await getQuestionnaire(ctx.db, actor, params.id) }), {
      scopeAnyOf: anyRead, params: IdParam, response: Data(QuestionnaireView),
      detail: personal('One questionnaire: the fields asked with the processing activity\'s current values, the answers and the decisions'),
    })
    .post('/:id/answers', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => answerQuestionnaire(tx, actor, params.id, body, link));
      return { data: await getQuestionnaire(ctx.db, actor, params.id) };
    }, {
      scopeAnyOf: anyRead, params: IdParam, body: withExample(QuestionnaireAnswers, questionnaireExamples.answers), response: Data(QuestionnaireView),
      detail: personal('Answer a questionnaire addressed to you, once: a proposed value or a confirmation (null) per field asked (403 to a privacy officer, 409 once answered)'),
    })
    .post('/:id/proposals/:field/accept', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => decideProposal(tx, actor, params.id, params.field, 'accepted'));
      return { data: await getQuestionnaire(ctx.db, actor, params.id) };
    }, {
      scope: 'dataPrivacy:update', params: ProposalParams, response: Data(QuestionnaireView),
      detail: { tags: [TAG], summary: 'Accept a proposal: writes the proposed value to the processing activity (its History and Audit Log show it; needs dataPrivacy:update on it too)' },
    })
    .post('/:id/proposals/:field/reject', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => decideProposal(tx, actor, params.id, params.field, 'rejected', body.reason));
      return { data: await getQuestionnaire(ctx.db, actor, params.id) };
    }, {
      scope: 'dataPrivacy:update', params: ProposalParams, body: withExample(ProposalRejection, { reason: 'Retention is set by the group policy' }), response: Data(QuestionnaireView),
      detail: { tags: [TAG], summary: 'Reject a proposal, with a reason the person asked reads; the processing activity is not changed' },
    })
    .get('/:id/history', async ({ actor, params }) => ({ data: await questionnaireHistory(ctx.db, actor, params.id) }), {
      scope: 'dataPrivacy:read', params: IdParam, response: HistoryList,
      detail: { tags: [TAG], summary: 'A questionnaire\'s History: sent, answered, each proposal accepted or rejected' },
    });
};
