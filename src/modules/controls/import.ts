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
    keyedColumn(CONTROL_TYPES, { name: 'type', field: 'type', note: '(blank gives Process)', blankOnUpdate: 'keep' }),
    keyedColumn(CONTROL_STATUSES, { name: 'status', field: 'status', note: '(blank gives Active)', blankOnUpdate: 'keep' }),
    ownerColumn(),
    ownerGroupColumn(),
  ],
  prepare: async () => ({}),
  kind: () => controlKind,
});
