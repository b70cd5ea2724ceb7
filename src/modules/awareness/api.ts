import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Data, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import { recordApi } from '../../platform/records/record-api';
import {
  AttemptOutcome, CompletionView, MyAnswers, ProgramCreate, programExamples, ProgramListQuery, ProgramUpdate, ProgramView, ResultListQuery, ResultView, Submission, TrainingView,
} from './schema';
import { completion, getResult, resultHistory, listResults, myAnswers, myTraining, programKind, publishProgram, startTraining, submitAttempt, training } from './service';

const tags = ['Awareness'];

/** Programs (the register kit) with publishing and completion under /api/v1/awareness/programs. */
export const programsApi = (ctx: AppContext) =>
  recordApi(ctx, programKind, {
    path: '/awareness/programs', tag: 'Awareness', plural: 'awareness programs',
    Create: ProgramCreate, Update: ProgramUpdate, View: ProgramView, ListQuery: ProgramListQuery, examples: programExamples,
  })
    .post('/:id/publish', async ({ actor, params }) => ({ data: await runWrite(ctx, (tx) => publishProgram(tx, actor, params.id)) }), {
      scope: 'awareness:update', params: IdParam, response: Data(t.Object({ assigned: Type.Integer({ description: 'People newly assigned' }) })),
      detail: { tags, summary: 'Publish a program: everyone in its audience not yet assigned is assigned (again after the audience grew)' },
    })
    .get('/:id/completion', async ({ actor, params }) => ({ data: await completion(ctx.db, actor, params.id) }), {
      scope: 'awareness:read', params: IdParam, response: Data(CompletionView),
      detail: { tags, summary: "A program's completion: results by status and, per audience group, assigned and passed" },
    });

/** Results per person, and the person's own training: /api/v1/awareness/results and /api/v1/awareness/my-training. */
export const resultsApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:awarenessResults', prefix: '/api/v1/awareness' })
    .use(apiAuth(ctx))
    .get('/results', async ({ actor, query }) => ({ data: await listResults(ctx.db, actor, query) }), {
      scope: 'awareness:read', query: ResultListQuery, response: pageEnvelope(ResultView),
      detail: { tags, summary: 'Results you may read: your own, and those of the programs you may read (own level: programs you or your groups own)' },
    })
    .get('/results/:id', async ({ actor, params }) => ({ data: await getResult(ctx.db, actor, params.id) }), {
      scope: 'awareness:read', params: IdParam, response: Data(ResultView), detail: { tags, summary: 'Read a result (never its answers)' },
    })
    .get('/results/:id/history', async ({ actor, params }) => ({ data: await resultHistory(ctx.db, actor, params.id) }), {
      scope: 'awareness:read', params: IdParam, response: HistoryList, detail: { tags, summary: "A result's History: assigned, started, each attempt" },
    })
    .get('/results/:id/answers', async ({ actor, params }) => ({ data: await myAnswers(ctx.db, actor, params.id) }), {
      scope: 'awareness:read', params: IdParam, response: Data(MyAnswers),
      detail: { tags, summary: 'Your own answers of your last attempt (403 for anyone else’s result)' },
    })
    .get('/my-training', async ({ actor }) => ({ data: await myTraining(ctx.db, actor) }), {
      scope: 'awareness:read', response: Data(t.Array(t.Composite([ResultView, t.Object({ endsOn: t.Union([t.String(), t.Null()]), hasTest: t.Boolean() })]))),
      detail: { tags, summary: 'The programs assigned to you that have started' },
    })
    .get('/my-training/:id', async ({ actor, params }) => ({ data: await training(ctx.db, actor, params.id) }), {
      scope: 'awareness:read', params: IdParam, response: Data(TrainingView),
      detail: { tags, summary: 'One of your programs by its result id: the content and the questions without their answers' },
    })
    .post('/results/:id/start', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => startTraining(tx, actor, params.id));
      return { data: await getResult(ctx.db, actor, params.id) };
    }, {
      scope: 'awareness:read', params: IdParam, response: Data(ResultView),
      detail: { tags, summary: 'Mark your own training started (403 for anyone else’s result)' },
    })
    .post('/results/:id/attempts', async ({ actor, params, body }) => ({ data: await runWrite(ctx, (tx) => submitAttempt(tx, actor, params.id, body)) }), {
      scope: 'awareness:read', params: IdParam, body: Submission, response: Data(AttemptOutcome),
      detail: { tags, summary: 'Submit your own test: the service scores it, counts the attempt and records passed or failed (403 for anyone else’s result; 409 once passed)' },
    });
