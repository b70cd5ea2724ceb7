import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { customFieldsApi } from './api';
import { customFieldPages } from './pages';

/** Custom fields as one plugin: REST under /api/v1/custom-fields and Settings › Custom fields. */
export const customFieldsModule = (ctx: AppContext) =>
  new Elysia({ name: 'module:customFields' }).use(customFieldsApi(ctx)).use(customFieldPages(ctx));
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';

export const manifest: ModuleManifest<'customFields'> = defineModule({
  name: 'customFields',
  apiTags: {
    'Custom fields': "Definitions of the custom fields a module's records take (docs/custom-fields.md).",
  },
  permissions: permissionArea('customFields'),
  plugins: (ctx) => [customFieldsModule(ctx)],
  nav: [{ group: 'Settings', key: 'custom-fields', href: '/settings/custom-fields', label: 'Custom fields', needs: 'customFields:read' }],
});
