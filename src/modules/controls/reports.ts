import { erased, type ReportDeclaration } from '../../platform/reports/declarations';
import { readable } from '../../platform/record-screens/record-views';
import { controlTestStatus, type ControlTestStatus } from './service';

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
  rows: (ctx, viewer) => controlTestStatus(ctx.db, viewer),
};

export const controlReports = [erased(testStatus)];
