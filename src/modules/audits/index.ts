import { auditFindings, auditPlans } from '../../../db/schema';
import { registerType } from '../../platform/records/record-types';
import { auditPlanKind, findingKind, openFindingsOf } from './service';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { auditsApi } from './api';
import { findingImport } from './import';
import { auditPages } from './pages';
import { auditDueDates, auditEvents } from './notifications';
import { dateRangeFilters, inDateRange, registerReport } from '../../platform/reports/declarations';
import { FINDING_STATUSES } from './schema';
import { findingColumns } from './pages';

/** Audit plans and their findings. */
export const manifest: ModuleManifest<'audits'> = defineModule({
  name: 'audits',
  apiTags: {
    Audits: 'Audit plans (docs/incidents-and-audits.md).',
    'Audit findings': 'Findings of the audit plans with status, deadline and the control concerned; CSV import.',
  },
  recordTypes: [
    registerType(auditPlanKind, { kind: 'auditPlan', plural: 'Audit plans', href: (id) => `/audits/${id}`, evidence: true, search: {}, read: true }),
    registerType(findingKind, {
      kind: 'auditFinding', plural: 'Audit findings', href: (id) => `/audits/findings/${id}`, evidence: true, search: { body: auditFindings.description }, read: true,
      openItems: { key: 'auditFindings', list: (ctx, actor) => openFindingsOf(ctx.db, actor) },
    }),
  ],
  permissions: permissionArea('audits'),
  plugins: (ctx) => [auditsApi(ctx), auditPages(ctx)],
  imports: [findingImport],
  nav: [
    { group: 'Operations', key: 'audits', href: '/audits', label: 'Audits', needs: 'audits:read' },
  ],
  countedTables: ['audit_plans', 'audit_findings'],
  events: auditEvents,
  dueDates: auditDueDates,
  reports: [registerReport(findingKind, {
    key: 'auditFindings', title: 'Audit findings', listHref: '/audits/findings', columns: findingColumns, params: { sort: 'deadline' }, statuses: FINDING_STATUSES,
    description: 'Every audit finding you may read: its status, deadline and owner.',
    // Beside status and owner group: the deadline as a range (a finding without one is outside any range).
    filters: async () => dateRangeFilters('deadline', 'Deadline'),
    tests: { deadline: (row, chosen) => inDateRange(chosen, 'deadline', row.deadline) },
  })],
});
