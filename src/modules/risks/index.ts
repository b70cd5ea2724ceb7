import { risks } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { risksApi } from './api';
import { riskImport } from './import';
import { riskPages } from './pages';
import { riskSettingsApi } from './settings-api';
import { riskTreatmentsModule } from './treatments-pages';
import { listRecords, type ListParams } from '../../platform/records';
import { RiskListQuery } from './schema';
import { riskKind } from './service';
import { riskDueDates, riskEvents } from './notifications';

/** Risks: the register, treatments, and Risk settings (scale and classifications). */
export const manifest = defineModule({
  name: 'risks',
  searchSources: [registerSearch({ kind: 'risk', label: 'Risks', module: 'risks', table: risks, title: risks.title, body: risks.description, href: (id) => `/risks/${id}` })],
  permissions: 'risks',
  plugins: (ctx) => [risksApi(ctx), riskSettingsApi(ctx), riskTreatmentsModule(ctx), riskPages(ctx)],
  imports: [riskImport],
  nav: [
    { group: 'Risk', key: 'risks', href: '/risks', label: 'Risks', needs: 'risks:read' },
    { group: 'Settings', key: 'risk-settings', href: '/settings/risks', label: 'Risk settings', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['risks'],
  assistantTools: [{
    name: 'list_risks', title: 'List risks', readOnly: true, input: RiskListQuery,
    description: 'Risks you may read, with inherent and residual scores, paged; the filters of GET /api/v1/risks (status, classificationId, ownerId, q, sort).',
    run: (ctx, actor, args) => listRecords(ctx.db, riskKind, actor, args as ListParams),
  }],
  events: riskEvents,
  dueDates: riskDueDates,
});
