import { incidents } from '../../../db/schema';
import { registerType } from '../../platform/records/record-types';
import { incidentKind } from './service';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { incidentsApi } from './api';
import { incidentClassificationPages, incidentClassificationsApi } from './classifications';
import { incidentImport } from './import';
import { incidentPages } from './pages';
import { incidentSections } from './linked-sections';
import { kindEvents } from '../../platform/notifications/declarations';
import { dateRangeFilters, inDateRange, registerReport } from '../../platform/reports/declarations';
import { INCIDENT_STATUSES } from './schema';
import { incidentColumns } from './pages';

/** Incidents, personal-data breaches and their notifications. */
export const manifest: ModuleManifest<'incidents'> = defineModule({
  name: 'incidents',
  apiTags: {
    Incidents: 'Incidents, closing with a resolution, personal-data-breach details and notifications (docs/incidents-and-audits.md).',
    'Incident classifications': 'The classifications incidents are sorted into; one in use cannot be deleted.',
  },
  recordTypes: [registerType(incidentKind, { kind: 'incident', plural: 'Incidents', href: (id) => `/incidents/${id}`, evidence: true, search: { body: incidents.description }, read: true })],
  permissions: permissionArea('incidents'),
  plugins: (ctx) => [incidentsApi(ctx), incidentClassificationsApi(ctx), incidentPages(ctx), incidentClassificationPages(ctx)],
  imports: [incidentImport],
  nav: [
    { group: 'Operations', key: 'incidents', href: '/incidents', label: 'Incidents', needs: 'incidents:read' },
    { group: 'Settings', key: 'incident-settings', href: '/settings/incidents', label: 'Incident classifications', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['incidents'],
  events: [kindEvents(incidentKind, {
    labels: { openedAt: 'Opened', classificationId: 'Classification' },
    links: { assetId: 'asset', thirdPartyId: 'thirdParty' },
    activities: [{ key: 'breachNotification', label: 'Breach notification recorded', actions: ['breach_notification'] }],
  })],
  // What links here: the incidents naming an asset, on its page.
  sections: incidentSections,
  reports: [registerReport(incidentKind, {
    key: 'incidents', title: 'Incidents', listHref: '/incidents', columns: incidentColumns, params: { sort: 'openedAt' }, statuses: INCIDENT_STATUSES,
    description: 'Every incident you may read: when it was opened, its status and owner.',
    // Beside status and owner group: the day it was opened, as a range (a quarter's incidents for the committee).
    filters: async () => dateRangeFilters('openedAt', 'Opened'),
    tests: { openedAt: (row, chosen) => inDateRange(chosen, 'openedAt', row.openedAt) },
  })],
});
