import type { DbOrTx } from '../../../db/client';
import { projects } from '../../../db/schema';
import type { FieldProblem } from '../../platform/errors';
import type { RecordKind } from '../../platform/records';
import type { ProjectCreate } from './schema';

/** YYYY-MM-DD naming a day that exists (no 2026-02-30). */
export const isRealDate = (value: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

export const projectKind: RecordKind<typeof projects, ProjectCreate> = {
  module: 'projects',
  recordType: 'project',
  label: 'Project',
  table: projects,
  titleColumn: projects.title,
  statusColumn: projects.status,
  sortable: { title: projects.title, status: projects.status, deadline: projects.deadline, createdAt: projects.createdAt, updatedAt: projects.updatedAt },
  defaults: { description: '', status: 'planned', deadline: null },
  toColumns: (c) => ({ ...c, title: c.title.trim() }),
  async check(_db: DbOrTx, candidate) {
    const problems: FieldProblem[] = [];
    if (!candidate.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
    if (candidate.deadline && !isRealDate(candidate.deadline)) problems.push({ field: 'deadline', message: 'must be a real date written YYYY-MM-DD' });
    return problems;
  },
};
