import type { AppContext } from '../../platform/http/context';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { businessUnitKind, businessUnitOptions } from '../businessUnits/service';
import { AssetCreate, AssetUpdate } from './schema';
import { assetKind } from './service';

export const assetPages = (ctx: AppContext) =>
  recordPages(ctx, assetKind, {
    path: '/assets',
    title: 'Assets',
    singular: 'Asset',
    navKey: 'assets',
    Create: AssetCreate,
    Update: AssetUpdate,
    importable: true,
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      {
        name: 'businessUnitId', label: 'Business unit', kind: 'reference', hint: 'Units you can read',
        options: (viewer) => businessUnitOptions(ctx.db, viewer), link: businessUnitKind,
      },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (a) => a.name, link: true, sort: 'name' },
      { header: 'Description', value: (a) => (a.description.length > 80 ? `${a.description.slice(0, 79)}…` : a.description) },
      ownerColumn(),
      { header: 'Updated', value: (a) => a.updatedAt.slice(0, 10), sort: 'updatedAt' },
    ],
  });
