import type { DbOrTx } from '../../../db/client';
import { analysisProjects, projects } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { referencedBy, type RecordKind } from '../../platform/records/records';
import type { ProjectCreate } from './schema';
import { isRealDate } from '../../platform/core/dates';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { PROJECT_STATUSES } from './schema';


export const projectKind: RecordKind<typeof projects, ProjectCreate> = {
  module: 'projects',
  customFields: true,
  recordType: 'project',
  label: 'Project',
  table: projects,
  titleColumn: projects.title,
  statusColumn: projects.status,
  sortable: {
    title: projects.title, status: inDefinedOrder(projects.status, PROJECT_STATUSES), deadline: projects.deadline, owner: ownerNameSort,
    createdAt: projects.createdAt, updatedAt: projects.updatedAt,
  },
  defaults: { description: '', status: 'planned', deadline: null },
  references: [referencedBy({ one: 'requirement (as remediation)', many: 'requirements (as remediation)' }, analysisProjects, analysisProjects.projectId, { kind: 'requirement', id: analysisProjects.analysisId })],
  toColumns: (c) => ({ ...c, title: c.title.trim() }),
  async check(_db: DbOrTx, candidate) {
    const problems: FieldProblem[] = [];
    if (!candidate.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
    if (candidate.deadline && !isRealDate(candidate.deadline)) problems.push({ field: 'deadline', message: 'must be a real date written YYYY-MM-DD' });
    return problems;
  },
};
