import { reportPages } from '../reports/pages';
import { defineModule } from './module';

/** The Report Center at `/reports` (screens only: the specification gives it no REST equivalent). Its reports come from the modules' manifests. */
export const reportsModule = defineModule({
  name: 'reports',
  plugins: (ctx) => [reportPages(ctx)],
  nav: [{ group: 'Overview', key: 'reports', href: '/reports', label: 'Reports' }],
});
