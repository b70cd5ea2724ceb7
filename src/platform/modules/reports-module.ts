import { reportPages } from '../reports/pages';
import { schedulePages } from '../notifications/report-schedule-pages';
import { defineModule } from './module';

/** The Report Center at `/reports` (screens only: the specification gives it no REST equivalent). Its reports come from the modules' manifests. */
export const reportsModule = defineModule({
  name: 'reports',
  plugins: (ctx) => [schedulePages(ctx), reportPages(ctx)],
  nav: [
    { group: 'Overview', key: 'reports', href: '/reports', label: 'Reports' },
    { group: 'Settings', key: 'report-schedules', href: '/reports/schedules', label: 'Scheduled reports', needs: 'settings:read' },
  ],
});
