import { defineImportType, keyedColumn, ownerColumn, ownerGroupColumn } from '../../platform/csv/import-type';
import { THIRD_PARTY_STATUSES, THIRD_PARTY_TYPES, ThirdPartyCreate, ThirdPartyUpdate } from './schema';
import { thirdPartyKind } from './service';

/** Third parties CSV: the register fields (contacts, linked risks and sub-processors are not imported); written by the register kit. */
export const thirdPartyImport = defineImportType({
  area: 'third-parties',
  module: 'thirdParties',
  title: 'Third parties',
  Create: ThirdPartyCreate,
  Update: ThirdPartyUpdate,
  customFields: true,
  columns: [
    { name: 'name', field: 'name', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    keyedColumn(THIRD_PARTY_TYPES, { name: 'type', field: 'type', note: '(blank gives Vendor)', blankOnUpdate: 'keep' }),
    keyedColumn(THIRD_PARTY_STATUSES, { name: 'status', field: 'status', note: '(blank gives Active)', blankOnUpdate: 'keep' }),
    { name: 'website', field: 'website', help: 'an http or https address, e.g. https://example.com', blankOnUpdate: 'clear' },
    ownerColumn(),
    ownerGroupColumn(),
  ],
  prepare: async () => ({}),
  kind: () => thirdPartyKind,
});
