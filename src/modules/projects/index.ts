import { projects } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { projectsApi } from './api';
import { projectImport } from './import';
import { projectPages } from './pages';
import { kindEvents } from '../../platform/notifications/declarations';
import { projectKind } from './service';

/** Projects. */
export const manifest = defineModule({
  name: 'projects',
  searchSources: [registerSearch({ kind: 'project', label: 'Projects', module: 'projects', table: projects, title: projects.title, body: projects.description, href: (id) => `/projects/${id}` })],
  permissions: 'projects',
  plugins: (ctx) => [projectsApi(ctx), projectPages(ctx)],
  imports: [projectImport],
  nav: [
    { group: 'Operations', key: 'projects', href: '/projects', label: 'Projects', needs: 'projects:read' },
  ],
  customFields: true,
  countedTables: ['projects'],
  events: [kindEvents(projectKind, { href: (id) => `/projects/${id}` })],
});
