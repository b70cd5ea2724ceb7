import { assets } from '../../../db/schema';
import { registerSearch } from '../../platform/search/search';
import { defineModule } from '../../platform/modules/module';
import { assetsApi } from './api';
import { assetImport } from './import';
import { assetPages } from './pages';

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
});
