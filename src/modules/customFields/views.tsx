import type { CustomFieldView } from './schema';
import { CUSTOM_FIELD_TYPES } from '../../platform/records/custom-field-values';
import { customFieldModules, moduleLabel } from '../../platform/http/installed';
import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors } from '../../../views/components/form';
import { Text } from '../../../views/components/table';
import { FilteredList, type ListPage, type ListState } from '../../../views/components/list';
import { TYPE_LABELS } from './lists';


const DONE: Record<string, string> = { created: 'Custom field created.', updated: 'Custom field saved.', deleted: 'Custom field deleted.' };

export interface CustomFieldListProps {
  definitions: ListPage<CustomFieldView>;
  state: ListState;
  canCreate: boolean;
  canUpdate: boolean;
  canDelete: boolean;
  done?: string;
}

/** Every custom field of every module that takes them, as one list; a new field starts in the module filtered on. */
export function CustomFieldList(p: CustomFieldListProps): JSX.Element {
  const module = p.state.filters.module ?? '';
  return (
    <>
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <div class="section-head">
        <p class="muted">Extra fields on records. A field's key names it in the REST API (<code>customFields</code>) and cannot change, nor can its type.</p>
        {p.canCreate && <a class="button" href={module ? `/settings/custom-fields/new?module=${module}` : '/settings/custom-fields/new'}>New custom field</a>}
      </div>
      <FilteredList<CustomFieldView> path="/settings/custom-fields" name="custom-field" one="custom field" many="custom fields" state={p.state} page={p.definitions}
        defaultSort="module" empty="No custom fields yet." search="Search labels, keys and options"
        selects={[
          { name: 'module', label: 'Module', options: customFieldModules().map((m) => ({ value: m, label: moduleLabel(m) })) },
          { name: 'type', label: 'Type', options: CUSTOM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] ?? t })) },
        ]}
        columns={[
          { header: 'Module', sort: 'module', cell: (d) => <Text value={moduleLabel(d.module)} /> },
          { header: 'Label', sort: 'label', cell: (d) => <Text value={d.label} /> },
          { header: 'Key', sort: 'key', cell: (d) => <code safe>{d.key}</code> },
          { header: 'Type', sort: 'type', cell: (d) => <Text value={TYPE_LABELS[d.type]} /> },
          { header: 'Options', cell: (d) => <Text value={d.options.join(', ')} /> },
          { header: 'Required', sort: 'required', cell: (d) => <Text value={d.required ? 'Yes' : 'No'} /> },
          { header: 'Records with a value', sort: 'values', cell: (d) => <Text value={d.valueCount} />, class: 'num' },
          ...(p.canUpdate || p.canDelete ? [{
            header: 'Actions',
            cell: (d: CustomFieldView) => (
              <span class="actions">
                {p.canUpdate && <a href={`/settings/custom-fields/${d.id}/edit`} aria-label={`Edit ${d.label}`}>Edit</a>}
                {p.canDelete && <a href={`/settings/custom-fields/${d.id}/delete`} aria-label={`Delete ${d.label}`}>Delete</a>}
              </span>
            ),
          }] : []),
        ]}
      />
    </>
  );
}

export interface DefinitionFormValues {
  module: string;
  key: string;
  label: string;
  type: string;
  options: string;
  required: boolean;
  position: string;
}

export interface DefinitionFormProps {
  action: string;
  csrfToken: string;
  values: DefinitionFormValues;
  /** On edit, module, key and type are shown but cannot change. */
  editing: boolean;
  errors: FieldErrors;
  error?: string;
}

export function DefinitionForm(p: DefinitionFormProps): JSX.Element {
  const v = p.values;
  return (
    <form method="post" action={p.action} class="card form" novalidate>
      <CsrfField token={p.csrfToken} />
      <FormError message={p.error} />
      {p.editing
        ? <dl class="details"><dt>Records</dt><dd safe>{moduleLabel(v.module)}</dd><dt>Key</dt><dd><code safe>{v.key}</code></dd>
          <dt>Type</dt><dd safe>{TYPE_LABELS[v.type] ?? v.type}</dd></dl>
        : <>
          <Field label="Records" name="module" error={p.errors.module} required>
            <Select name="module" selected={v.module} options={customFieldModules().map((m) => ({ value: m, label: moduleLabel(m) }))} />
          </Field>
          <Field label="Key" name="key" value={v.key} error={p.errors.key} required maxlength={40}
            hint="Starts with a lowercase letter; letters, digits and _ (up to 40). Used in the REST API; cannot change." />
          <Field label="Type" name="type" error={p.errors.type} required>
            <Select name="type" selected={v.type} options={CUSTOM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))} />
          </Field>
        </>}
      <Field label="Label" name="label" value={v.label} error={p.errors.label} required maxlength={120} />
      <Field label="Options" name="options" type="textarea" value={v.options} error={p.errors.options}
        hint="Select fields only: one option per line. An option records still hold cannot be removed." />
      <div class="field">
        <label class="inline"><input type="checkbox" name="required" value="true" checked={v.required} /> Required on new records</label>
      </div>
      <Field label="Position" name="position" type="number" value={v.position} error={p.errors.position} min={0} max={10000}
        hint="Display order within the records' forms; blank puts it last" />
      <p class="actions">
        <button type="submit" safe>{p.editing ? 'Save changes' : 'Create field'}</button>
        <a href="/settings/custom-fields">Cancel</a>
      </p>
    </form>
  );
}

/** Deleting a field that records hold values for says how many values go with it. */
export function ConfirmDefinitionDelete({ definition, csrfToken }: { definition: CustomFieldView; csrfToken: string }): JSX.Element {
  const n = definition.valueCount;
  return (
    <form method="post" action={`/settings/custom-fields/${definition.id}/delete`} class="card">
      <CsrfField token={csrfToken} />
      <input type="hidden" name="confirm" value="true" />
      <p safe>{`Delete the custom field "${definition.label}" (${definition.key}) of ${moduleLabel(definition.module).toLowerCase()}?`}</p>
      <p safe>{n > 0
        ? `${n} record${n === 1 ? ' holds a value' : 's hold values'} for this field; ${n === 1 ? 'it is' : 'they are'} deleted with it. The Audit Log records how many.`
        : 'No record holds a value for this field.'}</p>
      <p class="actions"><button type="submit" class="danger">Delete field</button><a href="/settings/custom-fields">Cancel</a></p>
    </form>
  );
}
