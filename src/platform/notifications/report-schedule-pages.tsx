import { Elysia } from 'elysia';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formList, formText } from '../http/form-input';
import { renderScreen } from '../http/screen';
import { runWrite, type AppContext } from '../http/context';
import { platformService } from '../http/installed';
import { screenAuth } from '../http/screen-auth';
import { levelOf, type Actor } from '../permissions/permissions';
import { notificationSettings } from './settings';
import { describeFilters, installedReports } from '../reports/declarations';
import {
  createSchedule, deleteSchedule, describeSchedule, getSchedule, listSchedules, recipientsOf, reportOf, scheduleInput, setSchedulePaused,
  updateSchedule, SCHEDULE_FREQUENCIES, type ReportSchedule, type ReportScheduleInput,
} from './report-schedules';
import { scheduleCsvColumns, scheduleListRules, scheduleReports } from './report-schedule-list';
import { chosenRows, pageOfRows, ruledState } from '../http/list-query';
import { csvDownload } from '../csv/list-download';
import { readerZone } from '../csv/zone';
import { DeleteSchedulePage, ScheduleDetail, ScheduleFilters, ScheduleForm, ScheduleList, type ScheduleRow } from './report-schedule-views';

const canChange = (viewer: Actor) => levelOf(viewer, 'settings:update') === 'all';
type Headers = Record<string, string | undefined>;

/** The schedule as the form sent it (a browser sends only chosen options; filters as `filter.<name>`). */
function scheduleFromForm(body: unknown): ReportScheduleInput {
  const frequency = formText(body, 'frequency');
  const weekday = Number(formText(body, 'weekday'));
  const monthDay = formText(body, 'monthDay').trim();
  const filters: Record<string, string> = {};
  for (const [key, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (key.startsWith('filter.') && typeof value === 'string' && value !== '') filters[key.slice(7, 107)] = value.slice(0, 200);
  }
  return {
    name: formText(body, 'name').slice(0, 200),
    reportKey: formText(body, 'reportKey').slice(0, 100),
    filters,
    frequency: ((SCHEDULE_FREQUENCIES as readonly string[]).includes(frequency) ? frequency : 'daily') as ReportScheduleInput['frequency'],
    weekday: Number.isInteger(weekday) && weekday >= 1 && weekday <= 7 ? weekday : null,
    monthDay: /^\d{1,2}$/.test(monthDay) ? Number(monthDay) : monthDay === '' ? null : 0,
    userIds: formList(body, 'userIds'),
    groupIds: formList(body, 'groupIds'),
    paused: false,
  };
}

/**
 * Reports › Schedules (screens only, like the Report Center): scheduled reports, each mailed by the background sweep
 * as a CSV of the rows each recipient may read (docs/reports.md).
 */
export const schedulePages = (ctx: AppContext) => {
  const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'report-schedules' });

  async function rowOf(viewer: Actor, s: ReportSchedule, names: { users: Map<string, string>; groups: Map<string, string> }, hour: number, zone: string): Promise<ScheduleRow> {
    const report = reportOf(s.reportKey);
    const recipients = await recipientsOf(ctx.db, s);
    return {
      schedule: s,
      reportTitle: report?.title ?? `${s.reportKey} (no longer installed)`,
      when: describeSchedule(s, hour, zone),
      filters: report ? await describeFilters(ctx, viewer, report, s.filters) : '',
      recipients: [...s.userIds.map((id) => names.users.get(id) ?? 'a removed user'), ...s.groupIds.map((id) => `group ${names.groups.get(id) ?? '(removed)'}`)].join(', '),
      skippedNow: recipients.filter((r) => r.skipped).map((r) => ({ name: r.name, reason: r.skipped! })),
    };
  }

  async function names() {
    const [people, groupList] = await Promise.all([platformService('listUsers')(ctx.db), platformService('listGroups')(ctx.db)]);
    return { people, groupList, users: new Map(people.map((u) => [u.id, u.name])), groups: new Map(groupList.map((g) => [g.id, g.name])) };
  }

  async function form(viewer: Actor, csrfToken: string, headers: Headers, p: { title: string; action: string; values: ReportScheduleInput; cancel: string; errors?: Record<string, string>; error?: string }) {
    const [{ people, groupList }, settings] = await Promise.all([names(), notificationSettings(ctx.db)]);
    const report = reportOf(p.values.reportKey);
    const users = people.filter((u) => u.status === 'active' || p.values.userIds.includes(u.id))
      .map((u) => ({ value: u.id, label: u.status === 'active' ? `${u.name} <${u.email}>` : `${u.name} (deactivated: skipped)` }));
    return renderScreen(headers, shell(p.title, viewer, csrfToken),
      <ScheduleForm action={p.action} csrfToken={csrfToken} values={p.values} cancel={p.cancel} errors={p.errors ?? {}} error={p.error}
        reports={installedReports().map((r) => ({ value: r.key, label: r.title }))} filters={report ? await report.filtersFor(ctx, viewer) : []}
        users={users} groups={groupList.map((g) => ({ value: g.id, label: g.name }))} hour={`${String(settings.reminderHour).padStart(2, '0')}:00 ${settings.timeZone}`} />);
  }

  const refused = (problems: number, message: string) => (problems ? 'Please correct the fields marked below.' : message);

  /** Every scheduled report in words, chosen by the address's search, filters and sort. */
  async function chosen(viewer: Actor, query: Record<string, string | undefined>) {
    const rules = scheduleListRules();
    const state = ruledState(query, rules);
    const [schedules, n, settings] = await Promise.all([listSchedules(ctx.db, viewer), names(), notificationSettings(ctx.db)]);
    const rows = await Promise.all(schedules.map((s) => rowOf(viewer, s, n, settings.reminderHour, settings.timeZone)));
    return { state, rows: chosenRows(rows, state, rules) };
  }

  return new Elysia({ name: 'platform:report-schedule-pages' })
    .use(screenAuth(ctx))
    .get('/reports/schedules', async ({ viewer, csrfToken, headers, query }) => {
      const { state, rows } = await chosen(viewer, query);
      return renderScreen(headers, shell('Scheduled reports', viewer, csrfToken),
        <ScheduleList rows={pageOfRows(rows, state)} state={state} reports={scheduleReports()} canChange={canChange(viewer)} done={query.done} />);
    }, { page: 'settings:read' })
    // The scheduled reports of the filters, in words, as CSV (the last run in the reader's zone).
    .get('/reports/schedules/export.csv', async ({ viewer, query, set }) =>
      csvDownload(set, 'scheduled-reports', scheduleCsvColumns(readerZone(query.tz)), (await chosen(viewer, query)).rows), { page: 'settings:read' })
    .get('/reports/schedules/new', ({ viewer, csrfToken, headers, query }) => form(viewer, csrfToken, headers, {
      title: 'Schedule a report', action: '/reports/schedules', cancel: '/reports/schedules',
      values: { name: '', reportKey: reportOf(query.report ?? '')?.key ?? installedReports()[0]?.key ?? '', filters: {}, frequency: 'weekly', weekday: 1, monthDay: null, userIds: [], groupIds: [], paused: false },
    }), { page: 'settings:update' })
    .get('/reports/schedules/filters', async ({ viewer, query }) => {
      const report = reportOf(query.reportKey ?? '');
      const filters = report ? await report.filtersFor(ctx, viewer) : [];
      // Choices already made on the form are kept where the chosen report has the same filter and value.
      const kept = Object.fromEntries(filters.flatMap((f) => {
        const value = (query as Record<string, string | undefined>)[`filter.${f.name}`];
        return value && f.options.some((o) => o.value === value) ? [[f.name, value]] : [];
      }));
      return <ScheduleFilters filters={filters} values={kept} errors={{}} />;
    }, { page: 'settings:read' })
    .post('/reports/schedules', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const values = scheduleFromForm(body);
      const saved = await attempt(() => runWrite(ctx, (tx) => createSchedule(ctx, tx, viewer, values)));
      if (saved.ok) return redirect(`/reports/schedules/${saved.value.id}?done=created`, 303);
      set.status = saved.error.status;
      return form(viewer, csrfToken, headers, {
        title: 'Schedule a report', action: '/reports/schedules', cancel: '/reports/schedules', values,
        errors: fieldErrors(saved.error.problems), error: refused(saved.error.problems.length, saved.error.message),
      });
    }, { page: 'settings:update' })
    .get('/reports/schedules/:id', async ({ viewer, csrfToken, headers, params, query }) => {
      const [s, n, settings] = await Promise.all([getSchedule(ctx.db, viewer, params.id), names(), notificationSettings(ctx.db)]);
      return renderScreen(headers, shell(`Scheduled report: ${s.name}`, viewer, csrfToken),
        <ScheduleDetail row={await rowOf(viewer, s, n, settings.reminderHour, settings.timeZone)} canChange={canChange(viewer)} csrfToken={csrfToken} done={query.done} />);
    }, { page: 'settings:read' })
    .get('/reports/schedules/:id/edit', async ({ viewer, csrfToken, headers, params }) => {
      const s = await getSchedule(ctx.db, viewer, params.id);
      return form(viewer, csrfToken, headers, { title: `Edit: ${s.name}`, action: `/reports/schedules/${s.id}`, cancel: `/reports/schedules/${s.id}`, values: scheduleInput(s) });
    }, { page: 'settings:update' })
    .post('/reports/schedules/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const before = await getSchedule(ctx.db, viewer, params.id);
      const values = { ...scheduleFromForm(body), paused: before.paused };
      const saved = await attempt(() => runWrite(ctx, (tx) => updateSchedule(ctx, tx, viewer, params.id, values)));
      if (saved.ok) return redirect(`/reports/schedules/${params.id}?done=updated`, 303);
      set.status = saved.error.status;
      return form(viewer, csrfToken, headers, {
        title: `Edit: ${before.name}`, action: `/reports/schedules/${params.id}`, cancel: `/reports/schedules/${params.id}`, values,
        errors: fieldErrors(saved.error.problems), error: refused(saved.error.problems.length, saved.error.message),
      });
    }, { page: 'settings:update' })
    .post('/reports/schedules/:id/pause', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => setSchedulePaused(tx, viewer, params.id, true));
      return redirect(`/reports/schedules/${params.id}?done=paused`, 303);
    }, { page: 'settings:update' })
    .post('/reports/schedules/:id/resume', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => setSchedulePaused(tx, viewer, params.id, false));
      return redirect(`/reports/schedules/${params.id}?done=resumed`, 303);
    }, { page: 'settings:update' })
    .get('/reports/schedules/:id/delete', async ({ viewer, csrfToken, headers, params }) => {
      const s = await getSchedule(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Delete: ${s.name}`, viewer, csrfToken), <DeleteSchedulePage schedule={s} csrfToken={csrfToken} />);
    }, { page: 'settings:update' })
    .post('/reports/schedules/:id/delete', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => deleteSchedule(tx, viewer, params.id));
      return redirect('/reports/schedules?done=deleted', 303);
    }, { page: 'settings:update' });
};
