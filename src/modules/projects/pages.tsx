import type { AppContext } from '../../platform/http/context';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { readable } from '../../platform/record-screens/record-views';
import { PROJECT_STATUSES, ProjectCreate, ProjectUpdate } from './schema';
import { projectKind } from './service';

export const projectPages = (ctx: AppContext) =>
  recordPages(ctx, projectKind, {
    path: '/projects',
    title: 'Projects',
    singular: 'Project',
    navKey: 'projects',
    Create: ProjectCreate,
    Update: ProjectUpdate,
    statuses: PROJECT_STATUSES,
    importable: true,
    fields: [
      { name: 'title', label: 'Title', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      { name: 'status', label: 'Status', kind: 'select', options: PROJECT_STATUSES, hint: 'Blank gives planned' },
      { name: 'deadline', label: 'Deadline', kind: 'date', hint: 'YYYY-MM-DD' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Title', value: (p) => p.title, link: true },
      { header: 'Status', value: (p) => readable(p.status) },
      { header: 'Deadline', value: (p) => p.deadline ?? '' },
      ownerColumn(),
    ],
    sorts: [
      { value: '', label: 'Newest first' },
      { value: 'deadline', label: 'Deadline, soonest first' },
      { value: 'title', label: 'Title A–Z' },
      { value: 'status', label: 'Status' },
      { value: '-updatedAt', label: 'Recently updated' },
    ],
  });
