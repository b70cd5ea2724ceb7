/**
 * Reports › Schedules as a list: every scheduled report in words (report title, when, recipients by name), searched,
 * filtered, sorted and paged by its list rules, and the same rows as CSV (last run in the reader's zone).
 */
import type { ListRules } from '../http/list-query';
import type { CsvColumn } from '../csv/list-download';
import { zonedHeader, zonedTime } from '../csv/zone';
import { installedReports } from '../reports/declarations';
import { SCHEDULE_FREQUENCIES, type ReportSchedule } from './report-schedules';

/** A scheduled report as the list and its own page show it: in words. */
export interface ScheduleRow {
  schedule: ReportSchedule;
  reportTitle: string;
  when: string;
  filters: string;
  recipients: string;
  skippedNow: { name: string; reason: string }[];
}

export const FREQUENCY_LABELS: Readonly<Record<(typeof SCHEDULE_FREQUENCIES)[number], string>> = { daily: 'Daily', weekly: 'Weekly', monthly: 'Monthly' };
export const SCHEDULE_STATE_LABELS: Readonly<Record<'active' | 'paused', string>> = { active: 'Active', paused: 'Paused' };

/** The installed reports by title: the Report filter's options. */
export const scheduleReports = (): { value: string; label: string }[] =>
  installedReports().map((r) => ({ value: r.key, label: r.title })).sort((a, b) => a.label.localeCompare(b.label));

export const scheduleListRules = (): ListRules<ScheduleRow> => ({
  text: (r) => [r.schedule.name, r.reportTitle, r.recipients, r.filters],
  filters: {
    report: { values: installedReports().map((r) => r.key), matches: (r, v) => r.schedule.reportKey === v },
    frequency: { values: SCHEDULE_FREQUENCIES, matches: (r, v) => r.schedule.frequency === v },
    state: { values: Object.keys(SCHEDULE_STATE_LABELS), matches: (r, v) => r.schedule.paused === (v === 'paused') },
  },
  sorts: {
    name: (r) => r.schedule.name, report: (r) => r.reportTitle, frequency: (r) => SCHEDULE_FREQUENCIES.indexOf(r.schedule.frequency),
    lastRunAt: (r) => r.schedule.lastRunAt?.getTime() ?? null,
  },
  defaultSort: 'name',
});

export const scheduleCsvColumns = (zone: string): CsvColumn<ScheduleRow>[] => [
  { header: 'Name', cell: (r) => r.schedule.name },
  { header: 'Report', cell: (r) => r.reportTitle },
  { header: 'Filters', cell: (r) => r.filters },
  { header: 'When', cell: (r) => r.when },
  { header: 'Recipients', cell: (r) => r.recipients },
  { header: 'State', cell: (r) => SCHEDULE_STATE_LABELS[r.schedule.paused ? 'paused' : 'active'] },
  { header: zonedHeader('Last run', zone), cell: (r) => zonedTime(r.schedule.lastRunAt, zone) },
  { header: 'Last outcome', cell: (r) => r.schedule.lastOutcome ?? '' },
  { header: 'Skipped now', cell: (r) => r.skippedNow.map((p) => `${p.name} (${p.reason})`).join('; ') },
];
