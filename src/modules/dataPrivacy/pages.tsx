import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { renderScreen } from '../../platform/http/screen';
import { screenAuth } from '../../platform/http/screen-auth';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { readableChoices, recordType } from '../../platform/records/record-types';
import { valueLabel } from '../../platform/core/value-labels';
import type { Actor } from '../../platform/permissions/permissions';
import { registerFileName } from './api';
import { articleThirtyRegister, registerCsvResponse, type RegisterNarrowing } from './register';
import {
  LEGAL_BASES, PROCESSING_ROLES, PROCESSING_STATUSES, ProcessingActivityCreate, ProcessingActivityUpdate,
  SPECIAL_CATEGORY_CONDITIONS,
} from './schema';
import { LINKED_TYPES, processingActivityKind } from './service';
import { categoryChoices, dataSubjectCategoryList, personalDataCategoryList } from './categories';
import { REGISTER_PATH, RegisterPrint, RegisterScreen, registerHref, type RegisterFilters } from './views';
import { listQuestionnaires } from './questionnaire-service';
import { ActivityQuestionnaires } from './questionnaire-views';
import { breachesAsSeen, mayReadBreaches } from './breaches';
import { BREACH_CSV_COLUMNS, BREACHES_PATH, BreachesScreen, type BreachFilters } from './breach-views';
import { isUuid } from '../../platform/core/uuid';
import { BREACH_CLOCK_STATES, BREACH_SORTS, type BreachListQuery } from './schema';
import { toCsv } from '../../platform/csv/write';
import { runWrite } from '../../platform/http/context';
import { attempt } from '../../platform/http/form-input';
import { platformService } from '../../platform/http/installed';
import { canTouch, levelOf } from '../../platform/permissions/permissions';
import { recordRows, typedRecordAsSeen } from '../../platform/records/record-types';
import { activityLinkedSections } from './linked-sections';
import { createRiskFromDpia, dpiaKind, reopenDpia, riskRatingChoices, signOffDpia } from './dpia-service';
import { DpiaSections, RiskFromDpiaForm } from './dpia-views';
import { fieldErrors } from '../../../views/components/form';
import { formText, schemaProblems } from '../../platform/http/form-input';
import { invalid } from '../../platform/core/errors';
import { labelChoices } from '../../platform/record-screens/label-screens';
import { listProcessingActivityReviews, recordProcessingActivityReview } from './review-service';
import { ActivityReviews, type ReviewFormState } from './review-views';
import { ProcessingActivityReviewCreate, type ProcessingActivityReviewCreate as ProcessingActivityReviewInput } from './schema';
import { getRecord } from '../../platform/records/records';
import { todayIso } from '../../platform/core/dates';
import type { Owned } from '../../platform/permissions/permissions';
import { DPIA_CRITERIA, DPIA_OVERRIDES, DPIA_STATUSES, DpiaCreate, DpiaRiskCreate, DpiaUpdate, RESIDUAL_RISKS, type DpiaRiskCreate as DpiaRiskInput } from './schema';

export const PATH = '/data-privacy/processing-activities';

/** Fields holding one stored key each. */
const LABELLED = new Set(['role', 'status', 'legalBasis', 'specialCategoryCondition']);

/** The active people a review may name as its reviewer, by name; the viewer first. */
async function reviewerChoices(app: AppContext, viewer: Actor) {
  const users = (await platformService('listUsers')(app.db)).filter((u) => u.status === 'active');
  const me = users.filter((u) => u.id === viewer.userId);
  return [...me, ...users.filter((u) => u.id !== viewer.userId)].map((u) => ({ value: u.id, label: `${u.name} <${u.email}>` }));
}

/** The periodic reviews section of a processing activity's page, with the form to those who may review it. */
async function activityReviews(app: AppContext, view: Owned & { id: string }, viewer: Actor, csrfToken: string, formState?: ReviewFormState) {
  const mayReview = canTouch(viewer, 'dataPrivacy:review', view);
  const [reviews, reviewers] = await Promise.all([
    listProcessingActivityReviews(app.db, viewer, view.id), mayReview ? reviewerChoices(app, viewer) : null,
  ]);
  // Today in the reader's own zone: the server's UTC day, which the page's script replaces with the browser's day.
  const today = todayIso();
  const state = formState ?? { values: { reviewedOn: today, reviewerId: viewer.userId ?? '' }, today };
  return <ActivityReviews activityId={view.id} reviews={reviews} csrfToken={csrfToken} reviewers={reviewers} formState={state} />;
}

export const processingActivityPages = (app: AppContext) => {
  /** The records of a linked type the viewer may pick (read right and level). */
  const readable = (kind: string) => (viewer: Actor) => readableChoices(app.db, viewer, recordType(kind));
  // Declared with the pages (the record types are installed by then), so their own addresses answer before a page is shown.
  const dpiasAndTransfers = activityLinkedSections(recordType('processingActivity'));
  return recordPages(app, processingActivityKind, {
    path: PATH,
    title: 'Processing activities',
    singular: 'Processing activity',
    navKey: 'processing-activities',
    Create: ProcessingActivityCreate,
    Update: ProcessingActivityUpdate,
    statuses: PROCESSING_STATUSES,
    searchLabel: 'Search names',
    filters: async () => [{ name: 'role', label: 'Role', options: PROCESSING_ROLES.map((value) => ({ value, label: valueLabel(value) })) }],
    listActions: () => <a class="button secondary" href="/data-privacy/register">Article 30 register</a>,
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, maxlength: 300 },
      { name: 'role', label: 'Role', kind: 'select', options: PROCESSING_ROLES, hint: 'Controller (Art. 30(1)) or processor (Art. 30(2)); blank gives controller' },
      { name: 'status', label: 'Status', kind: 'select', options: PROCESSING_STATUSES, hint: 'Blank gives draft' },
      { name: 'purposes', label: 'Purposes', kind: 'textarea' },
      { name: 'legalBasis', label: 'Legal basis (Art. 6)', kind: 'select', options: LEGAL_BASES, required: true },
      // The lists administrators keep in Settings › Privacy categories, read per request so a new entry shows at once.
      { name: 'dataSubjectCategories', label: 'Categories of data subjects', kind: 'checkboxes', options: () => categoryChoices(app.db, dataSubjectCategoryList) },
      { name: 'personalDataCategories', label: 'Categories of personal data', kind: 'checkboxes', options: () => categoryChoices(app.db, personalDataCategoryList),
        hint: 'Racial or ethnic origin, political opinions, religious or philosophical beliefs, trade union membership, genetic, biometric and health data and sex life or sexual orientation are special categories (Art. 9(1)): they need the condition below' },
      { name: 'specialCategoryCondition', label: 'Art. 9 condition', kind: 'select', options: SPECIAL_CATEGORY_CONDITIONS,
        hint: 'Required when special categories are processed; blank otherwise' },
      { name: 'recipients', label: 'Recipients', kind: 'textarea', hint: 'Categories of recipients, including those in third countries' },
      { name: 'retention', label: 'Retention', kind: 'textarea', hint: 'Time limits for erasure' },
      { name: 'systemAssetIds', label: 'Systems', kind: 'checkboxes', options: readable(LINKED_TYPES.systemAssetIds), hint: 'Assets you may read' },
      { name: 'processorThirdPartyIds', label: 'Processors', kind: 'checkboxes', options: readable(LINKED_TYPES.processorThirdPartyIds), hint: 'Third parties you may read' },
      { name: 'jointControllers', label: 'Joint controllers', kind: 'textarea' },
      { name: 'securityMeasures', label: 'Technical and organisational measures', kind: 'textarea' },
      { name: 'controlIds', label: 'Technical and organisational measures (controls)', kind: 'checkboxes', options: readable(LINKED_TYPES.controlIds),
        hint: 'Controls you may read (Art. 32)' },
      { name: 'nextReviewOn', label: 'Next review on', kind: 'date', hint: 'The owner is reminded; recording a review sets it' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (p) => p.name, link: true, sort: 'name' },
      { header: 'Role', value: (p) => valueLabel(p.role), sort: 'role' },
      { header: 'Legal basis', value: (p) => valueLabel(p.legalBasis), sort: 'legalBasis' },
      { header: 'Status', value: (p) => valueLabel(p.status), sort: 'status' },
      { header: 'Next review', value: (p) => String(p.nextReviewOn ?? ''), sort: 'nextReviewOn' },
      ownerColumn(),
    ],
    messages: { created: 'Processing activity recorded.' },
    // The DPIAs assessing the activity and its transfers outside the EEA, as the viewer may read them, with links to start one.
    sections: async (view, viewer, csrfToken) => {
      const [linked, questionnaires, reviews] = await Promise.all([
        dpiasAndTransfers(app, view.id, viewer, csrfToken),
        listQuestionnaires(app.db, viewer, { processingActivityId: view.id, pageSize: 50 }),
        activityReviews(app, view as Owned & { id: string }, viewer, csrfToken),
      ]);
      const canCreate = levelOf(viewer, 'dataPrivacy:create') !== null;
      return (
        <>
          {reviews}
          {linked}
          <ActivityQuestionnaires activityId={view.id} items={questionnaires.rows} total={questionnaires.total} canCreate={canCreate} />
        </>
      );
    },
    // History names stored keys by their labels ("legal_obligation" reads "Legal obligation").
    historyNames: async () => (field, value) => (LABELLED.has(field) && typeof value === 'string' ? valueLabel(value) : undefined),
  })
    // Recording a review: back to the activity's reviews when done; refused, the form again inside the app with what was sent.
    .post(`${PATH}/:id/reviews`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const typed = Object.fromEntries(['reviewedOn', 'reviewerId', 'outcome', 'notes', 'nextReviewOn'].map((n) => [n, formText(body, n).trim()]));
      const input: Record<string, unknown> = {
        outcome: typed.outcome, notes: typed.notes,
        ...(typed.reviewedOn ? { reviewedOn: typed.reviewedOn } : {}), ...(typed.reviewerId ? { reviewerId: typed.reviewerId } : {}),
        ...(typed.nextReviewOn ? { nextReviewOn: typed.nextReviewOn } : {}),
      };
      const result = await attempt(() => {
        const problems = schemaProblems(ProcessingActivityReviewCreate, input);
        if (problems.length) throw invalid(problems);
        return runWrite(app, (tx) => recordProcessingActivityReview(tx, viewer, params.id, input as ProcessingActivityReviewInput));
      });
      if (result.ok) return redirect(`${PATH}/${params.id}?done=updated#reviews`, 303);
      set.status = result.error.status;
      const back = <p><a href={`${PATH}/${params.id}`}>← Back to the processing activity</a></p>;
      // A refusal that is not about the form (no such activity, no review right) is said plainly, without the form.
      if (!result.error.problems.length) {
        return renderScreen(headers, { title: 'Review not recorded', viewer, csrfToken, active: 'processing-activities' },
          <><div class="flash flash-error" role="alert" safe>{result.error.message}</div>{back}</>);
      }
      const view = await getRecord(app.db, processingActivityKind, viewer, params.id);
      return renderScreen(headers, { title: `Review of ${view.name}`, viewer, csrfToken, active: 'processing-activities' },
        <>{back}{await activityReviews(app, view, viewer, csrfToken, {
          values: typed, errors: fieldErrors(result.error.problems), error: 'Please correct the fields marked below.',
        })}</>);
    }, { page: 'dataPrivacy:review' });
};

export const DPIA_PATH = '/data-privacy/dpias';
const DPIA_LABELLED = new Set(['requiredOverride', 'residualRisk', 'status']);

/** DPIAs (GDPR Art. 35) on the register kit, with the decision, sign-off and reopening, and the risks written from them. */
export const dpiaPages = (app: AppContext) => {
  const back = (id: string) => `${DPIA_PATH}/${id}`;
  /** Sign-off and reopening from the DPIA's page: back to it when done, the refusal inside the app otherwise. */
  const reviewAction = async (action: typeof signOffDpia, failed: string, viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, id: string) => {
    const result = await attempt(() => runWrite(app, (tx) => action(tx, viewer, id)));
    if (result.ok) return null;
    return {
      status: result.error.status,
      screen: await renderScreen(headers, { title: failed, viewer, csrfToken, active: 'dpias' },
        <><div class="flash flash-error" role="alert" safe>{result.error.message}</div><p><a href={back(id)}>← Back to the DPIA</a></p></>),
    };
  };
  return recordPages(app, dpiaKind, {
    path: DPIA_PATH,
    title: 'DPIAs',
    singular: 'DPIA',
    navKey: 'dpias',
    Create: DpiaCreate,
    Update: DpiaUpdate,
    statuses: DPIA_STATUSES,
    searchLabel: 'Search names',
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, maxlength: 300 },
      { name: 'processingActivityId', label: 'Processing activity', kind: 'reference', required: true, link: processingActivityKind,
        options: (viewer) => readableChoices(app.db, viewer, recordType('processingActivity')) },
      { name: 'criteriaMet', label: 'Screening: EDPB criteria met', kind: 'checkboxes', options: DPIA_CRITERIA,
        hint: 'Tick each criterion the processing meets; two or more make a DPIA required' },
      { name: 'requiredOverride', label: 'Decision override', kind: 'select', options: DPIA_OVERRIDES,
        hint: 'Blank follows the screening; set it only to depart from it, with the reason below' },
      { name: 'overrideReason', label: 'Reason for the override', kind: 'textarea' },
      { name: 'description', label: 'Description of the processing', kind: 'textarea' },
      { name: 'necessityAndProportionality', label: 'Necessity and proportionality', kind: 'textarea' },
      { name: 'risksToDataSubjects', label: 'Risks to data subjects', kind: 'textarea' },
      { name: 'measures', label: 'Measures', kind: 'textarea' },
      { name: 'residualRisk', label: 'Residual risk', kind: 'select', options: RESIDUAL_RISKS },
      { name: 'residualJudgement', label: 'Residual judgement', kind: 'textarea' },
      { name: 'dpoAdvice', label: 'DPO advice', kind: 'textarea' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (d) => d.name, link: true, sort: 'name' },
      { header: 'Required', value: (d) => (d.required ? 'Yes' : 'No'), sort: 'required' },
      { header: 'Status', value: (d) => valueLabel(d.status), sort: 'status' },
      ownerColumn(),
    ],
    messages: { created: 'DPIA recorded.' },
    sections: async (view, viewer, csrfToken) => {
      const dpia = view;
      const riskType = recordType('risk');
      // The form is offered to those who may change the DPIA and write risks, while it is a draft.
      const mayWriteRisk = dpia.status === 'draft' && canTouch(viewer, 'dataPrivacy:update', view) && levelOf(viewer, 'risks:create') !== null;
      const [users, risks, riskChoices] = await Promise.all([
        platformService('listUsers')(app.db), recordRows(app.db, riskType, dpia.riskIds), mayWriteRisk ? riskRatingChoices(app.db) : null,
      ]);
      return (
        <DpiaSections view={dpia} csrfToken={csrfToken} canReview={canTouch(viewer, 'dataPrivacy:review', view)}
          signedOffBy={users.find((u) => u.id === dpia.signedOffById)?.name ?? null}
          risks={dpia.riskIds.map((id) => typedRecordAsSeen(viewer, riskType, id, risks.get(id)))} riskChoices={riskChoices} />
      );
    },
    historyNames: async () => {
      const users = new Map((await platformService('listUsers')(app.db)).map((u) => [u.id, u.name]));
      return (field, value) => {
        if (DPIA_LABELLED.has(field) && typeof value === 'string') return valueLabel(value);
        if (field === 'signedOffById' && typeof value === 'string') return users.get(value) ?? value;
        return undefined;
      };
    },
  })
    .post(`${DPIA_PATH}/:id/sign-off`, async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const refused = await reviewAction(signOffDpia, 'Not signed off', viewer, csrfToken, headers, params.id);
      if (!refused) return redirect(`${back(params.id)}?done=updated`, 303);
      set.status = refused.status;
      return refused.screen;
    }, { page: 'dataPrivacy:review' })
    .post(`${DPIA_PATH}/:id/risks`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const names = ['title', 'classificationId', 'inherentLikelihood', 'inherentImpact'] as const;
      const typed = Object.fromEntries(names.map((n) => [n, formText(body, n).trim()]));
      const input: Record<string, unknown> = { classificationId: typed.classificationId,
        inherentLikelihood: /^\d+$/.test(typed.inherentLikelihood) ? Number(typed.inherentLikelihood) : typed.inherentLikelihood,
        inherentImpact: /^\d+$/.test(typed.inherentImpact) ? Number(typed.inherentImpact) : typed.inherentImpact,
        ...(typed.title ? { title: typed.title } : {}) };
      const result = await attempt(() => {
        const problems = schemaProblems(DpiaRiskCreate, input);
        if (problems.length) throw invalid(problems);
        return runWrite(app, (tx) => createRiskFromDpia(tx, viewer, params.id, input as DpiaRiskInput));
      });
      if (result.ok) return redirect(`${back(params.id)}?done=updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Create a risk from this DPIA', viewer, csrfToken, active: 'dpias' },
        <>
          <p><a href={back(params.id)}>← Back to the DPIA</a></p>
          <RiskFromDpiaForm id={params.id} csrfToken={csrfToken} choices={await riskRatingChoices(app.db)} state={{
            values: typed, errors: fieldErrors(result.error.problems),
            error: result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message,
          }} />
        </>);
    }, { page: 'dataPrivacy:update' })
    .post(`${DPIA_PATH}/:id/reopen`, async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const refused = await reviewAction(reopenDpia, 'Not reopened', viewer, csrfToken, headers, params.id);
      if (!refused) return redirect(`${back(params.id)}?done=updated`, 303);
      set.status = refused.status;
      return refused.screen;
    }, { page: 'dataPrivacy:review' });
};

/** Breaches a page of the screen lists. */
const BREACH_PAGE_SIZE = 25;
const BREACH_SORT_KEYS: readonly string[] = BREACH_SORTS.flatMap((s) => [s, `-${s}`]);
const oneOf = (values: readonly string[], value: string | undefined) => (values.includes(value ?? '') ? value! : '');

/** The breaches' filters and sort as the address holds them; anything not recognised reads as not set, as on every list screen. */
function breachFilters(query: Record<string, string | undefined>): BreachFilters {
  return {
    q: (query.q ?? '').trim().slice(0, 200), status: oneOf(['open', 'closed'], query.status), clock: oneOf(BREACH_CLOCK_STATES, query.clock),
    ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '', sort: oneOf(BREACH_SORT_KEYS, query.sort),
  };
}

/** The filters as the service reads them (blanks left out). */
const breachQuery = (f: BreachFilters): BreachListQuery => ({
  ...(f.q ? { q: f.q } : {}), ...(f.status ? { status: f.status as BreachListQuery['status'] } : {}),
  ...(f.clock ? { clock: f.clock as BreachListQuery['clock'] } : {}), ...(f.ownerId ? { ownerId: f.ownerId } : {}), ...(f.sort ? { sort: f.sort } : {}),
});

/** The register's filters as the address holds them; anything not recognised reads as not set. */
function registerFilters(query: Record<string, string | undefined>): RegisterFilters {
  return {
    q: (query.q ?? '').trim().slice(0, 200), role: oneOf(PROCESSING_ROLES, query.role), status: oneOf(['draft', 'active'], query.status),
    legalBasis: oneOf(LEGAL_BASES, query.legalBasis), ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '', label: isUuid(query.label ?? '') ? query.label! : '',
  };
}

/** The filters as the register's reading takes them (blanks left out). */
const registerNarrowing = (f: RegisterFilters): RegisterNarrowing => ({
  ...(f.q ? { q: f.q } : {}), ...(f.role ? { role: f.role as RegisterNarrowing['role'] } : {}),
  ...(f.status ? { status: f.status as RegisterNarrowing['status'] } : {}), ...(f.legalBasis ? { legalBasis: f.legalBasis as RegisterNarrowing['legalBasis'] } : {}),
  ...(f.ownerId ? { ownerId: f.ownerId } : {}), ...(f.label ? { label: f.label } : {}),
});

/** The Article 30 register: the screen, the printable page and the CSV download, each as the reader may read it. */
export const registerPages = (app: AppContext) =>
  new Elysia({ name: 'pages:data-privacy:register' })
    .use(screenAuth(app))
    .get('/data-privacy', ({ redirect }) => redirect('/data-privacy/register', 303), { page: 'dataPrivacy:read' })
    .get(REGISTER_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const filters = registerFilters(query);
      const [sections, users, labels] = await Promise.all([
        articleThirtyRegister(app.db, viewer, registerNarrowing(filters)), platformService('listUsers')(app.db), labelChoices(app.db),
      ]);
      const actions = <a class="button secondary" href={registerHref(filters, `${REGISTER_PATH}/print`)}>Printable page</a>;
      return renderScreen(headers, { title: 'Article 30 register', viewer, csrfToken, active: 'article-30-register', actions },
        <RegisterScreen sections={sections} filters={filters} owners={users.map((u) => ({ value: u.id, label: u.name }))} labels={labels} />);
    }, { page: 'dataPrivacy:read' })
    .get(BREACHES_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const mayRead = mayReadBreaches(viewer);
      const filters = breachFilters(query);
      const page = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
      const [breaches, users] = await Promise.all([mayRead ? breachesAsSeen(app.db, viewer, breachQuery(filters)) : [], platformService('listUsers')(app.db)]);
      const props = {
        rows: breaches.slice((page - 1) * BREACH_PAGE_SIZE, page * BREACH_PAGE_SIZE), total: breaches.length, page, pageSize: BREACH_PAGE_SIZE,
        filters, owners: users.map((u) => ({ value: u.id, label: u.name })), mayRead,
      };
      return renderScreen(headers, { title: 'Personal-data breaches', viewer, csrfToken, active: 'breaches' }, <BreachesScreen {...props} />);
    }, { page: 'dataPrivacy:read' })
    // The breaches as listed (filtered and sorted as on screen), as CSV in the screen's columns and words.
    .get(`${BREACHES_PATH}.csv`, async ({ viewer, query, set }) => {
      const breaches = mayReadBreaches(viewer) ? await breachesAsSeen(app.db, viewer, breachQuery(breachFilters(query))) : [];
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="personal-data-breaches-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv([BREACH_CSV_COLUMNS.map((c) => c.header), ...breaches.map((b) => BREACH_CSV_COLUMNS.map((c) => c.text(b)))]);
    }, { page: 'dataPrivacy:read' })
    .get(`${REGISTER_PATH}/print`, async ({ viewer, query }) =>
      <RegisterPrint sections={await articleThirtyRegister(app.db, viewer, registerNarrowing(registerFilters(query)))} drawnUp={new Date()} />,
    { page: 'dataPrivacy:read' })
    // The register as filtered on screen, as CSV (the register's columns, BOM, formula-guarded, names as the reader may see them).
    .get(`${REGISTER_PATH}.csv`, ({ viewer, query }) => registerCsvResponse(app.db, viewer, registerFileName(), registerNarrowing(registerFilters(query))),
      { page: 'dataPrivacy:read' });
