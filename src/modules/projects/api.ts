import type { AppContext } from '../../platform/http/context';
import { recordApi } from '../../platform/records/record-api';
import { ProjectCreate, ProjectListQuery, ProjectUpdate, ProjectView } from './schema';
import { projectKind } from './service';

export const projectsApi = (ctx: AppContext) =>
  recordApi(ctx, projectKind, {
    path: '/projects', tag: 'Projects', plural: 'projects', Create: ProjectCreate, Update: ProjectUpdate, View: ProjectView, ListQuery: ProjectListQuery,
  });
