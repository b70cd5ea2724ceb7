import {
  dateRangeFilters, erased, inDateRange, ownerGroupFilter, splitFilters, yesNoFilter, type ReportDeclaration, type ReportFilters,
} from '../../platform/reports/declarations';
import type { DbOrTx } from '../../../db/client';
import type { Actor } from '../../platform/permissions/permissions';
import { CONTROL_STATUSES, CONTROL_TYPES } from './schema';
import { readable } from '../../platform/record-screens/record-views';
import { controlTestStatus, type ControlTestStatus } from './service';

/** What the Controls list filters by (status, type, owner group) is its query; the test's result and dates are tested on the rows. */
const TESTED = ['lastResult', 'overdue', 'nextTestDue'];

const chosenStatus = (chosen: ReportFilters) => (r: ControlTestStatus) =>
  (!chosen.lastResult || (r.lastResult ?? 'never') === chosen.lastResult)
  && (!chosen.overdue || String(r.overdue) === chosen.overdue)
  && inDateRange(chosen, 'nextTestDue', r.nextTestDue);

/** The list's query narrows the controls; the rest is tested on each page, the latest tests read with it. */
async function* statusRows(db: DbOrTx, viewer: Actor, chosen: ReportFilters): AsyncGenerator<ControlTestStatus[]> {
  const { params, rest } = splitFilters(chosen, TESTED);
  const keep = chosenStatus(rest);
  for await (const page of controlTestStatus(db, viewer, params)) {
    const kept = page.filter(keep);
    if (kept.length) yield kept;
  }
}

const testStatus: ReportDeclaration<ControlTestStatus> = {
  key: 'controlTestStatus', title: 'Control test status', needs: 'controls:read', listHref: '/controls',
  description: 'Every control you may read with its last test, its result and when the next test is due (a scheduled control never tested is due today).',
  columns: [
    { header: 'Control', value: (r) => r.control.name },
    { header: 'Type', value: (r) => readable(r.control.type) },
    { header: 'Status', value: (r) => readable(r.control.status) },
    { header: 'Owner', value: (r) => r.control.owner?.name ?? r.control.ownerGroup?.name },
    { header: 'Test every (months)', value: (r) => r.control.testFrequencyMonths },
    { header: 'Last tested', value: (r) => r.lastTestedOn },
    { header: 'Last result', value: (r) => (r.lastResult ? readable(r.lastResult) : 'Never tested') },
    { header: 'Next test due', value: (r) => r.nextTestDue },
    { header: 'Overdue', value: (r) => (r.overdue ? 'Yes' : 'No') },
  ],
  filters: async (ctx) => [
    { name: 'status', label: 'Status', options: CONTROL_STATUSES.map((s) => ({ value: s, label: readable(s) })) },
    { name: 'type', label: 'Type', options: CONTROL_TYPES.map((s) => ({ value: s, label: readable(s) })) },
    await ownerGroupFilter(ctx.db),
    { name: 'lastResult', label: 'Last result', options: [...['pass', 'fail', 'partial'].map((s) => ({ value: s, label: readable(s) })), { value: 'never', label: 'Never tested' }] },
    yesNoFilter('overdue', 'Overdue'),
    ...dateRangeFilters('nextTestDue', 'Next test due'),
  ],
  pages: (ctx, viewer, chosen) => statusRows(ctx.db, viewer, chosen),
};

export const controlReports = [erased(testStatus)];
