import { defineImportType, keyedColumn, ownerColumn, ownerGroupColumn } from '../../platform/csv/import-type';
import { CONTROL_STATUSES, CONTROL_TYPES, ControlCreate, ControlUpdate } from './schema';
import { controlKind } from './service';

/** Controls CSV: columns of the spec's import table mapped onto ControlCreate; written by the register kit. */
export const controlImport = defineImportType({
  area: 'controls',
  module: 'controls',
  title: 'Controls',
  Create: ControlCreate,
  Update: ControlUpdate,
  customFields: true,
  columns: [
    { name: 'name', field: 'name', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    keyedColumn(CONTROL_TYPES, { name: 'type', field: 'type', help: `${CONTROL_TYPES.join(', ')} (blank gives process)`, blankOnUpdate: 'keep' }),
    keyedColumn(CONTROL_STATUSES, { name: 'status', field: 'status', help: `${CONTROL_STATUSES.join(', ')} (blank gives active)`, blankOnUpdate: 'keep' }),
    ownerColumn(),
    ownerGroupColumn(),
  ],
  prepare: async () => ({}),
  kind: () => controlKind,
});
