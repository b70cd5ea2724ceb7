import { Elysia } from 'elysia';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { ConfirmDefinitionDelete, CustomFieldList, DefinitionForm, type DefinitionFormValues } from './views';
import { renderScreen } from '../../platform/http/screen';
import { runWrite, type AppContext } from '../../platform/http/context';
import { isCustomFieldModule } from '../../platform/records/custom-field-values';
import { invalid } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { customFieldSchemas, CustomFieldUpdate, type CustomFieldCreate, type CustomFieldView } from './schema';
import { createCustomField, deleteCustomField, getCustomField, listCustomFields, updateCustomField } from './service';
import { customFieldCsvColumns, customFieldListRules } from './lists';
import { chosenRows, pageOfRows, ruledState } from '../../platform/http/list-query';
import { csvDownload } from '../../platform/csv/list-download';

const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'custom-fields' });

function formValues(body: unknown): DefinitionFormValues {
  return {
    module: formText(body, 'module'), key: formText(body, 'key').trim(), label: formText(body, 'label'), type: formText(body, 'type'),
    options: formText(body, 'options'), required: formText(body, 'required') === 'true', position: formText(body, 'position').trim(),
  };
}

const valuesOf = (d: CustomFieldView): DefinitionFormValues => ({
  module: d.module, key: d.key, label: d.label, type: d.type, options: d.options.join('\n'), required: d.required, position: String(d.position),
});

/** The form as the REST body: options one per line (blank lines dropped); checked against the REST schema. */
function definitionInput(values: DefinitionFormValues, editing: boolean): Record<string, unknown> {
  const options = values.options.split(/\r?\n/).map((o) => o.trim()).filter((o) => o !== '');
  const position = /^\d{1,5}$/.test(values.position) ? Number(values.position) : values.position === '' ? undefined : values.position;
  const input: Record<string, unknown> = {
    label: values.label, required: values.required, ...(position === undefined ? {} : { position }),
    ...(editing ? { options } : { module: values.module, key: values.key, type: values.type, ...(options.length ? { options } : {}) }),
  };
  const problems = schemaProblems(editing ? CustomFieldUpdate : customFieldSchemas().CustomFieldCreate, input);
  if (problems.length) throw invalid(problems);
  return input;
}

/** Settings › Custom fields: definitions per module; deleting one that records hold values for asks first, with the count. */
export const customFieldPages = (ctx: AppContext) => {
  /** Every definition, chosen by the address's search, filters and sort. */
  const chosen = async (viewer: Actor, query: Record<string, string | undefined>) => {
    const rules = customFieldListRules();
    const state = ruledState(query, rules);
    return { state, rows: chosenRows(await listCustomFields(ctx.db, viewer), state, rules) };
  };
  return new Elysia({ name: 'pages:customFields' })
    .use(screenAuth(ctx))
    .get('/settings/custom-fields', async ({ viewer, csrfToken, headers, query }) => {
      const { state, rows } = await chosen(viewer, query);
      return renderScreen(headers, shell('Custom fields', viewer, csrfToken),
        <CustomFieldList definitions={pageOfRows(rows, state)} state={state} done={query.done}
          canCreate={levelOf(viewer, 'customFields:create') !== null} canUpdate={levelOf(viewer, 'customFields:update') !== null}
          canDelete={levelOf(viewer, 'customFields:delete') !== null} />);
    }, { page: 'customFields:read' })
    .get('/settings/custom-fields/export.csv', async ({ viewer, query, set }) =>
      csvDownload(set, 'custom-fields', customFieldCsvColumns, (await chosen(viewer, query)).rows), { page: 'customFields:read' })

    .get('/settings/custom-fields/new', async ({ viewer, csrfToken, headers, query }) => {
      const module = isCustomFieldModule(query.module ?? '') ? query.module! : 'risks';
      const values = { module, key: '', label: '', type: 'text', options: '', required: false, position: '' };
      return renderScreen(headers, shell('New custom field', viewer, csrfToken),
        <DefinitionForm action="/settings/custom-fields" csrfToken={csrfToken} values={values} editing={false} errors={{}} />);
    }, { page: 'customFields:create' })
    .post('/settings/custom-fields', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const values = formValues(body);
      const result = await attempt(() => runWrite(ctx, (tx) => createCustomField(tx, viewer, definitionInput(values, false) as CustomFieldCreate)));
      if (result.ok) return redirect(`/settings/custom-fields?done=created&module=${encodeURIComponent(values.module)}`, 303);
      set.status = result.error.status;
      const problems = result.error.problems;
      return renderScreen(headers, shell('New custom field', viewer, csrfToken),
        <DefinitionForm action="/settings/custom-fields" csrfToken={csrfToken} values={values} editing={false}
          errors={problems.length ? fieldErrors(problems) : { key: result.error.message }}
          error={problems.length ? 'Please correct the fields marked below.' : result.error.message} />);
    }, { page: 'customFields:create' })

    .get('/settings/custom-fields/:id/edit', async ({ viewer, csrfToken, headers, params }) => {
      const definition = await getCustomField(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Edit ${definition.label}`, viewer, csrfToken),
        <DefinitionForm action={`/settings/custom-fields/${definition.id}`} csrfToken={csrfToken} values={valuesOf(definition)} editing errors={{}} />);
    }, { page: 'customFields:update' })
    .post('/settings/custom-fields/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const definition = await getCustomField(ctx.db, viewer, params.id);
      const values = { ...formValues(body), module: definition.module, key: definition.key, type: definition.type };
      const result = await attempt(() => runWrite(ctx, (tx) => updateCustomField(tx, viewer, definition.id, definitionInput(values, true) as CustomFieldUpdate)));
      if (result.ok) return redirect(`/settings/custom-fields?done=updated&module=${encodeURIComponent(definition.module)}`, 303);
      set.status = result.error.status;
      const problems = result.error.problems;
      return renderScreen(headers, shell(`Edit ${definition.label}`, viewer, csrfToken),
        <DefinitionForm action={`/settings/custom-fields/${definition.id}`} csrfToken={csrfToken} values={values} editing
          errors={problems.length ? fieldErrors(problems) : { options: result.error.message }}
          error={problems.length ? 'Please correct the fields marked below.' : result.error.message} />);
    }, { page: 'customFields:update' })

    .get('/settings/custom-fields/:id/delete', async ({ viewer, csrfToken, headers, params }) => {
      const definition = await getCustomField(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Delete ${definition.label}`, viewer, csrfToken),
        <ConfirmDefinitionDelete definition={definition} csrfToken={csrfToken} />);
    }, { page: 'customFields:delete' })
    .post('/settings/custom-fields/:id/delete', async ({ viewer, params, body, redirect }) => {
      // The confirmation page sends confirm=true after showing how many values go; a bare POST still refuses (409).
      await runWrite(ctx, (tx) => deleteCustomField(tx, viewer, params.id, { confirm: formText(body, 'confirm') === 'true' }));
      return redirect('/settings/custom-fields?done=deleted', 303);
    }, { page: 'customFields:delete' });
};
