import { Elysia } from 'elysia';
import type { AppContext } from '../http/context';
import { renderScreen } from '../http/screen';
import { screenAuth } from '../http/screen-auth';
import { todayIso } from '../core/dates';
import { levelOf } from '../permissions/permissions';
import { dashboardWidgets, sharedLoads } from './declarations';
import { DUE_SOON_DAYS, dueSoon } from './due-soon';
import { Dashboard, DueSoonTable, type WidgetView } from './views';

/**
 * The Dashboard at `/`, where signing in lands: every installed module's widgets the viewer holds the right for, and
 * one table of what comes due, gathered from the modules' due-soon declarations. Each widget counts with the viewer's
 * level, so a reader at level own sees the counts of their own records.
 */
export const dashboardPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:dashboard' })
    .use(screenAuth(ctx))
    .get('/', async ({ viewer, csrfToken, headers }) => {
      const today = todayIso();
      const shown = dashboardWidgets().filter((w) => levelOf(viewer, w.needs) !== null);
      const shared = sharedLoads();
      const [rendered, due] = await Promise.all([
        Promise.all(shown.map(async (w): Promise<WidgetView> => ({ key: w.key, title: w.title, width: w.width ?? 'half', content: await w.render(ctx, viewer, shared) }))),
        dueSoon(ctx.db, viewer, today),
      ]);
      const widgets = due.length
        ? [...rendered, { key: 'dueSoon', title: `Overdue and due in the next ${DUE_SOON_DAYS} days`, width: 'wide' as const, content: <DueSoonTable rows={due} today={today} /> }]
        : rendered;
      return renderScreen(headers, { title: 'Dashboard', viewer, csrfToken, active: 'dashboard' }, <Dashboard widgets={widgets} />);
    }, { page: true });
