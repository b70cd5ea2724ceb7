import { Elysia } from 'elysia';
import type { AppContext } from '../http/context';
import { renderScreen } from '../http/screen';
import { screenAuth } from '../http/screen-auth';
import { todayIso } from '../core/dates';
import { levelOf, type Actor } from '../permissions/permissions';
import { dashboardWidgets, sharedLoads } from './declarations';
import { DUE_SOON_DAYS, dueSoon } from './due-soon';
import { earliest, monthEnds, postureKindsFor, readAsOf, type PostureKind, type PostureTable } from './posture';
import { AsOfForm, Dashboard, DueSoonTable, PostureAsOf, PostureTrend, type WidgetView } from './views';

const AS_OF_HINT = 'A day from when History starts to today. The numbers are as they stood at the end of that day (UTC).';
export const TREND_PATH = '/dashboard/trend';

/** Every posture the viewer may read, at the ends of the twelve months up to `day`: one statement per posture, side by side. */
const trendsOf = (ctx: AppContext, viewer: Actor, kinds: PostureKind[], days: string[]): Promise<PostureTable[]> =>
  Promise.all(kinds.map((k) => k.at(ctx.db, viewer, days)));

/** The trend card's content: one table per posture. */
const Trends = ({ kinds, tables, days }: { kinds: PostureKind[]; tables: PostureTable[]; days: string[] }) => (
  <div id="trend">
    {kinds.map((k, i) => (
      <>
        <h3 safe>{k.title}</h3>
        <PostureTrend table={tables[i]} days={days} title={k.title} />
      </>
    ))}
  </div>
);

/**
 * The Dashboard at `/`, where signing in lands: every installed module's widgets the viewer holds the right for, and
 * one table of what comes due, gathered from the modules' due-soon declarations. Each widget counts with the viewer's
 * level, so a reader at level own sees the counts of their own records. With `?asOf=YYYY-MM-DD` it shows the posture
 * the modules declare as it stood at the end of that day, computed from History, and the twelve months up to it.
 */
export const dashboardPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:dashboard' })
    .use(screenAuth(ctx))
    .get('/', async ({ viewer, csrfToken, headers, query, set }) => {
      const today = todayIso();
      const kinds = postureKindsFor(viewer);
      const typed = typeof query.asOf === 'string' ? query.asOf : undefined;
      const asOf = typed?.trim() && kinds.length
        ? readAsOf(typed, earliest(await Promise.all(kinds.map((k) => k.firstEntry(ctx.db, viewer)))), today)
        : { day: null };
      const shell = { title: 'Dashboard', viewer, csrfToken, active: 'dashboard' };

      if ('day' in asOf && asOf.day) {
        const day = asOf.day;
        const days = monthEnds(day);
        const tables = await trendsOf(ctx, viewer, kinds, days);
        const widgets: WidgetView[] = [
          { key: 'asOf', title: 'Posture at a past date', width: 'wide', content: (
            <>
              <p safe>{`As it stood at the end of ${day} (UTC), computed from History. The heat map and what comes due show today only.`}</p>
              <AsOfForm action="/" typed={day} hint={AS_OF_HINT} />
              <p><a href="/">Back to today</a></p>
            </>
          ) },
          ...kinds.map((k, i): WidgetView => ({ key: `${k.key}AsOf`, title: `${k.title} on ${day}`, width: 'half', content: <PostureAsOf table={tables[i]} day={day} /> })),
          { key: 'trend', title: `The twelve months to ${day}`, width: 'wide', content: <Trends kinds={kinds} tables={tables} days={days} /> },
        ];
        return renderScreen(headers, shell, <Dashboard widgets={widgets} />);
      }

      const problem = 'problem' in asOf ? asOf : null;
      if (problem) set.status = 400;
      const shown = dashboardWidgets().filter((w) => levelOf(viewer, w.needs) !== null);
      const shared = sharedLoads();
      const [rendered, due] = await Promise.all([
        Promise.all(shown.map(async (w): Promise<WidgetView> => ({ key: w.key, title: w.title, width: w.width ?? 'half', content: await w.render(ctx, viewer, shared) }))),
        dueSoon(ctx.db, viewer, today),
      ]);
      const widgets = due.length
        ? [...rendered, { key: 'dueSoon', title: `Overdue and due in the next ${DUE_SOON_DAYS} days`, width: 'wide' as const, content: <DueSoonTable rows={due} today={today} /> }]
        : rendered;
      const past: WidgetView[] = kinds.length ? [
        { key: 'asOf', title: 'Posture at a past date', width: 'half', content: <AsOfForm action="/" typed={problem?.typed} error={problem?.problem} hint={AS_OF_HINT} /> },
        // The trend reads History at length: it comes after the page, so the page itself stays as fast as today's counts.
        { key: 'trend', title: 'The last twelve months', width: 'wide', content: (
          <div id="trend" hx-get={TREND_PATH} hx-trigger="load" hx-swap="outerHTML">
            <p><a href={TREND_PATH}>Show open risks and compliance at the end of each of the last twelve months</a></p>
          </div>
        ) },
      ] : [];
      // A refused date comes first, so its message is where the eye and the screen reader land.
      const ordered = problem ? [...past, ...widgets] : [...widgets, ...past];
      return renderScreen(headers, shell, <Dashboard widgets={ordered} />);
    }, { page: true })
    // The twelve-month trend up to today (loaded into the Dashboard by htmx; a page of its own without script).
    .get(TREND_PATH, async ({ viewer, csrfToken, headers }) => {
      const kinds = postureKindsFor(viewer);
      const days = monthEnds(todayIso());
      const tables = await trendsOf(ctx, viewer, kinds, days);
      const content = kinds.length ? <Trends kinds={kinds} tables={tables} days={days} /> : <p class="muted">Your roles show no posture to follow over time.</p>;
      return renderScreen(headers, { title: 'The last twelve months', viewer, csrfToken, active: 'dashboard' }, content);
    }, { page: true });
