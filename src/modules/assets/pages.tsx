import type { AppContext } from '../../platform/http/context';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { businessUnitKind, businessUnitOptions } from '../businessUnits/service';
import { AssetCreate, AssetUpdate } from './schema';
import { assetKind } from './service';
import { UnitAssets } from './views';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { listRecords } from '../../platform/records/records';

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
      { header: 'Name', value: (a) => a.name, link: true },
      { header: 'Description', value: (a) => (a.description.length > 80 ? `${a.description.slice(0, 79)}…` : a.description) },
      ownerColumn(),
      { header: 'Updated', value: (a) => a.updatedAt.slice(0, 10) },
    ],
    sorts: [
      { value: '', label: 'Newest first' },
      { value: 'name', label: 'Name A–Z' },
      { value: '-updatedAt', label: 'Recently updated' },
    ],
  });

/** The assets of a business unit, on the unit's page, to readers of assets (own level included). */
export async function unitAssetsSection(ctx: AppContext, unitId: string, viewer: Actor): Promise<JSX.Element | null> {
  if (levelOf(viewer, 'assets:read') === null) return null;
  return <UnitAssets page={await listRecords(ctx.db, assetKind, viewer, { businessUnitId: unitId, pageSize: 200, sort: 'name' })} />;
}
