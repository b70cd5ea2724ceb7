import { businessUnits } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { businessUnitsApi } from './api';
import { businessUnitPages } from './pages';
import { kindEvents } from '../../platform/notifications/declarations';
import { businessUnitKind } from './service';

/** Business units, in a tree. */
export const manifest = defineModule({
  name: 'businessUnits',
  searchSources: [registerSearch({ kind: 'businessUnit', label: 'Business units', module: 'businessUnits', table: businessUnits, title: businessUnits.name, body: businessUnits.description, href: (id) => `/business-units/${id}` })],
  permissions: 'businessUnits',
  plugins: (ctx) => [businessUnitsApi(ctx), businessUnitPages(ctx)],
  nav: [
    { group: 'Assets and vendors', key: 'businessUnits', href: '/business-units', label: 'Business units', needs: 'businessUnits:read' },
  ],
  countedTables: ['business_units'],
  events: [kindEvents(businessUnitKind, { href: (id) => `/business-units/${id}`, links: { parentId: businessUnitKind } })],
});
