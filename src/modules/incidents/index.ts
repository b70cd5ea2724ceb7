import { incidents } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { incidentsApi } from './api';
import { incidentImport } from './import';
import { incidentPages } from './pages';
import { kindEvents } from '../../platform/notifications/declarations';
import { assetKind } from '../assets/service';
import { thirdPartyKind } from '../thirdParties/service';
import { incidentKind } from './service';

/** Incidents, personal-data breaches and their notifications. */
export const manifest = defineModule({
  name: 'incidents',
  searchSources: [registerSearch({ kind: 'incident', label: 'Incidents', module: 'incidents', table: incidents, title: incidents.title, body: incidents.description, href: (id) => `/incidents/${id}` })],
  permissions: 'incidents',
  plugins: (ctx) => [incidentsApi(ctx), incidentPages(ctx)],
  imports: [incidentImport],
  nav: [
    { group: 'Operations', key: 'incidents', href: '/incidents', label: 'Incidents', needs: 'incidents:read' },
    { group: 'Settings', key: 'incident-settings', href: '/settings/incidents', label: 'Incident classifications', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['incidents'],
  events: [kindEvents(incidentKind, {
    href: (id) => `/incidents/${id}`, labels: { openedAt: 'Opened', classificationId: 'Classification' },
    links: { assetId: assetKind, thirdPartyId: thirdPartyKind },
    activities: [{ key: 'breachNotification', label: 'Breach notification recorded', actions: ['breach_notification'] }],
  })],
});
