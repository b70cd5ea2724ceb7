import { incidents } from '../../../db/schema';
import { registerType } from '../../platform/records/record-types';
import { incidentKind } from './service';
import { defineModule } from '../../platform/modules/module';
import { incidentsApi } from './api';
import { incidentImport } from './import';
import { incidentPages } from './pages';

/** Incidents, personal-data breaches and their notifications. */
export const manifest = defineModule({
  name: 'incidents',
  recordTypes: [registerType(incidentKind, { kind: 'incident', plural: 'Incidents', href: (id) => `/incidents/${id}`, evidence: true, search: { body: incidents.description }, read: true })],
  permissions: 'incidents',
  plugins: (ctx) => [incidentsApi(ctx), incidentPages(ctx)],
  imports: [incidentImport],
  nav: [
    { group: 'Operations', key: 'incidents', href: '/incidents', label: 'Incidents', needs: 'incidents:read' },
    { group: 'Settings', key: 'incident-settings', href: '/settings/incidents', label: 'Incident classifications', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['incidents'],
});
