import { assets } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { assetsApi } from './api';
import { assetImport } from './import';
import { assetPages } from './pages';
import { kindEvents } from '../../platform/notifications/declarations';
import { businessUnitKind } from '../businessUnits/service';
import { assetKind } from './service';

/** Assets. */
export const manifest = defineModule({
  name: 'assets',
  searchSources: [registerSearch({ kind: 'asset', label: 'Assets', module: 'assets', table: assets, title: assets.name, body: assets.description, href: (id) => `/assets/${id}` })],
  permissions: 'assets',
  plugins: (ctx) => [assetsApi(ctx), assetPages(ctx)],
  imports: [assetImport],
  nav: [
    { group: 'Assets and vendors', key: 'assets', href: '/assets', label: 'Assets', needs: 'assets:read' },
  ],
  countedTables: ['assets'],
  events: [kindEvents(assetKind, { href: (id) => `/assets/${id}`, links: { businessUnitId: businessUnitKind } })],
});
