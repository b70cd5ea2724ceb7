import type { NamedRecords } from '../../platform/csv/import-type';
import { defineImportType, ownerColumn, ownerGroupColumn, readableNamed, readNamed, writeNamed } from '../../platform/csv/import-type';
import { businessUnitKind } from '../businessUnits/service';
import { AssetCreate, AssetUpdate } from './schema';
import { assetKind } from './service';

interface AssetLookups {
  units: NamedRecords;
}

/** Assets CSV: business_unit by name (or id); the kit's asset rules still require businessUnits:read on the unit. */
export const assetImport = defineImportType<AssetLookups>({
  area: 'assets',
  module: 'assets',
  title: 'Assets',
  Create: AssetCreate,
  Update: AssetUpdate,
  customFields: false,
  columns: [
    { name: 'name', field: 'name', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    {
      name: 'business_unit', field: 'businessUnitId', help: 'name (or id) of a business unit', blankOnUpdate: 'clear',
      read: (text, l) => readNamed(l.units, 'business unit', text), write: (value, l) => writeNamed(l.units, value),
    },
    ownerColumn(),
    ownerGroupColumn(),
  ],
  async prepare(db, actor) {
    return { units: await readableNamed(db, actor, businessUnitKind) };
  },
  kind: () => assetKind,
});
