import type { AppContext } from '../../platform/http/context';
import type { Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import type { RecordView } from '../../platform/records/records';
import { renderScreen } from '../../platform/http/screen';
import type { businessUnits } from '../../../db/schema';
import { BusinessUnitCreate, BusinessUnitUpdate } from './schema';
import { businessUnitKind, businessUnitOptions, businessUnitTree } from './service';
import { StructureSection, TreeList } from './views';

type BusinessUnitView = RecordView<typeof businessUnits>;

/** The unit's place in the hierarchy (its path, its child units). */
async function structureSection(ctx: AppContext, view: BusinessUnitView, viewer: Actor): Promise<JSX.Element> {
  const tree = await businessUnitTree(ctx.db, viewer);
  const self = tree.find((entry) => entry.id === view.id);
  const children = tree.filter((entry) => entry.parentId === view.id);
  return <StructureSection self={self} childUnits={children} />;
}

export const businessUnitPages = (ctx: AppContext) =>
  recordPages(ctx, businessUnitKind, {
    path: '/business-units',
    title: 'Business units',
    singular: 'Business unit',
    navKey: 'businessUnits',
    Create: BusinessUnitCreate,
    Update: BusinessUnitUpdate,
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, hint: 'Unique among units with the same parent' },
      { name: 'description', label: 'Description', kind: 'textarea' },
      {
        name: 'parentId', label: 'Parent unit', kind: 'reference', hint: 'Blank for a top-level unit; a unit cannot sit below itself',
        options: (viewer) => businessUnitOptions(ctx.db, viewer), link: businessUnitKind,
      },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (u) => u.name, link: true },
      { header: 'Description', value: (u) => (u.description.length > 80 ? `${u.description.slice(0, 79)}…` : u.description) },
      ownerColumn(),
    ],
    sorts: [
      { value: '', label: 'Newest first' },
      { value: 'name', label: 'Name A–Z' },
      { value: '-updatedAt', label: 'Recently updated' },
    ],
    sections: (view, viewer) => structureSection(ctx, view, viewer),
  })
    .get('/business-units/tree', async ({ viewer, csrfToken, headers }) =>
      renderScreen(headers, { title: 'Business unit hierarchy', viewer, csrfToken, active: 'businessUnits' }, (
        <>
          <p class="actions"><a href="/business-units">← All business units</a></p>
          <TreeList entries={await businessUnitTree(ctx.db, viewer)} />
        </>
      )), { page: 'businessUnits:read' });
