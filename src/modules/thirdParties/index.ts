import { thirdParties } from '../../../db/schema';
import { registerType } from '../../platform/records/record-types';
import { thirdPartyKind } from './service';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { thirdPartiesApi } from './api';
import { thirdPartyImport } from './import';
import { thirdPartyPages } from './pages';
import { thirdPartySections } from './linked-sections';
import { kindEvents } from '../../platform/notifications/declarations';
import { thirdPartyReports } from './reports';

/** Third parties: vendors and others, their contacts, linked risks and sub-processors. */
export const manifest: ModuleManifest<'thirdParties'> = defineModule({
  name: 'thirdParties',
  apiTags: {
    'Third parties': 'Vendors, partners and customers with contacts, linked risks and sub-processors (docs/third-parties.md).',
  },
  recordTypes: [registerType(thirdPartyKind, { kind: 'thirdParty', plural: 'Third parties', href: (id) => `/third-parties/${id}`, evidence: true, search: { body: thirdParties.description }, read: true,
    // A sub-processor is another third party.
    links: { subProcessorId: 'thirdParty' },
  })],
  permissions: permissionArea('thirdParties'),
  plugins: (ctx) => [thirdPartiesApi(ctx), thirdPartyPages(ctx)],
  imports: [thirdPartyImport],
  nav: [
    { group: 'Assets and vendors', key: 'thirdParties', href: '/third-parties', label: 'Third parties', needs: 'thirdParties:read' },
  ],
  customFields: true,
  countedTables: ['third_parties'],
  events: [kindEvents(thirdPartyKind)],
  // What links here: the third parties of a risk, on its page.
  sections: thirdPartySections,
  reports: thirdPartyReports,
});
