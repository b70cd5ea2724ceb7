import { and, or, sql, type SQL } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { invalidField } from '../core/errors';
import { recordTypes, readPermission, type RecordTypeDeclaration } from '../records/record-types';
import { ownershipCondition } from '../permissions/ownership';
import { levelOf, type Actor, type Permission } from '../permissions/permissions';
import { escapeLike } from '../records/records';

/**
 * Search across the record types the manifests declare searchable (`search` on a record type): PostgreSQL full-text search over title (weight
 * A) and text (weight B) with `websearch_to_tsquery`, plus trigram matching on titles for codes and short names
 * ("AC-2", "ISO"), through the GIN indexes of db/migrations/0026_search.sql. Each source is filtered by the caller's
 * read right and own/all level in SQL, before the limit; snippets are made for the hits only.
 */

export interface SearchHit {
  kind: string;
  id: string;
  title: string;
  /** Text around the matched words, each match between `**`; the title when the text has no match. */
  snippet: string;
  rank: number;
  href: string;
}

/** A searchable record type as one query reads it. */
interface SearchSource {
  type: RecordTypeDeclaration;
  title: SQL;
  body: SQL;
  vector: SQL;
}

/** Every searchable record type, in module order (the results page groups by them). */
function searchSources(): SearchSource[] {
  return recordTypes().flatMap((type) => (type.search ? [{
    type,
    title: sql`${type.title}`,
    body: type.search.body ? sql`${type.search.body}` : sql`''`,
    vector: type.search.vector ?? sql`${type.table}.search_vector`,
  }] : []));
}

export const SEARCH_LIMIT = { default: 20, max: 50 };
const MARK_START = '\u{E000}';
const MARK_END = '\u{E001}';

function sourceQuery(source: SearchSource, actor: Actor, text: string): SQL {
  const vector = source.vector;
  const query = sql`websearch_to_tsquery('english', ${text})`;
  const { type } = source;
  const readable = ownershipCondition(actor, readPermission(type), type.ownerId, type.ownerGroupId);
  // The substring match runs on the title's trigram index, so codes and short names ("AC-2", "ISO") are found; the
  // similarity operator (%) is left out: for common words nearly every title shares trigrams with the query and
  // would be rechecked (0.8 s over 200,000 rows in the benchmark).
  const matches = or(sql`${vector} @@ ${query}`, sql`${source.title} ilike ${`%${escapeLike(text)}%`}`);
  const join = type.join ? sql` join ${type.join.table} on ${type.join.on}` : sql``;
  return sql`(select ${type.kind}::text as kind, ${type.id}::text as id, ${source.title} as title, ${source.body} as body,
    (ts_rank(${vector}, ${query}) * 2 + similarity(${source.title}, ${text}))::float8 as rank
    from ${type.table}${join} where ${and(matches, readable)})`;
}

/** Sources the actor may read, optionally only some kinds. */
function readableSources(actor: Actor, kinds?: readonly string[]): SearchSource[] {
  return searchSources().filter((s) => (!kinds?.length || kinds.includes(s.type.kind)) && levelOf(actor, readPermission(s.type)) !== null);
}

export interface SearchInput {
  q: string;
  limit?: number;
  kinds?: readonly string[];
}

/** The one statement a search runs (exported so the benchmark times exactly it); null when no register is readable. */
export function searchStatement(actor: Actor, input: SearchInput): SQL | null {
  const text = input.q.trim();
  if (!text) throw invalidField('q', 'must not be blank');
  const limit = Math.min(Math.max(input.limit ?? SEARCH_LIMIT.default, 1), SEARCH_LIMIT.max);
  const sources = readableSources(actor, input.kinds);
  if (sources.length === 0) return null;
  const union = sql.join(sources.map((source) => sourceQuery(source, actor, text)), sql` union all `);
  return sql`
    select kind, id, title, rank,
      ts_headline('english', case when body <> '' and to_tsvector('english', body) @@ websearch_to_tsquery('english', ${text}) then body else title end,
        websearch_to_tsquery('english', ${text}), ${`StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=30, MinWords=10, MaxFragments=1`}) as snippet
    from (${union}) hits order by rank desc, title, id limit ${limit}`;
}

export async function search(db: DbOrTx, actor: Actor, input: SearchInput): Promise<SearchHit[]> {
  const statement = searchStatement(actor, input);
  if (!statement) return [];
  const rows = await selectRows<{ kind: string; id: string; title: string; snippet: string; rank: number }>(db, statement);
  const hrefOf = new Map(searchSources().map((s) => [s.type.kind, s.type.href]));
  return rows.map((row) => ({
    kind: row.kind, id: row.id, title: row.title, rank: Number(Number(row.rank).toFixed(4)),
    snippet: row.snippet.replaceAll(MARK_START, '**').replaceAll(MARK_END, '**'),
    href: hrefOf.get(row.kind)!(row.id, null),
  }));
}

/** The search's kinds with their group labels, in manifest order (the results page groups by them). */
export const searchKinds = () => searchSources().map((s) => ({ kind: s.type.kind, label: s.type.plural }));

/** The read rights of the searchable record types: the search needs at least one. */
export const searchReads = (): Permission[] => [...new Set(searchSources().map((s) => readPermission(s.type)))];
