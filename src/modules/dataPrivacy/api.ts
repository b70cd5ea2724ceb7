import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import type { AppContext } from '../../platform/http/context';
import { runWrite } from '../../platform/http/context';
import { Created, Data, IdParam } from '../../platform/http/envelopes';
import { getRecord } from '../../platform/records/records';
import { withExample } from '../../platform/http/schema-helpers';
import { recordApi } from '../../platform/records/record-api';
import { toCsv } from '../../platform/csv/write';
import { articleThirtyRegister, registerCsvRows } from './register';
import { createRiskFromDpia, dpiaKind, reopenDpia, signOffDpia } from './dpia-service';
import {
  DpiaCreate, dpiaExamples, DpiaListQuery, DpiaRiskCreate, DpiaUpdate, DpiaView,
  ProcessingActivityCreate, processingActivityExamples, ProcessingActivityListQuery, ProcessingActivityUpdate, ProcessingActivityView, RegisterSectionView,
} from './schema';
import { processingActivityKind } from './service';

export const TAG = 'Data privacy';

/** The file name of the register's CSV download, dated. */
export const registerFileName = () => `article-30-register-${new Date().toISOString().slice(0, 10)}.csv`;

export const processingActivitiesApi = (ctx: AppContext) =>
  recordApi(ctx, processingActivityKind, {
    path: '/data-privacy/processing-activities', tag: TAG, plural: 'processing activities',
    Create: ProcessingActivityCreate, Update: ProcessingActivityUpdate, View: ProcessingActivityView, ListQuery: ProcessingActivityListQuery,
    examples: processingActivityExamples,
    summaries: {
      list: 'List records of processing (GDPR Art. 30; own level: only those you or your groups own)',
      create: 'Record a processing activity (a legal basis of Art. 6; an Art. 9 condition when special categories are processed)',
    },
  });

/** The Article 30 register: JSON grouped by role, and the CSV download, each filtered by the reader's level. */
export const registerApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:data-privacy:register', prefix: '/api/v1/data-privacy' })
    .use(apiAuth(ctx))
    .get('/register', async ({ actor }) => ({ data: await articleThirtyRegister(ctx.db, actor) }), {
      scope: 'dataPrivacy:read', response: Data(t.Array(RegisterSectionView)),
      detail: { tags: [TAG], summary: 'The Article 30 register: the processing activities you may read (retired ones left out), grouped by role, with labels and linked records named ("(restricted)" where you may not read them)' },
    })
    .get('/register/csv', async ({ actor, set }) => {
      const sections = await articleThirtyRegister(ctx.db, actor);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="${registerFileName()}"`;
      return toCsv(registerCsvRows(sections));
    }, {
      scope: 'dataPrivacy:read',
      detail: {
        tags: [TAG], summary: 'The Article 30 register as CSV (UTF-8 with BOM, formula-guarded cells, one row per processing activity, controller entries first)',
        responses: { 200: { description: 'The register', content: { 'text/csv': { schema: { type: 'string' } } } } },
      },
    });

/** DPIAs (GDPR Art. 35): the register's REST surface, sign-off and reopening (review right), and "Create a risk from this DPIA". */
export const dpiasApi = (ctx: AppContext) =>
  recordApi(ctx, dpiaKind, {
    path: '/data-privacy/dpias', tag: TAG, plural: 'DPIAs',
    Create: DpiaCreate, Update: DpiaUpdate, View: DpiaView, ListQuery: DpiaListQuery,
    examples: dpiaExamples,
    summaries: {
      list: 'List DPIAs (GDPR Art. 35; own level: only those you or your groups own; processingActivityId filters by the activity assessed)',
      create: 'Record a DPIA of a processing activity you may read: the screening (EDPB criteria met), the decision and the assessment',
      update: 'Change a DPIA (409 while it is signed off: reopen it first)',
      delete: 'Delete a DPIA (409 while it is signed off)',
    },
  })
    .post('/:id/sign-off', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => signOffDpia(tx, actor, params.id));
      return { data: await getRecord(ctx.db, dpiaKind, actor, params.id) };
    }, {
      scope: 'dataPrivacy:review', params: IdParam, response: Data(DpiaView),
      detail: { tags: [TAG], summary: 'Sign a DPIA off: records who and when; the DPIA is read-only until reopened (409 when already signed off)' },
    })
    .post('/:id/reopen', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => reopenDpia(tx, actor, params.id));
      return { data: await getRecord(ctx.db, dpiaKind, actor, params.id) };
    }, {
      scope: 'dataPrivacy:review', params: IdParam, response: Data(DpiaView),
      detail: { tags: [TAG], summary: 'Reopen a signed-off DPIA: a draft again, the sign-off cleared (History keeps it)' },
    })
    .post('/:id/risks', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => createRiskFromDpia(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'dataPrivacy:update', params: IdParam,
      body: withExample(DpiaRiskCreate, { classificationId: '4c8e1a2d-6b3f-4d7e-9a5c-2e1f8b7d3a60', inherentLikelihood: 3, inherentImpact: 4 }),
      response: { 201: Created },
      detail: {
        tags: [TAG],
        summary: 'Create a risk from this DPIA: writes a risk (title "DPIA: <name>" and the risks to data subjects unless given) linked to the DPIA. Needs scope risks:create too (403 otherwise, nothing written)',
      },
    });
