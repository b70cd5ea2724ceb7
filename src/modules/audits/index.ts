import { auditFindings, auditPlans } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { auditsApi } from './api';
import { findingImport } from './import';
import { auditPages } from './pages';
import { auditDueDates, auditEvents } from './notifications';

/** Audit plans and their findings. */
export const manifest = defineModule({
  name: 'audits',
  searchSources: [
    registerSearch({ kind: 'auditPlan', label: 'Audit plans', module: 'audits', table: auditPlans, title: auditPlans.title, href: (id) => `/audits/${id}` }),
    registerSearch({ kind: 'auditFinding', label: 'Audit findings', module: 'audits', table: auditFindings, title: auditFindings.title, body: auditFindings.description, href: (id) => `/audits/findings/${id}` }),
  ],
  permissions: 'audits',
  plugins: (ctx) => [auditsApi(ctx), auditPages(ctx)],
  imports: [findingImport],
  nav: [
    { group: 'Operations', key: 'audits', href: '/audits', label: 'Audits', needs: 'audits:read' },
  ],
  countedTables: ['audit_plans', 'audit_findings'],
  events: auditEvents,
  dueDates: auditDueDates,
});
