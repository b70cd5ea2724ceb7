import { projects } from '../../../db/schema';
import { registerType } from '../../platform/records/record-types';
import { projectKind } from './service';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { projectsApi } from './api';
import { projectImport } from './import';
import { projectPages } from './pages';
import { kindEvents } from '../../platform/notifications/declarations';

/** Projects. */
export const manifest: ModuleManifest<'projects'> = defineModule({
  name: 'projects',
  apiTags: {
    Projects: 'Projects, for example remediation mapped to compliance requirements.',
  },
  recordTypes: [registerType(projectKind, { kind: 'project', plural: 'Projects', href: (id) => `/projects/${id}`, search: { body: projects.description }, read: true })],
  permissions: permissionArea('projects'),
  plugins: (ctx) => [projectsApi(ctx), projectPages(ctx)],
  imports: [projectImport],
  nav: [
    { group: 'Operations', key: 'projects', href: '/projects', label: 'Projects', needs: 'projects:read' },
  ],
  customFields: true,
  countedTables: ['projects'],
  events: [kindEvents(projectKind)],
});
