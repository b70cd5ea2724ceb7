import { businessUnits } from '../../../db/schema';
import { registerType } from '../../platform/records/record-types';
import { businessUnitKind } from './service';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { businessUnitsApi } from './api';
import { businessUnitPages } from './pages';
import { kindEvents } from '../../platform/notifications/declarations';

/** Business units, in a tree. */
export const manifest: ModuleManifest<'businessUnits'> = defineModule({
  name: 'businessUnits',
  apiTags: {
    'Business units': 'The business unit hierarchy.',
  },
  recordTypes: [registerType(businessUnitKind, { kind: 'businessUnit', plural: 'Business units', href: (id) => `/business-units/${id}`, search: { body: businessUnits.description } })],
  permissions: permissionArea('businessUnits'),
  plugins: (ctx) => [businessUnitsApi(ctx), businessUnitPages(ctx)],
  nav: [
    { group: 'Assets and vendors', key: 'businessUnits', href: '/business-units', label: 'Business units', needs: 'businessUnits:read' },
  ],
  countedTables: ['business_units'],
  events: [kindEvents(businessUnitKind, { links: { parentId: 'businessUnit' } })],
});
