import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import type { AppContext } from '../../platform/http/context';
import { Data } from '../../platform/http/envelopes';
import { recordApi } from '../../platform/records/record-api';
import { toCsv } from '../../platform/csv/write';
import { articleThirtyRegister, registerCsvRows } from './register';
import {
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
