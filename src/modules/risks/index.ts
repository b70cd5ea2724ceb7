import { exceptions, riskReviews, riskTreatments, risks } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { defineTool } from '../../platform/modules/tools';
import { registerType } from '../../platform/records/record-types';
import { risksApi } from './api';
import { riskImport } from './import';
import { riskPages } from './pages';
import { riskSettingsApi } from './settings-api';
import { riskClassificationsApi } from './classifications';
import { riskSettingsPages } from './settings-pages';
import { riskTreatmentsApi } from './treatments-api';
import { riskTreatmentPages } from './treatments-pages';
import { listRecords } from '../../platform/records/records';
import { RiskListQuery } from './schema';
import { getRisk, riskKind } from './service';
import { listTreatments } from './treatments-service';
import { riskDueDates, riskEvents } from './notifications';
import { riskDueSoon } from './dashboard';
import { riskWidgets } from './dashboard-widgets';
import { riskPosture } from './posture';
import { riskSections } from './linked-sections';
import { riskReports } from './reports';

/** Risks: the register, treatments, and Risk settings (scale and classifications). */
export const manifest: ModuleManifest<'risks'> = defineModule({
  name: 'risks',
  apiTags: {
    Risks: 'The risk register: risks with inherent and residual scores computed on the risk scale, owners, review frequency and custom fields; CSV import and batch operations (docs/risks.md).',
    'Risk settings': 'Risk classifications and the risk scale (likelihood and impact levels, score matrix, appetite bands); changing them needs settings rights.',
    'Risk treatments and reviews': 'How each risk is treated (mitigate with linked controls and a residual rating, accept, transfer, avoid) and the reviews recorded on it.',
  },
  permissions: permissionArea('risks', { review: true }),
  plugins: (ctx) => [
    risksApi(ctx), riskClassificationsApi(ctx), riskSettingsApi(ctx), riskTreatmentsApi(ctx), riskPages(ctx), riskSettingsPages(ctx), riskTreatmentPages(ctx),
  ],
  imports: [riskImport],
  nav: [
    { group: 'Risk', key: 'risks', href: '/risks', label: 'Risks', needs: 'risks:read' },
    { group: 'Settings', key: 'risk-settings', href: '/settings/risks', label: 'Risk settings', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['risks'],
  recordTypes: [registerType(riskKind, {
    kind: 'risk', plural: 'Risks', href: (id) => `/risks/${id}`, evidence: true, search: { body: risks.description },
    // A risk's History shows its treatments, reviews and exceptions.
    historyParts: [
      { historyType: 'riskTreatment', table: riskTreatments, id: riskTreatments.id, parentId: riskTreatments.riskId, href: (id, riskId) => `/risks/${riskId}/treatments/${id}` },
      { historyType: 'riskReview', table: riskReviews, id: riskReviews.id, parentId: riskReviews.riskId },
      { historyType: 'riskException', table: exceptions, id: exceptions.id, parentId: exceptions.riskId },
    ],
    read: async (ctx, actor, id) => ({ ...(await getRisk(ctx.db, actor, id)), treatments: await listTreatments(ctx.db, actor, id) }),
  })],
  assistantTools: () => [defineTool({
    name: 'list_risks', title: 'List risks', readOnly: true, input: RiskListQuery, needs: { allOf: ['risks:read'] },
    description: 'Risks you may read, with inherent and residual scores, paged; the filters of GET /api/v1/risks (status, classificationId, ownerId, q, sort).',
    run: (ctx, actor, args) => listRecords(ctx.db, riskKind, actor, args),
  })],
  events: riskEvents,
  dueDates: riskDueDates,
  dashboard: riskWidgets,
  posture: riskPosture,
  dueSoon: riskDueSoon,
  // What links here: the risks of an asset, the risk treatments relying on a control, the controls of a risk.
  sections: riskSections,
  reports: riskReports,
});
