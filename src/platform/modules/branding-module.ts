import { brandingPages } from '../branding/pages';
import { defineModule } from './module';

/** Settings › Branding (screens only): the organisation's name, logo and accent colour. */
export const brandingModule = defineModule({
  name: 'branding',
  plugins: (ctx) => [brandingPages(ctx)],
  nav: [{ group: 'Settings', key: 'branding', href: '/settings/branding', label: 'Branding', needs: 'settings:read', level: 'all' }],
});
