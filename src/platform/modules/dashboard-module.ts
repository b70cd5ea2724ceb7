import { dashboardPages } from '../dashboard/pages';
import { defineModule } from './module';

/** The Dashboard at `/` (a screen only: the specification gives it no REST equivalent). Its widgets come from the modules' manifests. */
export const dashboardModule = defineModule({
  name: 'dashboard',
  plugins: (ctx) => [dashboardPages(ctx)],
  nav: [{ group: 'Overview', key: 'dashboard', href: '/', label: 'Dashboard' }],
});
