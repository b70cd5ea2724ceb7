import { Flash } from '../../../views/components/flash';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { runWrite, type AppContext } from '../../platform/http/context';
import { invalid } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import {
  BreachInput, INCIDENT_STATUSES, IncidentClassificationInput, IncidentCreate, IncidentUpdate, NotificationCreate,
} from './schema';
import {
  addBreachNotification, createIncidentClassification, deleteIncidentClassification, getBreach, incidentClassificationOptions, incidentKind,
  incidentLinkChoices, listIncidentClassifications, putBreach, updateIncidentClassification,
} from './service';
import { assetKind } from '../assets/service';
import { thirdPartyKind } from '../thirdParties/service';
import { BreachSection, BreachForm, NotificationForm, ClassificationSettings, type IncidentView, type Values, type SettingsProps } from './views';

/** The form's strings as the REST shape, so the same schema and service judge them. */
function breachInput(body: unknown): { values: Values; input: Record<string, unknown> } {
  const values = {
    categories: formText(body, 'categories'), approximateSubjects: formText(body, 'approximateSubjects').trim(),
    detectedAt: formText(body, 'detectedAt').trim(), reportedAt: formText(body, 'reportedAt').trim(),
  };
  const subjects = values.approximateSubjects;
  const input = {
    categories: values.categories.split(/\r?\n|,/).map((c) => c.trim()).filter(Boolean),
    approximateSubjects: subjects === '' ? null : /^\d+$/.test(subjects) ? Number(subjects) : subjects,
    detectedAt: values.detectedAt || null,
    reportedAt: values.reportedAt || null,
  };
  return { values, input };
}

async function breachSection(ctx: AppContext, view: IncidentView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const breach = await getBreach(ctx.db, viewer, view.id);
  const canUpdate = canTouch(viewer, 'incidents:update', view);
  return <BreachSection view={view} breach={breach} canUpdate={canUpdate} csrfToken={csrfToken} />;
}

// ---------------------------------------------------------------- routes

export const incidentPages = (ctx: AppContext) => {
  const settingsScreen = async (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, extra: Partial<SettingsProps> = {}) => {
    const page = await listIncidentClassifications(ctx.db, viewer, { pageSize: 200 });
    return renderScreen(headers, { title: 'Incident classifications', viewer, csrfToken, active: 'incident-settings' },
      <ClassificationSettings csrfToken={csrfToken} rows={page.rows} canCreate={levelOf(viewer, 'settings:create') !== null}
        canUpdate={levelOf(viewer, 'settings:update') !== null} {...extra} />);
  };
  const subForm = (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, title: string, form: JSX.Element, error: string) =>
    renderScreen(headers, { title, viewer, csrfToken, active: 'incidents' },
      <section><h1 safe>{title}</h1><Flash kind="error" message={error} />{form}</section>);
  const refusal = (problems: number, message: string) => (problems ? 'Please correct the fields marked below.' : message);

  return recordPages(ctx, incidentKind, {
    path: '/incidents',
    title: 'Incidents',
    singular: 'Incident',
    navKey: 'incidents',
    Create: IncidentCreate,
    Update: IncidentUpdate,
    statuses: INCIDENT_STATUSES,
    importable: true,
    fields: [
      { name: 'title', label: 'Title', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      {
        name: 'classificationId', label: 'Classification', kind: 'reference', hint: 'Administrators manage the list in Settings',
        options: async (viewer) => (await incidentClassificationOptions(ctx.db, viewer)).map((c) => ({ value: c.id, label: c.name })),
      },
      { name: 'openedAt', label: 'Opened on', kind: 'date', hint: 'Today when left blank' },
      { name: 'assetId', label: 'Asset', kind: 'reference', options: async (viewer) => (await incidentLinkChoices(ctx.db, viewer)).assets, link: assetKind },
      { name: 'thirdPartyId', label: 'Third party', kind: 'reference', options: async (viewer) => (await incidentLinkChoices(ctx.db, viewer)).thirdParties, link: thirdPartyKind },
      { name: 'status', label: 'Status', kind: 'select', options: INCIDENT_STATUSES, hint: 'Blank gives open; closing needs a resolution' },
      { name: 'resolution', label: 'Resolution', kind: 'textarea', hint: 'Required to close the incident' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Title', value: (i) => i.title, link: true },
      { header: 'Opened', value: (i) => i.openedAt },
      { header: 'Status', value: (i) => i.status },
      ownerColumn(),
    ],
    sorts: [
      { value: '', label: 'Newest first' },
      { value: '-openedAt', label: 'Opened, latest first' },
      { value: 'title', label: 'Title A–Z' },
      { value: 'status', label: 'Status' },
      { value: '-updatedAt', label: 'Recently updated' },
    ],
    sections: (view, viewer, csrfToken) => breachSection(ctx, view, viewer, csrfToken),
  })
    .post('/incidents/:id/breach', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const { values, input } = breachInput(body);
      const result = await attempt(async () => {
        const problems = schemaProblems(BreachInput, input);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => putBreach(tx, viewer, params.id, input as BreachInput));
      });
      if (result.ok) return redirect(`/incidents/${params.id}?done=updated#breach`, 303);
      set.status = result.error.status;
      const errors = fieldErrors(result.error.problems.map((p) => ({ ...p, field: p.field.replace(/^categories\.\d+$/, 'categories') })));
      return subForm(headers, viewer, csrfToken, 'Breach details',
        <BreachForm id={params.id} csrfToken={csrfToken} values={values} errors={errors} />, refusal(result.error.problems.length, result.error.message));
    }, { page: 'incidents:update' })
    .post('/incidents/:id/breach/notifications', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = { recipient: formText(body, 'recipient'), notifiedOn: formText(body, 'notifiedOn').trim(), reference: formText(body, 'reference').trim() };
      const input = { recipient: values.recipient, notifiedOn: values.notifiedOn, ...(values.reference ? { reference: values.reference } : {}) };
      const result = await attempt(async () => {
        const problems = schemaProblems(NotificationCreate, input);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => addBreachNotification(tx, viewer, params.id, input as NotificationCreate));
      });
      if (result.ok) return redirect(`/incidents/${params.id}?done=updated#breach`, 303);
      set.status = result.error.status;
      return subForm(headers, viewer, csrfToken, 'Breach notification',
        <NotificationForm id={params.id} csrfToken={csrfToken} values={values} errors={fieldErrors(result.error.problems)} />,
        refusal(result.error.problems.length, result.error.message));
    }, { page: 'incidents:update' })

    // Settings › Incident classifications
    .get('/settings/incidents', async ({ viewer, csrfToken, headers, query }) => settingsScreen(headers, viewer, csrfToken, { done: query.done }),
      { page: 'settings:read' })
    .post('/settings/incidents/classifications', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const form = { name: formText(body, 'name'), description: formText(body, 'description') };
      const result = await attempt(async () => {
        const problems = schemaProblems(IncidentClassificationInput, form);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => createIncidentClassification(tx, viewer, form));
      });
      if (result.ok) return redirect('/settings/incidents?done=created', 303);
      set.status = result.error.status;
      const problems = result.error.problems;
      return settingsScreen(headers, viewer, csrfToken, { form, errors: problems.length ? fieldErrors(problems) : { name: result.error.message } });
    }, { page: 'settings:create' })
    .post('/settings/incidents/classifications/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const form = { name: formText(body, 'name'), description: formText(body, 'description') };
      const result = await attempt(async () => {
        const problems = schemaProblems(IncidentClassificationInput, form);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => updateIncidentClassification(tx, viewer, params.id, form));
      });
      if (result.ok) return redirect('/settings/incidents?done=updated', 303);
      set.status = result.error.status;
      return settingsScreen(headers, viewer, csrfToken, { error: result.error.message });
    }, { page: 'settings:update' })
    .post('/settings/incidents/classifications/:id/delete', async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => deleteIncidentClassification(tx, viewer, params.id)));
      if (result.ok) return redirect('/settings/incidents?done=deleted', 303);
      set.status = result.error.status;
      return settingsScreen(headers, viewer, csrfToken, { error: result.error.message });
    }, { page: 'settings:update' });
};
