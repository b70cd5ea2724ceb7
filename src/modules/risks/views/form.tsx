import type { RiskScaleView } from '../schema';
import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors, type Option } from '../../../../views/components/form';
import type { CustomFieldFormValues, Definition } from '../../../platform/records/custom-field-values';
import { CustomFieldInputs } from '../../../platform/record-screens/custom-field-inputs';
import { statusOptions } from './parts';

/** What the form holds: every value as the browser sends it, so a refused form comes back exactly as typed. */
export interface RiskFormValues {
  title: string;
  description: string;
  classificationId: string;
  inherentLikelihood: string;
  inherentImpact: string;
  residualLikelihood: string;
  residualImpact: string;
  ownerId: string;
  ownerGroupId: string;
  reviewFrequencyMonths: string;
  status: string;
}

export interface RiskFormProps {
  action: string;
  submitLabel: string;
  cancelHref: string;
  csrfToken: string;
  values: RiskFormValues;
  errors?: FieldErrors;
  error?: string;
  scale: Pick<RiskScaleView, 'likelihood' | 'impact'>;
  classifications: { id: string; name: string }[];
  users: { id: string; name: string; email: string }[];
  groups: { id: string; name: string }[];
  /** The risks' custom fields (Settings › Custom fields), as inputs named cf.<key>. */
  customFields?: { definitions: Definition[]; values: CustomFieldFormValues };
}

const levelOptions = (levels: { value: number; name: string }[], blank?: string): Option[] => [
  ...(blank !== undefined ? [{ value: '', label: blank }] : []),
  ...levels.map((l) => ({ value: String(l.value), label: `${l.value} – ${l.name}` })),
];

/** Create and edit share this form; errors come from the service's field problems and sit next to their field. */
export function RiskForm(props: RiskFormProps): JSX.Element {
  const { values, scale } = props;
  const errors = props.errors ?? {};
  const select = (label: string, name: keyof RiskFormValues, options: Option[], hint?: string, required?: boolean) => (
    <Field label={label} name={name} error={errors[name]} hint={hint}>
      <Select name={name} options={options} selected={values[name]} required={required} />
    </Field>
  );
  return (
    <form method="post" action={props.action} class="card" novalidate>
      <Flash kind="error" message={props.error} />
      <CsrfField token={props.csrfToken} />
      <Field label="Title" name="title" value={values.title} error={errors.title} required maxlength={300} />
      <Field label="Description" name="description" type="textarea" value={values.description} error={errors.description} maxlength={100000} />
      {select('Classification', 'classificationId',
        [{ value: '', label: 'Choose…' }, ...props.classifications.map((c) => ({ value: c.id, label: c.name }))], undefined, true)}
      <fieldset>
        <legend>Inherent rating</legend>
        {select('Likelihood', 'inherentLikelihood', levelOptions(scale.likelihood, 'Choose…'), undefined, true)}
        {select('Impact', 'inherentImpact', levelOptions(scale.impact, 'Choose…'), undefined, true)}
      </fieldset>
      <fieldset>
        <legend>Residual rating</legend>
        {select('Likelihood', 'residualLikelihood', levelOptions(scale.likelihood, 'Not rated'), 'Never above the inherent likelihood')}
        {select('Impact', 'residualImpact', levelOptions(scale.impact, 'Not rated'), 'Never above the inherent impact')}
      </fieldset>
      {select('Owner', 'ownerId', [{ value: '', label: 'Nobody' }, ...props.users.map((u) => ({ value: u.id, label: `${u.name} <${u.email}>` }))])}
      {select('Owner group', 'ownerGroupId', [{ value: '', label: 'No group' }, ...props.groups.map((g) => ({ value: g.id, label: g.name }))])}
      <Field label="Review every (months)" name="reviewFrequencyMonths" type="number" value={values.reviewFrequencyMonths}
        error={errors.reviewFrequencyMonths} min={1} max={120} hint="1 to 120; 12 when blank" />
      {select('Status', 'status', statusOptions(false))}
      {props.customFields && <CustomFieldInputs definitions={props.customFields.definitions} values={props.customFields.values} errors={errors} />}
      <div class="actions">
        <button type="submit" safe>{props.submitLabel}</button>
        <a href={props.cancelHref}>Cancel</a>
      </div>
    </form>
  );
}
