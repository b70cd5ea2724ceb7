import { projects } from '../../../db/schema';
import { registerSearch } from '../../platform/search/search';
import { defineModule } from '../../platform/modules/module';
import { projectsApi } from './api';
import { projectImport } from './import';
import { projectPages } from './pages';

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
});
