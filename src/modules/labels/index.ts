import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { labelsApi } from './api';
import { labelPages } from './pages';

/** Labels: REST and the Settings › Labels screen. */
export const labelsModule = (ctx: AppContext) => new Elysia({ name: 'module:labels' }).use(labelsApi(ctx)).use(labelPages(ctx));
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';

export const manifest: ModuleManifest<'settings'> = defineModule({
  name: 'labels',
  apiTags: {
    Labels: 'Labels to put on records; managing them needs settings rights.',
  },
  permissions: permissionArea('settings', { rights: ['read', 'create', 'update'] }),
  plugins: (ctx) => [labelsModule(ctx)],
  nav: [{ group: 'Settings', key: 'labels', href: '/settings/labels', label: 'Labels', needs: 'settings:read' }],
});
