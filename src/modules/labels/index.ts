import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { labelsApi } from './api';
import { labelPages } from './pages';

/** Labels: REST and the Settings › Labels screen. */
export const labelsModule = (ctx: AppContext) => new Elysia({ name: 'module:labels' }).use(labelsApi(ctx)).use(labelPages(ctx));
import { defineModule } from '../../platform/modules/module';

export const manifest = defineModule({
  name: 'labels',
  permissions: 'settings',
  plugins: (ctx) => [labelsModule(ctx)],
  nav: [{ group: 'Settings', key: 'labels', href: '/settings/labels', label: 'Labels', needs: 'settings:read' }],
});
