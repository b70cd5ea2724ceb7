import type { CustomFieldFormValues, Definition } from '../records/custom-field-values';
import { TEXT_MAX } from '../records/custom-field-values';
import { Field, Select, type FieldErrors } from '../../../views/components/form';

export interface CustomFieldInputsProps {
  definitions: Definition[];
  values: CustomFieldFormValues;
  /** Problems keyed as the service reports them: `customFields.<key>`. */
  errors: FieldErrors;
}

/** A module's custom fields as form inputs named `cf.<key>`, each with its inline error; nothing when none are defined. */
export function CustomFieldInputs({ definitions, values, errors }: CustomFieldInputsProps): JSX.Element {
  if (definitions.length === 0) return <></>;
  return (
    <fieldset class="custom-fields">
      <legend>Custom fields</legend>
      {definitions.map((d) => {
        const name = `cf.${d.key}`;
        const error = errors[`customFields.${d.key}`];
        const value = values[d.key] ?? (d.type === 'multiSelect' ? [] : '');
        const text = Array.isArray(value) ? '' : value;
        switch (d.type) {
          case 'text':
            return <Field label={d.label} name={name} value={text} error={error} required={d.required} maxlength={TEXT_MAX} />;
          case 'number':
            return <Field label={d.label} name={name} type="number" value={text} error={error} required={d.required} />;
          case 'date':
            return <Field label={d.label} name={name} type="date" value={text} error={error} required={d.required} hint="YYYY-MM-DD" />;
          case 'boolean':
            return (
              <Field label={d.label} name={name} error={error} required={d.required}>
                <Select name={name} selected={text}
                  options={[{ value: '', label: '—' }, { value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }]} />
              </Field>
            );
          case 'singleSelect':
            return (
              <Field label={d.label} name={name} error={error} required={d.required}>
                <Select name={name} selected={text}
                  options={[{ value: '', label: d.required ? 'Choose…' : '—' }, ...d.options.map((o) => ({ value: o, label: o }))]} />
              </Field>
            );
          case 'multiSelect': {
            const chosen = Array.isArray(value) ? value : [];
            return (
              <fieldset class={error ? 'field invalid' : 'field'} id={`f-${name}`}>
                <legend safe>{d.required ? `${d.label} (required)` : d.label}</legend>
                {d.options.map((o) => (
                  <label class="inline"><input type="checkbox" name={name} value={o} checked={chosen.includes(o)} /> <span safe>{o}</span></label>
                ))}
                {error && <span class="error" role="alert" safe>{error}</span>}
              </fieldset>
            );
          }
        }
      })}
    </fieldset>
  );
}
