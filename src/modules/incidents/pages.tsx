import { readable } from '../../platform/record-screens/record-views';
import { Flash } from '../../../views/components/flash';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { runWrite, type AppContext } from '../../platform/http/context';
import { invalid } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { canTouch, type Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn, type ListColumn } from '../../platform/record-screens/record-pages';
import { BreachInput, INCIDENT_STATUSES, IncidentCreate, IncidentUpdate, NotificationCreate } from './schema';
import { addBreachNotification, getBreach, incidentKind, incidentLinkChoices, putBreach } from './service';
import { incidentClassificationOptions } from './classifications';
import { assetKind } from '../assets/service';
import { thirdPartyKind } from '../thirdParties/service';
import { BreachSection, BreachForm, NotificationForm, type IncidentView, type Values } from './views';

/** The Incidents list's columns, also its CSV export's and the incidents report's. */
export const incidentColumns: ListColumn<IncidentView>[] = [
  { header: 'Title', value: (i) => i.title, link: true, sort: 'title' },
  { header: 'Opened', value: (i) => i.openedAt, sort: 'openedAt' },
  { header: 'Status', value: (i) => readable(i.status), sort: 'status' },
  ownerColumn(),
];

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
    columns: incidentColumns,
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
    }, { page: 'incidents:update' });
};
