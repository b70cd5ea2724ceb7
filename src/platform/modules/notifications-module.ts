import { notificationPages } from '../notifications/pages';
import { defineModule } from './module';

/** Notification rules, reminders and mail: screens only (Settings stay off the REST API, docs/decisions.md). */
export const notificationsModule = defineModule({
  name: 'notifications',
  plugins: (ctx) => [notificationPages(ctx)],
  nav: [
    { group: 'Settings', key: 'notifications', href: '/settings/notifications', label: 'Notifications', needs: 'settings:read' },
    { group: 'Settings', key: 'mail', href: '/settings/mail', label: 'Mail', needs: 'settings:read', level: 'all' },
  ],
});
