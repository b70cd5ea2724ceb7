import { CsrfField, ErrorSummary, Field, fieldProblems, Select, type Option } from '../../../views/components/form';
import { Flash, FormError } from '../../../views/components/flash';
import { Text, When } from '../../../views/components/table';
import { FilteredList, type ListPage, type ListState } from '../../../views/components/list';
import { FREQUENCY_LABELS, SCHEDULE_STATE_LABELS, type ScheduleRow } from './report-schedule-list';
import type { ReportFilter } from '../reports/declarations';
export type { ScheduleRow } from './report-schedule-list';
import { SCHEDULE_FREQUENCIES, WEEKDAYS, type ReportSchedule, type ReportScheduleInput } from './report-schedules';


const DONE: Record<string, string> = {
  created: 'Scheduled report saved. It is sent at the next due time.', updated: 'Scheduled report saved.', deleted: 'Scheduled report deleted.',
  paused: 'Scheduled report paused: nothing is sent until it is resumed.', resumed: 'Scheduled report resumed.',
};

/** Reports › Schedules: every scheduled report with its last run and outcome, as a filtered list. */
export function ScheduleList({ rows, state, reports, canChange, done }: { rows: ListPage<ScheduleRow>; state: ListState; reports: Option[]; canChange: boolean; done?: string }): JSX.Element {
  return (
    <>
      <Flash kind="success" message={done ? DONE[done] : undefined} />
      <div class="section-head">
        <p class="muted">Each recipient receives the report as a CSV attachment with the rows they may read. People who do not hold the report's right are skipped.</p>
        {canChange ? <a class="button" href="/reports/schedules/new">Schedule a report</a> : ''}
      </div>
      <FilteredList<ScheduleRow> path="/reports/schedules" name="schedule" one="scheduled report" many="scheduled reports" state={state} page={rows}
        defaultSort="name" empty="No report is scheduled yet." search="Search names, reports, recipients and filters"
        selects={[
          { name: 'report', label: 'Report', options: reports },
          { name: 'frequency', label: 'Frequency', options: SCHEDULE_FREQUENCIES.map((f) => ({ value: f, label: FREQUENCY_LABELS[f] })) },
          { name: 'state', label: 'State', options: Object.entries(SCHEDULE_STATE_LABELS).map(([value, label]) => ({ value, label })) },
        ]}
        columns={[
          { header: 'Name', sort: 'name', cell: (r) => <><a href={`/reports/schedules/${r.schedule.id}`} safe>{r.schedule.name}</a>{r.schedule.paused ? <span class="muted"> (paused)</span> : ''}</> },
          { header: 'Report', sort: 'report', cell: (r) => <Text value={r.reportTitle} /> },
          { header: 'When', sort: 'frequency', cell: (r) => <Text value={r.when} /> },
          { header: 'Recipients', cell: (r) => <><span safe>{r.recipients}</span>{r.skippedNow.length ? <span class="muted" safe>{` (${r.skippedNow.length} skipped)`}</span> : ''}</> },
          { header: 'Last run', sort: 'lastRunAt', cell: (r) => (r.schedule.lastRunAt ? <><When value={r.schedule.lastRunAt.toISOString()} local />{': '}<span safe>{r.schedule.lastOutcome ?? ''}</span></> : <span class="muted">Not sent yet</span>) },
        ]}
      />
    </>
  );
}

/** One scheduled report: what, when, to whom, who is skipped and why, the last run; pause, edit, delete. */
export function ScheduleDetail({ row, canChange, csrfToken, done }: { row: ScheduleRow; canChange: boolean; csrfToken: string; done?: string }): JSX.Element {
  const s = row.schedule;
  return (
    <>
      <Flash kind="success" message={done ? DONE[done] : undefined} />
      <dl class="summary card">
        <dt>Report</dt><dd><a href={`/reports/${s.reportKey}`} safe>{row.reportTitle}</a></dd>
        <dt>Filters</dt><dd safe>{row.filters || 'None: every row the recipient may read'}</dd>
        <dt>When</dt><dd safe>{row.when}</dd>
        <dt>Recipients</dt><dd safe>{row.recipients}</dd>
        <dt>State</dt><dd>{s.paused ? 'Paused' : 'Active'}</dd>
        <dt>Last run</dt><dd>{s.lastRunAt ? <><When value={s.lastRunAt.toISOString()} local />{': '}<span safe>{s.lastOutcome ?? ''}</span></> : 'Not sent yet'}</dd>
      </dl>
      <section class="card">
        <h2>Skipped recipients</h2>
        {row.skippedNow.length === 0 ? <p class="muted">Nobody: every recipient holds the report's right.</p> : (
          <ul>{row.skippedNow.map((p) => <li safe>{`${p.name}: ${p.reason}`}</li>)}</ul>
        )}
        {s.skipped.length ? <p class="muted" safe>{`At the last run: ${s.skipped.map((p) => `${p.name} (${p.reason})`).join('; ')}.`}</p> : ''}
      </section>
      {canChange ? (
        <div class="actions">
          <a class="button" href={`/reports/schedules/${s.id}/edit`}>Edit</a>
          <form method="post" action={`/reports/schedules/${s.id}/${s.paused ? 'resume' : 'pause'}`} class="inline">
            <CsrfField token={csrfToken} />
            <button type="submit" class="secondary">{s.paused ? 'Resume' : 'Pause'}</button>
          </form>
          <a href={`/reports/schedules/${s.id}/delete`} class="danger-link">Delete</a>
        </div>
      ) : ''}
    </>
  );
}

export function ScheduleForm(p: {
  action: string; csrfToken: string; values: ReportScheduleInput; reports: Option[]; filters: ReportFilter[]; users: Option[]; groups: Option[];
  errors: Record<string, string>; error?: string; cancel: string; hour: string;
}): JSX.Element {
  return (
    <form method="post" action={p.action} class="card form" novalidate>
      <CsrfField token={p.csrfToken} />
      <ErrorSummary problems={fieldProblems(p.errors)} />
      <FormError message={p.error} />
      <Field label="Name" name="name" value={p.values.name} error={p.errors.name} required maxlength={200} hint="Say what it is for: “Open risks to the risk committee”." />
      <Field label="Report" name="reportKey" error={p.errors.reportKey}>
        <select name="reportKey" id="f-reportKey" hx-get="/reports/schedules/filters" hx-target="#schedule-filters" hx-swap="outerHTML" hx-include="closest form">
          {p.reports.map((r) => <option value={r.value} selected={r.value === p.values.reportKey} safe>{r.label}</option>)}
        </select>
      </Field>
      <ScheduleFilters filters={p.filters} values={p.values.filters} errors={p.errors} />
      <fieldset class="field">
        <legend safe>{`When (at ${p.hour}, the hour of Settings › Notifications)`}</legend>
        <Field label="Frequency" name="frequency" error={p.errors.frequency}>
          <Select name="frequency" options={SCHEDULE_FREQUENCIES.map((f) => ({ value: f, label: FREQUENCY_LABELS[f] }))} selected={p.values.frequency} />
        </Field>
        <Field label="Day of the week (weekly)" name="weekday" error={p.errors.weekday}>
          <Select name="weekday" options={[{ value: '', label: '—' }, ...WEEKDAYS.map((d, i) => ({ value: String(i + 1), label: d }))]} selected={p.values.weekday ? String(p.values.weekday) : ''} />
        </Field>
        <Field label="Day of the month (monthly)" name="monthDay" type="number" min={1} max={31} value={p.values.monthDay ?? ''} error={p.errors.monthDay}
          hint="1 to 31; in a shorter month, its last day." />
      </fieldset>
      <fieldset class={p.errors.recipients ? 'field invalid' : 'field'} id="f-recipients">
        <legend>Recipients</legend>
        {p.errors.recipients && <span class="error" role="alert" safe>{p.errors.recipients}</span>}
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
      </fieldset>
      <p class="actions">
        <button type="submit">Save schedule</button>
        <a href={p.cancel}>Cancel</a>
      </p>
    </form>
  );
}

/** The chosen report's filters (replaced by htmx when another report is chosen). */
export function ScheduleFilters({ filters, values, errors }: { filters: ReportFilter[]; values: Record<string, string>; errors: Record<string, string> }): JSX.Element {
  return (
    <fieldset class="field" id="schedule-filters">
      <legend>Filters</legend>
      {filters.length === 0 ? <p class="muted">This report has no filters: each recipient receives every row they may read.</p> : ''}
      {filters.map((f) => f.kind === 'date'
        // A fixed day: each run sends the rows of the same range (docs/reports.md).
        ? <Field label={f.label} name={`filter.${f.name}`} type="date" value={values[f.name] ?? ''} error={errors[`filter.${f.name}`]} />
        : (
          <Field label={f.label} name={`filter.${f.name}`} error={errors[`filter.${f.name}`]}>
            <Select name={`filter.${f.name}`} options={[{ value: '', label: 'Any' }, ...f.options]} selected={values[f.name] ?? ''} />
          </Field>
        ))}
    </fieldset>
  );
}

export function DeleteSchedulePage({ schedule, csrfToken }: { schedule: ReportSchedule; csrfToken: string }): JSX.Element {
  return (
    <form method="post" action={`/reports/schedules/${schedule.id}/delete`} class="card">
      <CsrfField token={csrfToken} />
      <p safe>{`The scheduled report "${schedule.name}" will be deleted: nobody will receive it any more. Its History and Audit Log entries stay.`}</p>
      <p class="actions"><button type="submit" class="danger">Delete scheduled report</button><a href={`/reports/schedules/${schedule.id}`}>Cancel</a></p>
    </form>
  );
}
