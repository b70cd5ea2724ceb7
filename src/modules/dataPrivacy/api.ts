import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import type { AppContext } from '../../platform/http/context';
import { runWrite } from '../../platform/http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/http/envelopes';
import { pageEnvelope } from '../../platform/http/paging';
import { notFound } from '../../platform/core/errors';
import type { Actor } from '../../platform/permissions/permissions';
import type { DbOrTx } from '../../../db/client';
import { recordType, requireTypedRecord } from '../../platform/records/record-types';
import { createRecord, deleteRecord, listRecords, recordHistory, updateRecord, type ListParams } from '../../platform/records/records';
import { tiaKind, transferKind } from './transfer-service';
import { breachesAsSeen } from './breaches';
import { getAssetDataMap, getThirdPartyDpa, putAssetDataMap, putThirdPartyDpa } from './data-map-service';
import { getRecord } from '../../platform/records/records';
import { withExample } from '../../platform/http/schema-helpers';
import { recordApi } from '../../platform/records/record-api';
import { articleThirtyRegister, registerCsvResponse } from './register';
import { createRiskFromDpia, dpiaKind, reopenDpia, signOffDpia } from './dpia-service';
import {
  AssetDataMapInput, AssetDataMapView, BreachEntryView, BreachListQuery, RegisterQuery, ThirdPartyDpaInput, ThirdPartyDpaView, ThirdPartyTiaParams, TiaCreate, tiaExamples, TiaListQuery, TiaUpdate, TiaView, TransferCreate, transferExamples, TransferListQuery, TransferUpdate, TransferView,
  DpiaCreate, dpiaExamples, DpiaListQuery, DpiaRiskCreate, DpiaUpdate, DpiaView,
  ProcessingActivityCreate, processingActivityExamples, ProcessingActivityReviewCreate, ProcessingActivityReviews, ProcessingActivityListQuery, ProcessingActivityUpdate, ProcessingActivityView, RegisterSectionView,
} from './schema';
import { processingActivityKind } from './service';
import { listProcessingActivityReviews, recordProcessingActivityReview } from './review-service';

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
  })
    .get('/:id/reviews', async ({ actor, params }) => ({ data: await listProcessingActivityReviews(ctx.db, actor, params.id) }), {
      scope: 'dataPrivacy:read', params: IdParam, response: Data(ProcessingActivityReviews),
      detail: { tags: [TAG], summary: "A processing activity's periodic reviews, newest first, and its next review day" },
    })
    .post('/:id/reviews', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => recordProcessingActivityReview(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'dataPrivacy:review', params: IdParam,
      body: withExample(ProcessingActivityReviewCreate, { reviewedOn: '2026-11-20', outcome: 'changes_needed', notes: 'Retention to be shortened to 7 years', nextReviewOn: '2027-11-20' }),
      response: { 201: Created },
      detail: {
        tags: [TAG],
        summary: 'Record a periodic review of a processing activity (dataPrivacy:review): day, reviewer, outcome (changes_needed with notes) and the next review day, set on the activity (a year on when left out)',
      },
    });

/** The Article 30 register: JSON grouped by role, and the CSV download, each filtered by the reader's level. */
export const registerApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:data-privacy:register', prefix: '/api/v1/data-privacy' })
    .use(apiAuth(ctx))
    .get('/register', async ({ actor, query }) => ({ data: await articleThirtyRegister(ctx.db, actor, query) }), {
      scope: 'dataPrivacy:read', query: RegisterQuery, response: Data(t.Array(RegisterSectionView)),
      detail: { tags: [TAG], summary: 'The Article 30 register: the processing activities you may read (retired ones left out), grouped by role, with labels and linked records named ("(restricted)" where you may not read them)' },
    })
    .get('/breaches', async ({ actor, query }) => ({ data: await breachesAsSeen(ctx.db, actor, query) }), {
      scope: 'dataPrivacy:read', query: BreachListQuery, response: Data(t.Array(BreachEntryView)),
      detail: {
        tags: [TAG],
        summary: 'Personal-data breaches: the incidents recorded as breaches that you may read (needs incidents:read too; its level decides which), each with the 72-hour clock from awareness to notification of the authority; '
          + 'filters q (title words), status, clock (overdue: not notified and past the 72 hours), ownerId, and sort by a column',
      },
    })
    .get('/register/csv', ({ actor, query }) => registerCsvResponse(ctx.db, actor, registerFileName(), query), {
      scope: 'dataPrivacy:read', query: RegisterQuery,
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

/** Transfers outside the EEA (GDPR Chapter V), each of a processing activity. */
export const transfersApi = (ctx: AppContext) =>
  recordApi(ctx, transferKind, {
    path: '/data-privacy/transfers', tag: TAG, plural: 'transfers',
    Create: TransferCreate, Update: TransferUpdate, View: TransferView, ListQuery: TransferListQuery,
    examples: transferExamples,
    summaries: {
      list: 'List transfers outside the EEA (own level: only those you or your groups own; filter by processing activity or recipient)',
      create: 'Record a transfer outside the EEA: destination country, recipient third party (needs thirdParties:read) and the safeguard it relies on (400 naming the field without one)',
    },
  });

/** The third party a TIA route names: thirdParties:read (403) and a third party the caller may read (404 like a missing one, audited). */
const requireThirdParty = (db: DbOrTx, actor: Actor, id: string) => requireTypedRecord(db, actor, recordType('thirdParty'), id);

/** A TIA of the third party the route names: 404 when it is of another one. */
async function tiaOf(db: DbOrTx, actor: Actor, thirdPartyId: string, tiaId: string) {
  await requireThirdParty(db, actor, thirdPartyId);
  const view = await getRecord(db, tiaKind, actor, tiaId);
  if (view.thirdPartyId !== thirdPartyId) throw notFound(`Transfer impact assessment ${tiaId}`);
  return view;
}

/**
 * Transfer impact assessments, kept on a third party: `/api/v1/third-parties/{id}/transfer-impact-assessments`. The
 * routes are data privacy's (scope dataPrivacy) and name a third party, so each needs thirdParties:read too and a third
 * party the caller may read (the same 404 as a missing one otherwise, the reason in the Audit Log).
 */
export const tiasApi = (ctx: AppContext) => {
  const tags = [TAG];
  const thirdPartyRule = ' Needs thirdParties:read and a third party you may read (404 like a missing one otherwise)';
  return new Elysia({ name: 'api:data-privacy:tias', prefix: '/api/v1/third-parties/:id/transfer-impact-assessments' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, params, query }) => {
      await requireThirdParty(ctx.db, actor, params.id);
      return { data: await listRecords(ctx.db, tiaKind, actor, { ...(query as ListParams), thirdPartyId: params.id }) };
    }, {
      scope: 'dataPrivacy:read', params: IdParam, query: TiaListQuery, response: pageEnvelope(TiaView, tiaExamples.row),
      detail: { tags, summary: `List the transfer impact assessments kept on a third party (own level: only those you or your groups own).${thirdPartyRule}` },
    })
    .post('', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, async (tx) => {
        await requireThirdParty(tx, actor, params.id);
        return createRecord(tx, tiaKind, actor, { ...body, thirdPartyId: params.id });
      });
      set.status = 201;
      return { data: created };
    }, {
      scope: 'dataPrivacy:create', params: IdParam, body: withExample(TiaCreate, tiaExamples.create), response: { 201: Created },
      detail: { tags, summary: `Record a transfer impact assessment on a third party: laws assessed, risk found, supplementary measures, conclusion, date and next review.${thirdPartyRule}` },
    })
    .get('/:tiaId', async ({ actor, params }) => ({ data: await tiaOf(ctx.db, actor, params.id, params.tiaId) }), {
      scope: 'dataPrivacy:read', params: ThirdPartyTiaParams, response: Data(TiaView),
      detail: { tags, summary: `Read a transfer impact assessment of a third party.${thirdPartyRule}` },
    })
    .patch('/:tiaId', async ({ actor, params, body }) => {
      await runWrite(ctx, async (tx) => {
        await tiaOf(tx, actor, params.id, params.tiaId);
        await updateRecord(tx, tiaKind, actor, params.tiaId, body);
      });
      return { data: await getRecord(ctx.db, tiaKind, actor, params.tiaId) };
    }, {
      scope: 'dataPrivacy:update', params: ThirdPartyTiaParams, body: TiaUpdate, response: Data(TiaView),
      detail: { tags, summary: `Change a transfer impact assessment of a third party.${thirdPartyRule}` },
    })
    .delete('/:tiaId', async ({ actor, params, set }) => {
      await runWrite(ctx, async (tx) => {
        await tiaOf(tx, actor, params.id, params.tiaId);
        await deleteRecord(tx, tiaKind, actor, params.tiaId);
      });
      set.status = 204;
      return null;
    }, {
      scope: 'dataPrivacy:delete', params: ThirdPartyTiaParams,
      detail: { tags, summary: `Delete a transfer impact assessment (409 while a transfer relies on it).${thirdPartyRule}`, responses: deletedResponses },
    })
    .get('/:tiaId/history', async ({ actor, params }) => {
      await tiaOf(ctx.db, actor, params.id, params.tiaId);
      return { data: await recordHistory(ctx.db, tiaKind, actor, params.tiaId) };
    }, {
      scope: 'dataPrivacy:read', params: ThirdPartyTiaParams, response: HistoryList,
      detail: { tags, summary: `A transfer impact assessment's History.${thirdPartyRule}` },
    });
};

/**
 * Data-map fields on assets and DPA fields on third parties: data privacy's routes (scope dataPrivacy) on the host
 * record, which the caller must be able to read (its module's read scope, 403; a readable record, 404 like a missing one).
 */
export const dataMapApi = (ctx: AppContext) => {
  const tags = [TAG];
  return new Elysia({ name: 'api:data-privacy:data-map', prefix: '/api/v1' })
    .use(apiAuth(ctx))
    .get('/assets/:id/data-map', async ({ actor, params }) => ({ data: await getAssetDataMap(ctx.db, actor, params.id) }), {
      scope: 'dataPrivacy:read', params: IdParam, response: Data(AssetDataMapView),
      detail: { tags, summary: 'An asset\'s data-map fields (personal data held, categories, location, retention, hosting). Needs assets:read and an asset you may read' },
    })
    .put('/assets/:id/data-map', async ({ actor, params, body }) => ({ data: await runWrite(ctx, (tx) => putAssetDataMap(tx, actor, params.id, body)) }), {
      scope: 'dataPrivacy:update', params: IdParam, response: Data(AssetDataMapView),
      body: withExample(AssetDataMapInput, { personalDataHeld: true, dataCategories: ['identification', 'financial'], locationCountry: 'DE', retention: '10 years', hosting: 'public_cloud' }),
      detail: { tags, summary: 'Record or replace an asset\'s data-map fields (never through the asset CSV import). Needs assets:read and an asset you may read' },
    })
    .get('/third-parties/:id/dpa', async ({ actor, params }) => ({ data: await getThirdPartyDpa(ctx.db, actor, params.id) }), {
      scope: 'dataPrivacy:read', params: IdParam, response: Data(ThirdPartyDpaView),
      detail: { tags, summary: 'A third party\'s data processing agreement fields (signed on, version, sub-processors\' locations). Needs thirdParties:read and a third party you may read' },
    })
    .put('/third-parties/:id/dpa', async ({ actor, params, body }) => ({ data: await runWrite(ctx, (tx) => putThirdPartyDpa(tx, actor, params.id, body)) }), {
      scope: 'dataPrivacy:update', params: IdParam, response: Data(ThirdPartyDpaView),
      body: withExample(ThirdPartyDpaInput, { signedOn: '2026-02-14', version: '3.1', subProcessorCountries: ['US', 'IN'] }),
      detail: { tags, summary: 'Record or replace a third party\'s DPA fields (never through the third-party CSV import). Needs thirdParties:read and a third party you may read' },
    });
};
