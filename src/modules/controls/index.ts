import { defineModule } from '../../platform/module';
import { controlsApi } from './api';
import { controlImport } from './import';
import { controlPages } from './pages';

/** Controls and their tests. */
export const manifest = defineModule({
  name: 'controls',
  permissions: 'controls',
  plugins: (ctx) => [controlsApi(ctx), controlPages(ctx)],
  imports: [controlImport],
  nav: [{ group: 'Compliance', key: 'controls', href: '/controls', label: 'Controls', needs: 'controls:read' }],
  customFields: true,
  countedTables: ['controls'],
});
