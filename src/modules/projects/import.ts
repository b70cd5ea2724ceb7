import { defineImportType, keyedColumn, ownerColumn, ownerGroupColumn, readDate } from '../../platform/csv/import-type';
import { PROJECT_STATUSES, ProjectCreate, ProjectUpdate } from './schema';
import { projectKind } from './service';

/** Projects CSV: columns of the spec's import table mapped onto ProjectCreate; written by the register kit. */
export const projectImport = defineImportType({
  area: 'projects',
  module: 'projects',
  title: 'Projects',
  Create: ProjectCreate,
  Update: ProjectUpdate,
  customFields: true,
  columns: [
    { name: 'title', field: 'title', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    keyedColumn(PROJECT_STATUSES, { name: 'status', field: 'status', note: '(blank gives Planned)', blankOnUpdate: 'keep' }),
    { name: 'deadline', field: 'deadline', help: 'date YYYY-MM-DD', blankOnUpdate: 'clear', read: readDate },
    ownerColumn(),
    ownerGroupColumn(),
  ],
  prepare: async () => ({}),
  kind: () => projectKind,
});
