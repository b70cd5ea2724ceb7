import { thirdParties } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { thirdPartiesApi } from './api';
import { thirdPartyImport } from './import';
import { thirdPartyPages } from './pages';
import { kindEvents } from '../../platform/notifications/declarations';
import { thirdPartyKind } from './service';

/** Third parties: vendors and others, their contacts, linked risks and sub-processors. */
export const manifest = defineModule({
  name: 'thirdParties',
  searchSources: [registerSearch({ kind: 'thirdParty', label: 'Third parties', module: 'thirdParties', table: thirdParties, title: thirdParties.name, body: thirdParties.description, href: (id) => `/third-parties/${id}` })],
  permissions: 'thirdParties',
  plugins: (ctx) => [thirdPartiesApi(ctx), thirdPartyPages(ctx)],
  imports: [thirdPartyImport],
  nav: [
    { group: 'Assets and vendors', key: 'thirdParties', href: '/third-parties', label: 'Third parties', needs: 'thirdParties:read' },
  ],
  customFields: true,
  countedTables: ['third_parties'],
  events: [kindEvents(thirdPartyKind, { href: (id) => `/third-parties/${id}` })],
});
