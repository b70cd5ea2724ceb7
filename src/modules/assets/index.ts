import { assets } from '../../../db/schema';
import { registerType } from '../../platform/records/record-types';
import { assetKind } from './service';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { assetsApi } from './api';
import { assetImport } from './import';
import { assetPages } from './pages';
import { assetSections } from './linked-sections';
import { kindEvents } from '../../platform/notifications/declarations';

/** Assets. */
export const manifest: ModuleManifest<'assets'> = defineModule({
  name: 'assets',
  apiTags: {
    Assets: 'The asset catalog (docs/assets.md).',
  },
  recordTypes: [registerType(assetKind, { kind: 'asset', plural: 'Assets', href: (id) => `/assets/${id}`, search: { body: assets.description }, read: true })],
  permissions: permissionArea('assets'),
  plugins: (ctx) => [assetsApi(ctx), assetPages(ctx)],
  imports: [assetImport],
  nav: [
    { group: 'Assets and vendors', key: 'assets', href: '/assets', label: 'Assets', needs: 'assets:read' },
  ],
  countedTables: ['assets'],
  // A business unit's page lists its assets.
  sections: assetSections,
  events: [kindEvents(assetKind, { links: { businessUnitId: 'businessUnit' } })],
});
