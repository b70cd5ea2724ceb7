import { incidents } from '../../../db/schema';
import { registerSearch } from '../../platform/search/search';
import { defineModule } from '../../platform/modules/module';
import { incidentsApi } from './api';
import { incidentImport } from './import';
import { incidentPages } from './pages';

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
});
