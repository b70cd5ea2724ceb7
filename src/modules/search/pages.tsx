import { Elysia, t } from 'elysia';
import { renderScreen } from '../../platform/http/screen';
import type { AppContext } from '../../platform/http/context';
import { search } from '../../platform/search/search';
import { screenAuth } from '../../platform/http/screen-auth';
import { Results } from './views';

export const searchPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:search' })
    .use(screenAuth(ctx))
    .get('/search', async ({ viewer, csrfToken, headers, query }) => {
      const q = (query.q ?? '').trim().slice(0, 200);
      const hits = q ? await search(ctx.db, viewer, { q, limit: 50 }) : [];
      return renderScreen(headers, { title: q ? `Search: ${q}` : 'Search', viewer, csrfToken, active: 'search' }, (
        <>
          <form method="get" action="/search" role="search" class="filters">
            <label>Search <input type="search" name="q" value={q} maxlength="200" autofocus /></label>
            <button type="submit">Search</button>
          </form>
          <Results q={q} hits={hits} />
        </>
      ));
    }, { page: true, query: t.Object({ q: t.Optional(t.String()) }) });
