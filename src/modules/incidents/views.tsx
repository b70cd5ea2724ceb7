import type { incidents } from '../../../db/schema';
import { Flash } from '../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import type { RecordView } from '../../platform/records/records';
import { NOTIFICATION_RECIPIENTS, type BreachView, type IncidentClassificationView } from './schema';

export type IncidentView = RecordView<typeof incidents>;

export type Values = Record<string, string>;

const RECIPIENT_LABELS: Record<string, string> = { authority: 'Supervisory authority', subjects: 'Data subjects' };

// ---------------------------------------------------------------- breach forms (shown in the section and on their own page)

export function BreachForm({ id, csrfToken, values, errors }: { id: string; csrfToken: string; values: Values; errors: FieldErrors }): JSX.Element {
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

export function NotificationForm({ id, csrfToken, values, errors }: { id: string; csrfToken: string; values: Values; errors: FieldErrors }): JSX.Element {
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

// ---------------------------------------------------------------- classification settings

export interface SettingsProps {
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

export function ClassificationSettings(props: SettingsProps): JSX.Element {
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

/** Whether the incident is a personal-data breach: its details and notifications, with the forms for those who may update it. */
export function BreachSection({ view, breach, canUpdate, csrfToken }: { view: IncidentView; breach: BreachView | null; canUpdate: boolean; csrfToken: string }): JSX.Element {
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
