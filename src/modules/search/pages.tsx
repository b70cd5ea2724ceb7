import { Elysia, t } from 'elysia';
import { renderScreen } from '../../../views/layout';
import type { AppContext } from '../../platform/context';
import { search, searchKinds, type SearchHit } from '../../platform/search';
import { screenAuth } from '../../platform/screen-auth';

/** A snippet's matches (between **) as <mark>, everything else escaped. */
function Snippet({ text }: { text: string }): JSX.Element {
  const parts = text.split('**');
  return <p class="snippet">{parts.map((part, i) => (i % 2 === 1 ? <mark safe>{part}</mark> : <span safe>{part}</span>))}</p>;
}

function Results({ q, hits }: { q: string; hits: SearchHit[] }): JSX.Element {
  if (!q) return <p class="muted">Type words, a code such as AC-2, or part of a title.</p>;
  if (!hits.length) return <p safe>{`Nothing you may read matches "${q}".`}</p>;
  const groups = searchKinds().map((k) => ({ ...k, hits: hits.filter((h) => h.kind === k.kind) })).filter((g) => g.hits.length);
  return (
    <>
      {groups.map((group) => (
        <section class="search-group">
          <h2 safe>{`${group.label} (${group.hits.length})`}</h2>
          <ul class="search-results">
            {group.hits.map((hit) => <li><a href={hit.href} safe>{hit.title}</a><Snippet text={hit.snippet} /></li>)}
          </ul>
        </section>
      ))}
    </>
  );
}

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
