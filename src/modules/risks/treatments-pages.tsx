import { Elysia } from 'elysia';
import type { AppError } from '../../platform/core/errors';
import { runWrite, type AppContext } from '../../platform/http/context';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { getRecord, listRecords } from '../../platform/records/records';
import { isUuid } from '../../platform/core/uuid';
import { readable } from '../../platform/record-screens/record-views';
import { screenAuth } from '../../platform/http/screen-auth';
import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, Field, fieldErrors, Select, type FieldErrors } from '../../../views/components/form';
import { attempt, formList, formText } from '../../platform/http/form-input';
import { DataTable, Text } from '../../../views/components/table';
import { renderScreen } from '../../platform/http/screen';
import { controlKind } from '../controls/service';
import { riskParent } from '../exceptions/parents';
import type { ExceptionView } from '../exceptions/schema';
import { createException, listExceptions } from '../exceptions/service';
import { EXCEPTION_STATUS_LABELS, ExceptionRequestForm, Expiry } from '../exceptions/views';
import type { RiskScaleView, RiskView } from './schema';
import { getRisk } from './service';
import { getRiskScale } from './settings-service';
import { REVIEW_OUTCOMES, TREATMENT_STATUSES, TREATMENT_TYPES, type RiskReviews, type TreatmentCreate, type TreatmentUpdate, type TreatmentView } from './schema';
import { createTreatment, deleteTreatment, getTreatment, listTreatments, recordRiskReview, riskReviews, updateTreatment } from './treatments-service';
import { treatmentValuesOf, TreatmentFields, TreatmentPage, type TreatmentPageProps } from './views/treatment';
import { describeHistory, historyWithParts } from '../../platform/records/history-format';

type Body = unknown;
const OUTCOME_LABELS: Record<string, string> = { no_change: 'No change', changed: 'Changed', escalated: 'Escalated' };
const DONE: Record<string, string> = {
  'treatment-added': 'Treatment added.', 'treatment-updated': 'Treatment updated.', 'treatment-removed': 'Treatment removed.',
  'review-recorded': 'Review recorded.', 'exception-requested': 'Exception requested.',
};
const today = () => new Date().toISOString().slice(0, 10);

/** Controls the treatment form's picker lists at most; a search narrows them when there are more. */
const CONTROL_CHOICES = 200;

interface Refusal {
  form: 'treatment' | 'review' | 'exception' | 'row';
  values: Record<string, string>;
  errors: FieldErrors;
  message?: string;
  /** The controls chosen on a refused treatment form, chosen again. */
  controlIds?: string[];
}

interface ScreenProps {
  risk: RiskView;
  csrfToken: string;
  treatments: TreatmentView[];
  reviews: RiskReviews;
  exceptions: ExceptionView[];
  scale: RiskScaleView;
  controls: { id: string; name: string }[];
  /** How many controls match the control search (more than the picker lists when over CONTROL_CHOICES). */
  controlTotal: number;
  controlSearch: string;
  canUpdate: boolean;
  canReview: boolean;
  done?: string;
  refusal?: Refusal;
}

const refusalOf = (form: Refusal['form'], values: Record<string, string>, error: AppError): Refusal => ({
  form, values, errors: fieldErrors(error.problems), message: error.problems.length ? 'Please correct the fields marked below.' : error.message,
});

function TreatmentsScreen(p: ScreenProps): JSX.Element {
  const base = `/risks/${p.risk.id}`;
  const r = p.refusal;
  const tv = r?.form === 'treatment' ? treatmentValuesOf((name) => r.values[name] ?? '') : { type: 'mitigate', status: 'planned', title: '', description: '', dueOn: '', residualLikelihood: '', residualImpact: '' };
  const rv = r?.form === 'review' ? r.values : { reviewedOn: today(), outcome: 'no_change', notes: '' };
  const level = (l: { value: number; name: string } | null) => (l ? `${l.value} – ${l.name}` : '');
  return (
    <>
      <p class="actions"><a href={base} safe>{`← ${p.risk.title}`}</a><a href="/risks/exceptions">All risk exceptions</a></p>
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      {r?.form === 'row' && <FormError message={r.message} />}

      <h2 id="treatments">Treatments</h2>
      <DataTable<TreatmentView>
        id="risk-treatments"
        rows={p.treatments}
        empty="No treatments yet."
        columns={[
          { header: 'Treatment', cell: (t) => <a href={`${base}/treatments/${t.id}`} safe>{t.title}</a> },
          { header: 'Type', cell: (t) => <Text value={readable(t.type)} /> },
          { header: 'Status', cell: (t) => <Text value={readable(t.status)} /> },
          { header: 'Residual', cell: (t) => <Text value={t.residualLikelihood && t.residualImpact ? `${level(t.residualLikelihood)} × ${level(t.residualImpact)}` : '—'} /> },
          { header: 'Controls', cell: (t) => <span class="tags">{t.controls.map((c) => <a class="tag" href={`/controls/${c.id}`} safe>{c.name}</a>)}</span> },
          { header: 'Due', cell: (t) => <Text value={t.dueOn ?? '—'} /> },
          ...(p.canUpdate ? [{
            header: 'Actions',
            cell: (t: TreatmentView) => (
              <>
                {t.status === 'planned' && (
                  <form method="post" action={`${base}/treatments/${t.id}/implemented`} class="inline">
                    <CsrfField token={p.csrfToken} /><button type="submit">Mark implemented</button>
                  </form>
                )}
                <form method="post" action={`${base}/treatments/${t.id}/delete`} class="inline">
                  <CsrfField token={p.csrfToken} /><button type="submit" class="danger">Remove</button>
                </form>
              </>
            ),
          }] : []),
        ]}
      />
      <p class="muted">An implemented mitigate treatment with a residual rating sets the risk's residual rating.</p>
      {p.canUpdate && (p.controlTotal > CONTROL_CHOICES || p.controlSearch) && (
        // A plain GET form beside the treatment form (forms do not nest): it narrows the control picker below.
        <form method="get" action={`${base}/treatments#add-treatment`} class="card" role="search" aria-label="Find controls for the treatment">
          <Field label="Find controls" name="controls" value={p.controlSearch} maxlength={200}
            hint={`The picker lists ${p.controls.length} of ${p.controlTotal} matching controls by name; search to narrow it.`} />
          <button type="submit" class="secondary">Find</button>
        </form>
      )}
      {p.canUpdate && (
        <form method="post" action={`${base}/treatments`} class="card" id="add-treatment">
          <h3>Add a treatment</h3>
          {r?.form === 'treatment' && <FormError message={r.message} />}
          <CsrfField token={p.csrfToken} />
          <TreatmentFields values={tv} errors={r?.form === 'treatment' ? r.errors : undefined} scale={p.scale} controls={p.controls}
            chosen={r?.form === 'treatment' ? r.controlIds ?? [] : []} />
          <button type="submit">Add treatment</button>
        </form>
      )}

      <h2 id="reviews">Reviews</h2>
      <p>
        <span safe>{`Reviewed every ${p.reviews.frequencyMonths} months. Last review: ${p.reviews.lastReviewedOn ?? 'never'}. Next review due: ${p.reviews.nextReviewDue}`}</span>
        {p.reviews.overdue && <> <span class="tag tag-late">Overdue</span></>}
      </p>
      <DataTable<RiskReviews['reviews'][number]>
        id="risk-reviews"
        rows={p.reviews.reviews}
        empty="Not reviewed yet."
        columns={[
          { header: 'Reviewed on', cell: (v) => <Text value={v.reviewedOn} /> },
          { header: 'Reviewer', cell: (v) => <Text value={v.reviewer?.name ?? '—'} /> },
          { header: 'Outcome', cell: (v) => <Text value={OUTCOME_LABELS[v.outcome] ?? v.outcome} /> },
          { header: 'Notes', cell: (v) => <Text value={v.notes} /> },
        ]}
      />
      {p.canReview && (
        <form method="post" action={`${base}/reviews`} class="card" id="record-review">
          <h3>Record a review</h3>
          {r?.form === 'review' && <FormError message={r.message} />}
          <CsrfField token={p.csrfToken} />
          <Field label="Reviewed on" name="reviewedOn" type="date" value={rv.reviewedOn} error={r?.errors.reviewedOn} required />
          <Field label="Outcome" name="outcome" error={r?.errors.outcome}>
            <Select name="outcome" selected={rv.outcome} options={REVIEW_OUTCOMES.map((v) => ({ value: v, label: OUTCOME_LABELS[v] }))} />
          </Field>
          <Field label="Notes" name="notes" type="textarea" value={rv.notes} error={r?.errors.notes} />
          <button type="submit">Record review</button>
        </form>
      )}

      <h2 id="exceptions">Exceptions</h2>
      <DataTable<ExceptionView>
        id="risk-exceptions"
        rows={p.exceptions}
        empty="No exceptions."
        columns={[
          { header: 'Title', cell: (e) => <a href={`/risks/exceptions/${e.id}`} safe>{e.title}</a> },
          { header: 'Status', cell: (e) => <Text value={EXCEPTION_STATUS_LABELS[e.status] ?? e.status} /> },
          { header: 'Expires', cell: (e) => <Expiry e={e} /> },
          { header: 'Approver', cell: (e) => <Text value={e.approver?.name ?? '—'} /> },
        ]}
      />
      {p.canUpdate && (
        <ExceptionRequestForm action={`${base}/exceptions`} csrfToken={p.csrfToken}
          values={r?.form === 'exception' ? { title: r.values.title, description: r.values.description, expiresAt: r.values.expiresAt } : undefined}
          errors={r?.form === 'exception' ? r.errors : undefined} error={r?.form === 'exception' ? r.message : undefined} />
      )}
    </>
  );
}

/** Treatments, reviews and exceptions of one risk, at /risks/:id/treatments (linked from the risk's page). */
export const riskTreatmentPages = (ctx: AppContext) => {
  const screen = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, riskId: string,
    extra: { done?: string; refusal?: Refusal } = {}, controlSearch = '') => {
    const risk = await getRisk(ctx.db, viewer, riskId);
    const owned = { ownerId: risk.owner?.id ?? null, ownerGroupId: risk.ownerGroup?.id ?? null };
    const canUpdate = canTouch(viewer, 'risks:update', owned);
    const [treatments, reviews, exceptions, scale, controls] = await Promise.all([
      listTreatments(ctx.db, viewer, riskId), riskReviews(ctx.db, viewer, riskId),
      listExceptions(ctx.db, riskParent, viewer, { parentId: riskId, pageSize: 200, sort: 'expiresAt' }), getRiskScale(ctx.db, viewer),
      canUpdate && levelOf(viewer, 'controls:read') ? listRecords(ctx.db, controlKind, viewer, { pageSize: CONTROL_CHOICES, sort: 'name', ...(controlSearch ? { q: controlSearch } : {}) }) : null,
    ]);
    // Controls chosen on a refused form stay listed (and chosen) even when the picker's first page does not hold them.
    const listed = (controls?.rows ?? []).map((c) => ({ id: c.id, name: c.name }));
    const unlisted = (extra.refusal?.controlIds ?? []).filter((id) => isUuid(id) && !listed.some((c) => c.id === id)).slice(0, CONTROL_CHOICES);
    const chosen = controls ? await Promise.all(unlisted.map((id) => getRecord(ctx.db, controlKind, viewer, id).then((c) => ({ id: c.id, name: c.name }), () => null))) : [];
    return renderScreen(headers, { title: `Treatments, reviews and exceptions: ${risk.title}`, viewer, csrfToken, active: 'risks' },
      <TreatmentsScreen risk={risk} csrfToken={csrfToken} treatments={treatments} reviews={reviews} exceptions={exceptions.rows} scale={scale}
        controls={[...chosen.filter((c) => c !== null), ...listed]} controlTotal={controls?.total ?? 0} controlSearch={controlSearch} canUpdate={canUpdate}
        canReview={canTouch(viewer, 'risks:review', owned)} {...extra} />);
  };
  const back = (riskId: string, done: string, anchor: string) => `/risks/${riskId}/treatments?done=${done}#${anchor}`;
  const text = (body: Body, names: string[]) => Object.fromEntries(names.map((n) => [n, formText(body, n)]));

  /**
   * The controls an edit form's picker offers: the first CONTROL_CHOICES by name (of those matching the search) and the
   * ones chosen, with how many match; null without controls:read.
   */
  const controlChoices = async (viewer: Actor, chosenIds: readonly string[], search: string) => {
    if (!levelOf(viewer, 'controls:read')) return null;
    const page = await listRecords(ctx.db, controlKind, viewer, { pageSize: CONTROL_CHOICES, sort: 'name', ...(search ? { q: search } : {}) });
    const listed = page.rows.map((c) => ({ id: c.id, name: c.name }));
    const missing = chosenIds.filter((id) => isUuid(id) && !listed.some((c) => c.id === id)).slice(0, CONTROL_CHOICES);
    const chosen = await Promise.all(missing.map((id) => getRecord(ctx.db, controlKind, viewer, id).then((c) => ({ id: c.id, name: c.name }), () => null)));
    return { rows: [...chosen.filter((c) => c !== null), ...listed], total: page.total };
  };
  const treatmentScreen = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, riskId: string, treatmentId: string,
    extra: Pick<TreatmentPageProps, 'done' | 'refused'> = {}, controlSearch = '') => {
    const [risk, treatment] = await Promise.all([getRisk(ctx.db, viewer, riskId), getTreatment(ctx.db, viewer, riskId, treatmentId)]);
    const canUpdate = canTouch(viewer, 'risks:update', { ownerId: risk.owner?.id ?? null, ownerGroupId: risk.ownerGroup?.id ?? null });
    const [scale, controls, stored] = await Promise.all([
      getRiskScale(ctx.db, viewer),
      canUpdate ? controlChoices(viewer, extra.refused?.controlIds ?? treatment.controls.map((c) => c.id), controlSearch) : null,
      historyWithParts(ctx.db, 'riskTreatment', treatment.id),
    ]);
    const history = await describeHistory(ctx.db, viewer, stored, { own: { recordType: 'riskTreatment', recordId: treatment.id } });
    return renderScreen(headers, { title: `Treatment: ${treatment.title}`, viewer, csrfToken, active: 'risks' },
      <TreatmentPage risk={risk} treatment={treatment} csrfToken={csrfToken} scale={scale} controls={controls?.rows ?? null}
        controlTotal={controls?.total ?? 0} controlSearch={controlSearch} controlChoices={CONTROL_CHOICES} history={history} canUpdate={canUpdate} {...extra} />);
  };

  return new Elysia({ name: 'module:risks:treatment-pages' })
    .use(screenAuth(ctx))
    .get('/risks/:id/treatments', ({ viewer, csrfToken, headers, params, query }) => screen(viewer, csrfToken, headers, params.id, { done: query.done }, (query.controls ?? '').trim().slice(0, 200)), { page: 'risks:read' })
    .post('/risks/:id/treatments', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = text(body, ['type', 'status', 'title', 'description', 'dueOn', 'residualLikelihood', 'residualImpact']);
      const input: TreatmentCreate = {
        type: (TREATMENT_TYPES as readonly string[]).includes(values.type) ? values.type as TreatmentCreate['type'] : 'mitigate',
        status: values.status === 'implemented' ? 'implemented' : 'planned',
        title: values.title, description: values.description, dueOn: values.dueOn || null,
        residualLikelihood: values.residualLikelihood || null, residualImpact: values.residualImpact || null,
        controlIds: formList(body, 'controlIds'),
      };
      const result = await attempt(() => runWrite(ctx, (tx) => createTreatment(tx, viewer, params.id, input)));
      if (result.ok) return redirect(back(params.id, 'treatment-added', 'treatments'), 303);
      set.status = result.error.status;
      return screen(viewer, csrfToken, headers, params.id, { refusal: { ...refusalOf('treatment', values, result.error), controlIds: input.controlIds } });
    }, { page: 'risks:update' })
    .get('/risks/:id/treatments/:treatmentId', ({ viewer, csrfToken, headers, params, query }) =>
      treatmentScreen(viewer, csrfToken, headers, params.id, params.treatmentId, { done: query.done }, (query.controls ?? '').trim().slice(0, 200)), { page: 'risks:read' })
    .post('/risks/:id/treatments/:treatmentId', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = treatmentValuesOf((name) => formText(body, name));
      const controlIds = formList(body, 'controlIds');
      const patch: TreatmentUpdate = {
        // A value outside the lists (a tampered form) leaves the stored one.
        type: (TREATMENT_TYPES as readonly string[]).includes(values.type) ? values.type as TreatmentUpdate['type'] : undefined,
        status: (TREATMENT_STATUSES as readonly string[]).includes(values.status) ? values.status as TreatmentUpdate['status'] : undefined,
        title: values.title, description: values.description, dueOn: values.dueOn || null,
        residualLikelihood: values.residualLikelihood || null, residualImpact: values.residualImpact || null,
        // Without the picker on the form (no controls:read) the links stay as they are.
        ...(formText(body, 'controlsShown') === '1' ? { controlIds } : {}),
      };
      const result = await attempt(() => runWrite(ctx, (tx) => updateTreatment(tx, viewer, params.id, params.treatmentId, patch)));
      if (result.ok) return redirect(`/risks/${params.id}/treatments/${params.treatmentId}?done=updated`, 303);
      set.status = result.error.status;
      const { errors, message } = refusalOf('treatment', {}, result.error);
      return treatmentScreen(viewer, csrfToken, headers, params.id, params.treatmentId, { refused: { values, controlIds, errors, message: message ?? result.error.message } });
    }, { page: 'risks:update' })
    .post('/risks/:id/treatments/:treatmentId/implemented', async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => updateTreatment(tx, viewer, params.id, params.treatmentId, { status: 'implemented' })));
      if (result.ok) return redirect(back(params.id, 'treatment-updated', 'treatments'), 303);
      set.status = result.error.status;
      return screen(viewer, csrfToken, headers, params.id, { refusal: refusalOf('row', {}, result.error) });
    }, { page: 'risks:update' })
    .post('/risks/:id/treatments/:treatmentId/delete', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => deleteTreatment(tx, viewer, params.id, params.treatmentId));
      return redirect(back(params.id, 'treatment-removed', 'treatments'), 303);
    }, { page: 'risks:update' })
    .post('/risks/:id/reviews', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = text(body, ['reviewedOn', 'outcome', 'notes']);
      const outcome = (REVIEW_OUTCOMES as readonly string[]).includes(values.outcome) ? values.outcome as (typeof REVIEW_OUTCOMES)[number] : 'no_change';
      const result = await attempt(() => runWrite(ctx, (tx) => recordRiskReview(tx, viewer, params.id, { reviewedOn: values.reviewedOn, outcome, notes: values.notes })));
      if (result.ok) return redirect(back(params.id, 'review-recorded', 'reviews'), 303);
      set.status = result.error.status;
      return screen(viewer, csrfToken, headers, params.id, { refusal: refusalOf('review', values, result.error) });
    }, { page: 'risks:review' })
    .post('/risks/:id/exceptions', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = { title: formText(body, 'exceptionTitle'), description: formText(body, 'exceptionDescription'), expiresAt: formText(body, 'expiresAt') };
      const result = await attempt(() => runWrite(ctx, (tx) => createException(tx, riskParent, viewer, {
        parentId: params.id, title: values.title, description: values.description, expiresAt: values.expiresAt,
      })));
      if (result.ok) return redirect(back(params.id, 'exception-requested', 'exceptions'), 303);
      set.status = result.error.status;
      return screen(viewer, csrfToken, headers, params.id, { refusal: refusalOf('exception', values, result.error) });
    }, { page: 'risks:update' });
};
