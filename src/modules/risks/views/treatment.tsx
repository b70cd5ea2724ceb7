import { Flash, FormError } from '../../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors } from '../../../../views/components/form';
import { HistoryTable, readable } from '../../../platform/record-screens/record-views';
import type { ShownEntry } from '../../../platform/records/history-format';
import { TREATMENT_STATUSES, TREATMENT_TYPES, type RiskScaleView, type RiskView, type TreatmentView } from '../schema';

/** A treatment form's values as typed (what a refused form shows again). */
export interface TreatmentValues {
  type: string;
  status: string;
  title: string;
  description: string;
  dueOn: string;
  residualLikelihood: string;
  residualImpact: string;
}

export const TREATMENT_FIELDS = ['type', 'status', 'title', 'description', 'dueOn', 'residualLikelihood', 'residualImpact'] as const;

/** A treatment form's values read field by field (from a posted form or a refused one's kept values). */
export const treatmentValuesOf = (read: (name: (typeof TREATMENT_FIELDS)[number]) => string): TreatmentValues => ({
  type: read('type'), status: read('status'), title: read('title'), description: read('description'), dueOn: read('dueOn'),
  residualLikelihood: read('residualLikelihood'), residualImpact: read('residualImpact'),
});

const levelText = (l: { value: number; name: string }) => `${l.value} – ${l.name}`;

/** A stored treatment as the form's values. */
export const treatmentValues = (t: TreatmentView): TreatmentValues => ({
  type: t.type, status: t.status, title: t.title, description: t.description, dueOn: t.dueOn ?? '',
  residualLikelihood: t.residualLikelihood ? String(t.residualLikelihood.value) : '',
  residualImpact: t.residualImpact ? String(t.residualImpact.value) : '',
});

/** The fields of the add and edit forms of a treatment; the controls picker only for a viewer who may read controls. */
export function TreatmentFields({ values, errors, scale, controls, chosen }: {
  values: TreatmentValues; errors?: FieldErrors; scale: RiskScaleView;
  controls: { id: string; name: string }[] | null; chosen: readonly string[];
}): JSX.Element {
  const levels = (list: { value: number; name: string }[]) => [{ value: '', label: '—' }, ...list.map((l) => ({ value: String(l.value), label: levelText(l) }))];
  return (
    <>
      <Field label="Type" name="type" error={errors?.type}><Select name="type" selected={values.type} options={TREATMENT_TYPES.map((v) => ({ value: v, label: readable(v) }))} /></Field>
      <Field label="Status" name="status" error={errors?.status}><Select name="status" selected={values.status} options={TREATMENT_STATUSES.map((v) => ({ value: v, label: readable(v) }))} /></Field>
      <Field label="Title" name="title" value={values.title} error={errors?.title} required maxlength={300} />
      <Field label="Description" name="description" type="textarea" value={values.description} error={errors?.description} />
      <Field label="Due on" name="dueOn" type="date" value={values.dueOn} error={errors?.dueOn} />
      <Field label="Residual likelihood (mitigate)" name="residualLikelihood" error={errors?.residualLikelihood}>
        <Select name="residualLikelihood" selected={values.residualLikelihood} options={levels(scale.likelihood)} />
      </Field>
      <Field label="Residual impact (mitigate)" name="residualImpact" error={errors?.residualImpact}>
        <Select name="residualImpact" selected={values.residualImpact} options={levels(scale.impact)} />
      </Field>
      {controls !== null && controls.length > 0 && (
        <Field label="Controls (mitigate)" name="controlIds" error={errors?.controlIds}>
          <>
            {/* Says the picker was on the form: an edit without it leaves the links as they are. */}
            <input type="hidden" name="controlsShown" value="1" />
            <select id="f-controlIds" name="controlIds" multiple="multiple" size="5">
              {controls.map((c) => <option value={c.id} selected={chosen.includes(c.id)} safe>{c.name}</option>)}
            </select>
          </>
        </Field>
      )}
    </>
  );
}

export interface TreatmentPageProps {
  risk: Pick<RiskView, 'id' | 'title'>;
  treatment: TreatmentView;
  csrfToken: string;
  scale: RiskScaleView;
  controls: { id: string; name: string }[] | null;
  /** How many controls match the control search, the search, and how many the picker lists at most. */
  controlTotal: number;
  controlSearch: string;
  controlChoices: number;
  history: ShownEntry[];
  canUpdate: boolean;
  done?: string;
  /** A refused edit: what was typed, shown again with the problems. */
  refused?: { values: TreatmentValues; controlIds: string[]; errors: FieldErrors; message: string };
}

/** One treatment: its fields, the edit form for a viewer who may change the risk, and its History. */
export function TreatmentPage(p: TreatmentPageProps): JSX.Element {
  const t = p.treatment;
  const base = `/risks/${p.risk.id}/treatments`;
  const residual = t.residualLikelihood && t.residualImpact ? `${levelText(t.residualLikelihood)} × ${levelText(t.residualImpact)}` : '—';
  return (
    <>
      <nav class="breadcrumbs" aria-label="Breadcrumb">
        <a href={`/risks/${p.risk.id}`} safe>{`← ${p.risk.title}`}</a>{' · '}<a href={base}>All its treatments</a>
      </nav>
      <Flash kind="success" message={p.done === 'updated' ? 'Treatment updated.' : undefined} />
      <dl class="card details">
        <dt>Risk</dt><dd><a href={`/risks/${p.risk.id}`} safe>{p.risk.title}</a></dd>
        <dt>Type</dt><dd safe>{readable(t.type)}</dd>
        <dt>Status</dt><dd safe>{readable(t.status)}</dd>
        <dt>Due on</dt><dd safe>{t.dueOn ?? '—'}</dd>
        <dt>Residual rating</dt><dd safe>{residual}</dd>
        <dt>Controls</dt>
        <dd>{t.controls.length ? <span class="tags">{t.controls.map((c) => <a class="tag" href={`/controls/${c.id}`} safe>{c.name}</a>)}</span> : '—'}</dd>
        <dt>Description</dt><dd class="prewrap" safe>{t.description || '—'}</dd>
      </dl>
      {p.canUpdate && p.controls && (p.controlTotal > p.controlChoices || p.controlSearch) && (
        // A plain GET form before the edit form (forms do not nest): it narrows the control picker of the form below.
        <form method="get" action={`${base}/${t.id}#edit-treatment`} class="card" role="search" aria-label="Find controls for the treatment">
          <Field label="Find controls" name="controls" value={p.controlSearch} maxlength={200}
            hint={`The picker lists ${p.controls.length} of ${p.controlTotal} matching controls by name; search to narrow it.`} />
          <button type="submit" class="secondary">Find</button>
        </form>
      )}
      {p.canUpdate && (
        <form method="post" action={`${base}/${t.id}`} class="card" id="edit-treatment">
          <h2>Edit the treatment</h2>
          <FormError message={p.refused?.message} />
          <CsrfField token={p.csrfToken} />
          <TreatmentFields values={p.refused?.values ?? treatmentValues(t)} errors={p.refused?.errors} scale={p.scale}
            controls={p.controls} chosen={p.refused?.controlIds ?? t.controls.map((c) => c.id)} />
          <p class="actions"><button type="submit">Save changes</button><a href={`${base}/${t.id}`}>Cancel</a></p>
        </form>
      )}
      <h2 id="history-heading">History</h2>
      <HistoryTable id="treatment-history" entries={p.history} />
    </>
  );
}
