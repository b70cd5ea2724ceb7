import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, ErrorSummary, Field, fieldProblems, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { Pager } from '../../../views/components/pager';
import { DataTable, Text, When } from '../../../views/components/table';
import type { DueDateKind, RecordEvents } from './declarations';
import { EVENT_LABELS, RULE_EVENTS } from './declarations';
import type { PreviewRow } from './reminders';
import { RULE_STATE_LABELS, type RuleRow } from './rule-list';
import { FilteredList, type ListPage, type ListState } from '../../../views/components/list';
import { describeEvent, recordTypeLabel, type NotificationRule, type NotificationRuleInput } from './rules';
import type { MailPreferences, MailSettings, NotificationSettings } from './settings';

const Check = ({ name, label, checked, disabled, hint }: { name: string; label: string; checked: boolean; disabled?: boolean; hint?: string }) => (
  <div class="field">
    <label class="inline"><input type="checkbox" name={name} value="on" checked={checked} disabled={disabled} aria-describedby={hint ? `f-${name}-hint` : undefined} /> <span safe>{label}</span></label>
    {hint && <span class="hint" id={`f-${name}-hint`} safe>{hint}</span>}
  </div>
);

export interface NotificationsPageProps {
  csrfToken: string;
  canChange: boolean;
  settings: NotificationSettings;
  timeZones: readonly string[];
  rules: ListPage<RuleRow>;
  ruleState: ListState;
  recordTypes: Option[];
  runs: { day: string; startedAt: Date; finishedAt: Date | null; recipients: number; items: number }[];
  done?: string;
  error?: string;
  errors?: FieldErrors;
}

const DONE: Record<string, string> = {
  saved: 'Notification settings saved.', paused: 'Reminders paused: no digest goes out until they are resumed.', resumed: 'Reminders resumed.',
  created: 'Rule created.', updated: 'Rule saved.', deleted: 'Rule deleted.',
};

/** Settings › Notifications: the switch, the daily reminder sweep's time, pause and resume, and the rules. */
export function NotificationsPage(p: NotificationsPageProps): JSX.Element {
  const hours: Option[] = Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${String(h).padStart(2, '0')}:00` }));
  return (
    <>
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <FormError message={p.error} />
      <section aria-labelledby="rules-heading">
        <div class="section-head">
          <h2 id="rules-heading">Rules</h2>
          {p.canChange && <a class="button" href="/settings/notifications/rules/new">New rule</a>}
        </div>
        <p>A rule mails chosen people when something happens to a kind of record. Nobody is mailed about a record they may not read, nor about their own changes.</p>
        <FilteredList<RuleRow> path="/settings/notifications" exportPath="/settings/notifications/rules/export.csv" name="rule" one="rule" many="rules"
          state={p.ruleState} page={p.rules} defaultSort="name" empty="No rules yet. New rule sets the first one up." search="Search names, events, records and recipients"
          selects={[
            { name: 'event', label: 'Event', options: RULE_EVENTS.map((e) => ({ value: e, label: EVENT_LABELS[e] })) },
            { name: 'recordType', label: 'Records', options: p.recordTypes },
            { name: 'state', label: 'State', options: Object.entries(RULE_STATE_LABELS).map(([value, label]) => ({ value, label })) },
          ]}
          columns={[
            { header: 'Rule', sort: 'name', cell: (r) => (p.canChange ? <a href={`/settings/notifications/rules/${r.rule.id}`} safe>{r.rule.name}</a> : <Text value={r.rule.name} />) },
            { header: 'When', sort: 'event', cell: (r) => <Text value={r.when} /> },
            { header: 'Records', sort: 'records', cell: (r) => <Text value={r.records} /> },
            { header: 'Mails', cell: (r) => <Text value={r.mails} /> },
            {
              header: 'State', sort: 'state', cell: (r) => (
                <>
                  <span class={r.rule.enabled ? 'tag status-ok' : 'tag'} safe>{RULE_STATE_LABELS[r.rule.enabled ? 'on' : 'off']}</span>
                  {r.skipped.length > 0 && <p class="status-bad" safe>{`Skipped while deactivated: ${r.skipped.join(', ')}`}</p>}
                </>
              ),
            },
          ]}
        />
      </section>
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        <form method="post" action="/settings/notifications" class="card form" novalidate>
          <CsrfField token={p.csrfToken} />
          <Check name="notifyOnApiChanges" label="Notify on API changes and CSV imports" checked={p.settings.notifyOnApiChanges} disabled={!p.canChange}
            hint="Off: changes made through the REST API, CSV imports, the bundle loader, SCIM and the AI assistant endpoint mail no rule; changes on the screens do. Reminders are not affected." />
          <Field label="Daily reminders at" name="reminderHour" error={p.errors?.reminderHour} hint="Each person gets one digest a day of everything due or overdue for them.">
            <Select name="reminderHour" options={hours} selected={String(p.settings.reminderHour)} />
          </Field>
          <Field label="Time zone" name="timeZone" error={p.errors?.timeZone} hint="The hour above, the day a digest is for, and times in mails are in this zone.">
            <Select name="timeZone" options={p.timeZones.map((z) => ({ value: z, label: z }))} selected={p.settings.timeZone} />
          </Field>
          <input type="hidden" name="paused" value={p.settings.paused ? 'on' : ''} />
          {p.canChange ? <p class="actions"><button type="submit">Save settings</button></p> : <p class="muted">Only administrators change these settings.</p>}
        </form>
      </section>
      <section aria-labelledby="sweep-heading">
        <div class="section-head">
          <h2 id="sweep-heading">Daily reminders</h2>
          <a class="button secondary" href="/settings/notifications/preview">Preview the next digests</a>
        </div>
        <p safe>{p.settings.paused
          ? 'Reminders are paused: no digest goes out until they are resumed. Milestones passed meanwhile (an exception 30 days before it expires) are reminded on resuming.'
          : `Reminders go out daily at ${String(p.settings.reminderHour).padStart(2, '0')}:00 (${p.settings.timeZone}).`}</p>
        {p.canChange && (
          <form method="post" action="/settings/notifications/reminders" class="inline">
            <CsrfField token={p.csrfToken} />
            <input type="hidden" name="paused" value={p.settings.paused ? '' : 'on'} />
            <button type="submit" class={p.settings.paused ? '' : 'secondary'}>{p.settings.paused ? 'Resume reminders' : 'Pause reminders'}</button>
          </form>
        )}
        <DataTable
          rows={p.runs}
          caption="Latest sweeps"
          empty="No sweep has run yet. The first one reminds owners of everything due or overdue."
          columns={[
            { header: 'Day', cell: (r) => <Text value={r.day} /> },
            { header: 'Started', cell: (r) => <When value={r.startedAt} /> },
            { header: 'Digests', class: 'num', cell: (r) => <Text value={r.recipients} /> },
            { header: 'Items', class: 'num', cell: (r) => <Text value={r.items} /> },
            { header: 'State', cell: (r) => (r.finishedAt ? <span>Sent <When value={r.finishedAt} /></span> : <span class="status-queued">Sending</span>) },
          ]}
        />
      </section>
    </>
  );
}

export interface RuleFormProps {
  action: string;
  csrfToken: string;
  values: NotificationRuleInput;
  types: RecordEvents[];
  users: Option[];
  groups: Option[];
  errors: FieldErrors;
  error?: string;
  canDelete: boolean;
  domains: readonly string[];
}

/** The fields that depend on the record type: its fields, statuses and what is recorded on it (swapped by htmx on change). */
export function RuleTypeParts({ events, values, errors }: { events: RecordEvents | undefined; values: NotificationRuleInput; errors: FieldErrors }): JSX.Element {
  const fields = events ? Object.entries(events.fields).map(([value, label]) => ({ value, label })) : [];
  const statuses = events?.statuses ? Object.entries(events.statuses).map(([value, label]) => ({ value, label })) : [];
  const activities = events?.activities ?? [];
  return (
    <div id="rule-parts">
      <Field label="Field (for “A field changed”)" name="field" error={errors.field}>
        <Select name="field" options={[{ value: '', label: '—' }, ...fields]} selected={values.field ?? ''} />
      </Field>
      <Field label="Status (for “Status changed to a value”)" name="value" error={errors.value} hint={statuses.length ? undefined : 'These records have no status.'}>
        <Select name="value" options={[{ value: '', label: '—' }, ...statuses]} selected={values.event === 'status_changed' ? (values.value ?? '') : ''} />
      </Field>
      <Field label="What is recorded (for “A comment, review or decision recorded”)" name="activity" hint={activities.length ? 'Blank: any of them.' : 'Nothing is recorded on these records beyond their changes.'}>
        <Select name="activity" options={[{ value: '', label: 'Any' }, ...activities.map((a) => ({ value: a.key, label: a.label }))]} selected={values.event === 'recorded' ? (values.value ?? '') : ''} />
      </Field>
    </div>
  );
}

export function RuleForm(p: RuleFormProps): JSX.Element {
  const byModule = new Map<string, RecordEvents[]>();
  for (const t of p.types) {
    const group = recordTypeLabel(t).split(' › ')[0];
    byModule.set(group, [...(byModule.get(group) ?? []), t]);
  }
  const events = p.types.find((t) => t.recordType === p.values.recordType);
  return (
    <form method="post" action={p.action} class="card form" novalidate>
      <CsrfField token={p.csrfToken} />
      <ErrorSummary problems={fieldProblems(p.errors)} />
      <FormError message={p.error} />
      <Field label="Name" name="name" value={p.values.name} error={p.errors.name} required maxlength={200} hint="Say what it is for: “Closed risks to the risk committee”." />
      <Field label="Records" name="recordType" error={p.errors.recordType}>
        <select name="recordType" id="f-recordType" hx-get="/settings/notifications/rules/parts" hx-target="#rule-parts" hx-swap="outerHTML" hx-include="closest form">
          <option value="">Choose…</option>
          {[...byModule].map(([group, types]) => (
            <optgroup label={group}>
              {types.map((t) => <option value={t.recordType} selected={t.recordType === p.values.recordType} safe>{t.label}</option>)}
            </optgroup>
          ))}
        </select>
      </Field>
      <Field label="When" name="event" error={p.errors.event}>
        <Select name="event" options={RULE_EVENTS.map((e) => ({ value: e, label: EVENT_LABELS[e] }))} selected={p.values.event} />
      </Field>
      <RuleTypeParts events={events} values={p.values} errors={p.errors} />
      <fieldset class={p.errors.recipients ? 'field invalid' : 'field'} id="f-recipients">
        <legend>Mail</legend>
        {p.errors.recipients && <span class="error" role="alert" safe>{p.errors.recipients}</span>}
        <Check name="notifyOwner" label="The record's owner" checked={p.values.notifyOwner} />
        <Check name="notifyOwnerGroup" label="The members of its owner group" checked={p.values.notifyOwnerGroup} />
        <Field label="These people" name="userIds" error={p.errors.userIds} hint="Hold Ctrl (⌘ on a Mac) to choose several.">
          <select name="userIds" id="f-userIds" multiple="" size="5">
            {p.users.map((u) => <option value={u.value} selected={p.values.userIds.includes(u.value)} safe>{u.label}</option>)}
          </select>
        </Field>
        <Field label="The members of these groups" name="groupIds" error={p.errors.groupIds}>
          <select name="groupIds" id="f-groupIds" multiple="" size="4">
            {p.groups.map((g) => <option value={g.value} selected={p.values.groupIds.includes(g.value)} safe>{g.label}</option>)}
          </select>
        </Field>
        <Field label="These addresses" name="addresses" type="textarea" value={p.values.addresses.join('\n')} error={p.errors.addresses}
          hint={p.domains.length ? `One a line, in the organisation's mail domains (${p.domains.join(', ')}). They read what the rule's author may read.` : 'One a line. List the organisation’s own mail domains in Settings › Mail first; other addresses are refused.'} />
      </fieldset>
      <Check name="enabled" label="On" checked={p.values.enabled} />
      <p class="actions">
        <button type="submit">Save rule</button>
        <a href="/settings/notifications">Cancel</a>
      </p>
      {p.canDelete && <p><a href={`${p.action}/delete`} class="danger-link">Delete this rule</a></p>}
    </form>
  );
}

export function DeleteRulePage({ rule, csrfToken }: { rule: NotificationRule; csrfToken: string }): JSX.Element {
  return (
    <form method="post" action={`/settings/notifications/rules/${rule.id}/delete`} class="card">
      <CsrfField token={csrfToken} />
      <p safe>{`The rule "${rule.name}" will be deleted: nobody will be mailed by it any more. Its History and Audit Log entries stay.`}</p>
      <p class="actions"><button type="submit" class="danger">Delete rule</button><a href={`/settings/notifications/rules/${rule.id}`}>Cancel</a></p>
    </form>
  );
}

export interface PreviewProps {
  day: string;
  paused: boolean;
  kinds: DueDateKind[];
  rows: PreviewRow[];
  people: number;
  page: number;
  pageSize: number;
  digest?: { email: string; subject: string; body: string } | null;
  person?: string;
}

/** Who gets what at the next sweep; one person's digest in full on request. */
export function PreviewPage(p: PreviewProps): JSX.Element {
  return (
    <>
      <p><a href="/settings/notifications">Back to Notifications</a></p>
      <p safe>{`The digests of the sweep for ${p.day}, as they stand now: ${p.people} ${p.people === 1 ? 'person' : 'people'}.${p.paused ? ' Reminders are paused, so nothing goes out until they are resumed.' : ''}`}</p>
      {p.digest !== undefined && (
        <section class="card" aria-labelledby="digest-heading">
          <h2 id="digest-heading">Digest</h2>
          {p.digest
            ? <><p><strong>To:</strong> <span safe>{p.digest.email}</span><br /><strong>Subject:</strong> <span safe>{p.digest.subject}</span></p><pre class="details" safe>{p.digest.body}</pre></>
            : <p>This person gets no digest at the next sweep.</p>}
        </section>
      )}
      <DataTable<PreviewRow>
        rows={p.rows}
        empty="Nobody has anything due or overdue."
        columns={[
          { header: 'Person', cell: (r) => <a href={`/settings/notifications/preview?person=${r.userId}&page=${p.page}`} safe>{r.name}</a> },
          ...p.kinds.map((kind) => ({ header: kind.label, class: 'num', cell: (r: PreviewRow) => <Text value={r.kinds[kind.key] ?? 0} /> })),
          { header: 'Total', class: 'num', cell: (r) => <Text value={r.total} /> },
        ]}
      />
      <Pager page={p.page} pageSize={p.pageSize} total={p.people} href={(n) => `/settings/notifications/preview?page=${n}`} />
    </>
  );
}

export interface MailPageProps {
  csrfToken: string;
  canChange: boolean;
  values: Omit<MailSettings, 'password'> & { hasPassword: boolean };
  inForce: string | null;
  environment: boolean;
  testTo: string;
  test?: { ok: boolean; message: string };
  done?: boolean;
  error?: string;
  errors?: FieldErrors;
}

/** Settings › Mail: the SMTP server, the sender, the organisation's mail domains, and a test message. */
export function MailPage(p: MailPageProps): JSX.Element {
  const d = !p.canChange;
  return (
    <>
      <Flash kind="success" message={p.done ? 'Mail settings saved.' : undefined} />
      <FormError message={p.error} />
      <p safe>{p.inForce ? `Mail is sent through ${p.inForce}.` : 'No SMTP server is set: mail stays in the Outbox.'}{p.environment && !p.values.host ? ' A host entered here replaces SMTP_URL.' : ''}</p>
      <form method="post" action="/settings/mail" class="card form" novalidate>
        <CsrfField token={p.csrfToken} />
        <Field label="SMTP server" name="host" value={p.values.host} error={p.errors?.host} hint="Host name, e.g. smtp.example.com. Blank: SMTP_URL from the environment, if set." />
        <Field label="Port" name="port" type="number" value={p.values.port} error={p.errors?.port} min={1} max={65535} hint="587 for STARTTLS, 465 for TLS." />
        <Field label="Security" name="security" error={p.errors?.security}>
          <Select name="security" selected={p.values.security} options={[
            { value: 'starttls', label: 'STARTTLS (required)' }, { value: 'tls', label: 'TLS from the start' }, { value: 'none', label: 'None (a relay on this network only)' },
          ]} />
        </Field>
        <Field label="User name" name="username" value={p.values.username} error={p.errors?.username} autocomplete="off" hint="Blank: no authentication." />
        <Field label="Password" name="password" type="password" value="" error={p.errors?.password} autocomplete="new-password"
          hint={p.values.hasPassword ? 'A password is stored. Blank keeps it.' : 'Stored encrypted when the server has ENCRYPTION_KEY; never shown again.'} />
        {p.values.hasPassword && <Check name="clearPassword" label="Remove the stored password" checked={false} disabled={d} />}
        <Field label="Sender" name="from" value={p.values.from} error={p.errors?.from} hint="e.g. GRC <grc@example.com>. Blank: MAIL_FROM." />
        <Field label="The organisation's mail domains" name="domains" type="textarea" value={p.values.domains.join('\n')} error={p.errors?.domains}
          hint="One a line, e.g. example.com. Notification rules may mail fixed addresses in these domains only." />
        <Field label="Private certificate authority (PEM)" name="caCertificate" type="textarea" value={p.values.caCertificate} error={p.errors?.caCertificate}
          hint="Only when the SMTP server's certificate is signed by your own authority." />
        {p.canChange ? <p class="actions"><button type="submit">Save mail settings</button></p> : <p class="muted">Only administrators holding every right change these settings.</p>}
      </form>
      <section aria-labelledby="test-heading">
        <h2 id="test-heading">Send a test message</h2>
        {p.test && <Flash kind={p.test.ok ? 'success' : 'error'} message={p.test.message} />}
        <form method="post" action="/settings/mail/test" class="card form" novalidate>
          <CsrfField token={p.csrfToken} />
          <Field label="To" name="to" type="email" value={p.testTo} error={p.errors?.to} />
          <p class="actions"><button type="submit" class="secondary" disabled={d}>Send a test message</button></p>
        </form>
      </section>
    </>
  );
}

/** A person's own mail preferences. */
export function MyNotificationsPage({ csrfToken, values, done }: { csrfToken: string; values: MailPreferences; done?: boolean }): JSX.Element {
  return (
    <>
      <Flash kind="success" message={done ? 'Your mail preferences are saved.' : undefined} />
      <form method="post" action="/settings/my-notifications" class="card form">
        <CsrfField token={csrfToken} />
        <Check name="digests" label="Daily digest of what is due or overdue for me" checked={values.digests} />
        <Check name="ruleMails" label="Mails from notification rules" checked={values.ruleMails}
          hint="Security alerts to administrators are always sent." />
        <p class="actions"><button type="submit">Save</button></p>
      </form>
    </>
  );
}
