/** Settings › Custom fields as one list: read whole, searched, filtered, sorted and paged by its rules, and the same rows as CSV. */
import type { ListRules } from '../../platform/http/list-query';
import type { CsvColumn } from '../../platform/csv/list-download';
import { customFieldModules, moduleLabel } from '../../platform/http/installed';
import { CUSTOM_FIELD_TYPES } from '../../platform/records/custom-field-values';
import type { CustomFieldView } from './schema';

export const TYPE_LABELS: Record<string, string> = {
  text: 'Text', number: 'Number', date: 'Date', singleSelect: 'Single select', multiSelect: 'Multi select', boolean: 'Yes / no',
};

/** Definitions: searched by label, key and options; filtered by module and type; by module (then display order) unless asked. */
export const customFieldListRules = (): ListRules<CustomFieldView> => ({
  text: (d) => [d.label, d.key, ...d.options],
  filters: {
    module: { values: customFieldModules(), matches: (d, v) => d.module === v },
    type: { values: CUSTOM_FIELD_TYPES, matches: (d, v) => d.type === v },
  },
  sorts: {
    module: (d) => moduleLabel(d.module), label: (d) => d.label, key: (d) => d.key, type: (d) => TYPE_LABELS[d.type] ?? d.type,
    required: (d) => (d.required ? 0 : 1), values: (d) => d.valueCount,
  },
  defaultSort: 'module',
});

export const customFieldCsvColumns: CsvColumn<CustomFieldView>[] = [
  { header: 'Module', cell: (d) => moduleLabel(d.module) },
  { header: 'Label', cell: (d) => d.label },
  { header: 'Key', cell: (d) => d.key },
  { header: 'Type', cell: (d) => TYPE_LABELS[d.type] ?? d.type },
  { header: 'Options', cell: (d) => d.options.join('; ') },
  { header: 'Required', cell: (d) => (d.required ? 'Yes' : 'No') },
  { header: 'Position', cell: (d) => d.position },
  { header: 'Records with a value', cell: (d) => d.valueCount },
];
