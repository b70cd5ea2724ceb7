import type { incidents } from '../../../db/schema';
import { CsrfField, Field, Select, type FieldErrors } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import type { RecordView } from '../../platform/records/records';
import { NOTIFICATION_RECIPIENTS, type BreachView } from './schema';

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
