import type { incidents } from '../../../db/schema';
import { Flash } from '../../../views/components/flash';
import { attempt, CsrfField, Field, fieldErrors, formText, Select, type FieldErrors } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import { renderScreen } from '../../../views/layout';
import { runWrite, type AppContext } from '../../platform/context';
import { invalid } from '../../platform/errors';
import { schemaProblems } from '../../platform/form-input';
import { canTouch, levelOf, type Actor } from '../../platform/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-pages';
import type { RecordView } from '../../platform/records';
import {
  BreachInput, INCIDENT_STATUSES, IncidentClassificationInput, IncidentCreate, IncidentUpdate, NOTIFICATION_RECIPIENTS, NotificationCreate,
  type BreachView, type IncidentClassificationView,
} from './schema';
import {
  addBreachNotification, createIncidentClassification, deleteIncidentClassification, getBreach, incidentClassificationOptions, incidentKind,
  incidentLinkChoices, listIncidentClassifications, putBreach, updateIncidentClassification,
} from './service';
import { assetKind } from '../assets/service';
import { thirdPartyKind } from '../thirdParties/service';

type IncidentView = RecordView<typeof incidents>;
type Values = Record<string, string>;

const RECIPIENT_LABELS: Record<string, string> = { authority: 'Supervisory authority', subjects: 'Data subjects' };

// ---------------------------------------------------------------- breach forms (shown in the section and on their own page)

function BreachForm({ id, csrfToken, values, errors }: { id: string; csrfToken: string; values: Values; errors: FieldErrors }): JSX.Element {
  return (
    <form method="post" action={`/incidents/${id}/breach`} class="card form">
      <CsrfField token={csrfToken} />
      <Field label="Categories of personal data" name="categories" type="textarea" value={values.categories} error={errors.categories}
        hint="One per line, e.g. email addresses" required />
      <Field label="Approximate number of data subjects" name="approximateSubjects" type="number" min={0}
        value={values.approximateSubjects} error={errors.approximateSubjects} />
      <Field label="Detected on" name="detectedAt" type="date" value={values.detectedAt} error={errors.detectedAt} />
      <Field label="Reported on" name="reportedAt" type="date" value={values.reportedAt} error={errors.reportedAt} hint="Not before the detection date" />
      <button type="submit">Save breach details</button>
    </form>
  );
}

function NotificationForm({ id, csrfToken, values, errors }: { id: string; csrfToken: string; values: Values; errors: FieldErrors }): JSX.Element {
  return (
    <form method="post" action={`/incidents/${id}/breach/notifications`} class="card form">
      <CsrfField token={csrfToken} />
      <Field label="Notified" name="recipient" error={errors.recipient} required>
        <Select name="recipient" selected={values.recipient} required
          options={[{ value: '', label: 'Choose…' }, ...NOTIFICATION_RECIPIENTS.map((r) => ({ value: r, label: RECIPIENT_LABELS[r] }))]} />
      </Field>
      <Field label="Notified on" name="notifiedOn" type="date" value={values.notifiedOn} error={errors.notifiedOn} required />
      <Field label="Reference" name="reference" value={values.reference} error={errors.reference} maxlength={500} hint="Case number or mailing reference" />
      <button type="submit">Record notification</button>
    </form>
  );
}

const breachValues = (breach: BreachView | null): Values => ({
  categories: breach?.categories.join('\n') ?? '',
  approximateSubjects: breach?.approximateSubjects === null || breach?.approximateSubjects === undefined ? '' : String(breach.approximateSubjects),
  detectedAt: breach?.detectedAt ?? '',
  reportedAt: breach?.reportedAt ?? '',
});

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
  return (
    <section id="breach">
      <h2>Personal-data breach</h2>
      {breach
        ? (
          <dl class="facts">
            <dt>Categories</dt><dd safe>{breach.categories.join(', ') || '—'}</dd>
            <dt>Approximate subjects</dt><dd safe>{breach.approximateSubjects === null ? '—' : String(breach.approximateSubjects)}</dd>
            <dt>Detected on</dt><dd safe>{breach.detectedAt ?? '—'}</dd>
            <dt>Reported on</dt><dd safe>{breach.reportedAt ?? '—'}</dd>
          </dl>
        )
        : <p>Not recorded as a personal-data breach.</p>}
      {canUpdate && (
        <details>
          <summary>{breach ? 'Change breach details' : 'Record breach details'}</summary>
          <BreachForm id={view.id} csrfToken={csrfToken} values={breachValues(breach)} errors={{}} />
        </details>
      )}
      {breach && (
        <>
          <h3>Notifications</h3>
          <DataTable
            rows={breach.notifications}
            empty="No notifications recorded."
            columns={[
              { header: 'Notified', cell: (n) => <Text value={RECIPIENT_LABELS[n.recipient]} /> },
              { header: 'On', cell: (n) => <Text value={n.notifiedOn} /> },
              { header: 'Reference', cell: (n) => <Text value={n.reference} /> },
            ]}
          />
          {canUpdate && (
            <details>
              <summary>Record a notification</summary>
              <NotificationForm id={view.id} csrfToken={csrfToken} values={{}} errors={{}} />
            </details>
          )}
        </>
      )}
    </section>
  );
}

// ---------------------------------------------------------------- classification settings

interface SettingsProps {
  csrfToken: string;
  rows: IncidentClassificationView[];
  canCreate: boolean;
  canUpdate: boolean;
  done?: string;
  error?: string;
  form?: Values;
  errors?: FieldErrors;
}

const SETTINGS_DONE: Record<string, string> = {
  created: 'Classification added.', updated: 'Classification renamed.', deleted: 'Classification deleted.',
};

function ClassificationSettings(props: SettingsProps): JSX.Element {
  const { csrfToken, canUpdate } = props;
  const form = props.form ?? {};
  const errors = props.errors ?? {};
  return (
    <section id="classifications">
      <h1>Incident classifications</h1>
      <Flash kind="success" message={props.done ? SETTINGS_DONE[props.done] : undefined} />
      <Flash kind="error" message={props.error} />
      <DataTable<IncidentClassificationView>
        rows={props.rows}
        empty="No incident classifications yet."
        columns={[
          {
            header: 'Name',
            cell: (c) => canUpdate
              ? (
                <form method="post" action={`/settings/incidents/classifications/${c.id}`} class="inline">
                  <CsrfField token={csrfToken} />
                  <input type="text" name="name" value={c.name} maxlength={200} aria-label={`Name of ${c.name}`} required />
                  <input type="text" name="description" value={c.description} maxlength={2000} aria-label={`Description of ${c.name}`} />
                  <button type="submit" class="small secondary">Rename</button>
                </form>
              )
              : <span><Text value={c.name} /> <span class="muted" safe>{c.description}</span></span>,
          },
          { header: 'Incidents', cell: (c) => <Text value={c.incidentCount} />, class: 'num' },
          ...(canUpdate ? [{
            header: 'Delete',
            cell: (c: IncidentClassificationView) => c.incidentCount > 0
              ? <span class="muted" safe>{`In use by ${c.incidentCount} incident${c.incidentCount === 1 ? '' : 's'}`}</span>
              : (
                <form method="post" action={`/settings/incidents/classifications/${c.id}/delete`} class="inline"
                  hx-confirm={`Delete the classification "${c.name}"?`}>
                  <CsrfField token={csrfToken} />
                  <button type="submit" class="small danger">Delete</button>
                </form>
              ),
          }] : []),
        ]}
      />
      {props.canCreate && (
        <form method="post" action="/settings/incidents/classifications" class="card">
          <CsrfField token={csrfToken} />
          <Field label="New classification" name="name" value={form.name} error={errors.name} required maxlength={200} />
          <Field label="Description" name="description" value={form.description} error={errors.description} maxlength={2000} />
          <button type="submit">Add classification</button>
        </form>
      )}
    </section>
  );
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
