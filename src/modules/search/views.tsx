import { searchKinds, type SearchHit } from '../../platform/search/search';

/** A snippet's matches (between **) as <mark>, everything else escaped. */
function Snippet({ text }: { text: string }): JSX.Element {
  const parts = text.split('**');
  return <p class="snippet">{parts.map((part, i) => (i % 2 === 1 ? <mark safe>{part}</mark> : <span safe>{part}</span>))}</p>;
}

export function Results({ q, hits }: { q: string; hits: SearchHit[] }): JSX.Element {
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
