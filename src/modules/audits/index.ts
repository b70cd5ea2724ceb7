import { defineModule } from '../../platform/module';
import { auditsApi } from './api';
import { findingImport } from './import';
import { auditPages } from './pages';

/** Audit plans and their findings. */
export const manifest = defineModule({
  name: 'audits',
  permissions: 'audits',
  plugins: (ctx) => [auditsApi(ctx), auditPages(ctx)],
  imports: [findingImport],
  nav: [
    { group: 'Operations', key: 'audits', href: '/audits', label: 'Audits', needs: 'audits:read' },
  ],
  countedTables: ['audit_plans', 'audit_findings'],
});
