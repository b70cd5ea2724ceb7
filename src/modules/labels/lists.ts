/** Settings › Labels as a list: read whole, searched, sorted and paged by its rules, and the same rows as CSV. */
import type { ListRules } from '../../platform/http/list-query';
import type { CsvColumn } from '../../platform/csv/list-download';
import { zonedHeader, zonedTime } from '../../platform/csv/zone';
import type { LabelView } from './schema';

export const labelListRules: ListRules<LabelView> = {
  text: (l) => [l.name, l.description],
  sorts: { name: (l) => l.name, color: (l) => l.color, description: (l) => l.description, createdAt: (l) => new Date(l.createdAt).getTime() },
  defaultSort: 'name',
};

export const labelCsvColumns = (zone: string): CsvColumn<LabelView>[] => [
  { header: 'Label', cell: (l) => l.name },
  { header: 'Colour', cell: (l) => l.color },
  { header: 'Description', cell: (l) => l.description },
  { header: zonedHeader('Added', zone), cell: (l) => zonedTime(l.createdAt, zone) },
];
