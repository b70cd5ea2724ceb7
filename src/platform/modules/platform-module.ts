import { sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { adminPages } from './admin-pages';
import type { AppContext } from '../http/context';
import { defineModule } from './module';

const healthRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'platform:health' }).get('/api/health', async ({ set }) => {
    try {
      await ctx.db.execute(sql`select 1`);
      return { status: 'ok' };
    } catch {
      set.status = 503;
      return { error: 'database unavailable' };
    }
  }, { detail: { tags: ['Platform'], summary: 'Health check (no token)' } });

/** The platform's own routes and screens: health, the Outbox and the Audit Log (administrators only). */
export const platformModule = defineModule({
  name: 'platform',
  plugins: (ctx) => [healthRoutes(ctx), adminPages(ctx)],
  nav: [
    { group: 'Settings', key: 'outbox', href: '/settings/outbox', label: 'Outbox', needs: 'settings:read', level: 'all' },
    { group: 'Settings', key: 'audit', href: '/settings/audit', label: 'Audit log', needs: 'settings:read', level: 'all' },
  ],
});
