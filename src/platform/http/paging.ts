import { t, type Static, type TSchema } from 'elysia';
import { stringEnum } from './schema-helpers';
import { exactly } from './envelopes';
import { asc, desc, type AnyColumn, type SQL } from 'drizzle-orm';

/** Paging as the spec fixes it: page from 1, pageSize default 25 and at most 200; anything else is a 400, never clamped. */
export const PageQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1' })),
  pageSize: t.Optional(t.Integer({ minimum: 1, maximum: 200, default: 25, description: 'Rows per page, 1 to 200' })),
});

/** A list query: paging + a whitelisted sort ("field" or "-field") + text search + status and owner filters. */
export function listQuery<const S extends readonly string[], F extends Record<string, TSchema>>(sortable: S, filters: F) {
  const sorts = sortable.flatMap((s) => [s, `-${s}`]);
  return t.Object({
    ...PageQuery.properties,
    sort: t.Optional(stringEnum(sorts, { description: `One of ${sortable.join(', ')}; prefix - for descending` })),
    q: t.Optional(t.String({ maxLength: 200, description: 'Text search on title or name' })),
    ...filters,
  });
}

export interface Page<T> {
  rows: T[];
  total: number;
  page: number;
  pageSize: number;
}

/**
 * The response of a list. It documents the rows in the OpenAPI document like any response, but Elysia does not
 * re-check every row of every page at runtime (t.NoValidate): for 200 rows that check cost more than the page's
 * query. The rows come from the same typed views the single-record routes return, and those routes still check
 * them; normalisation still runs, so a list never sends a property its schema does not declare.
 * See docs/decisions.md, "List responses are documented, not re-validated".
 */
export function pageEnvelope<T extends TSchema>(row: T) {
  const envelope = exactly(t.Object({ data: t.Object({ rows: t.Array(row), total: t.Integer(), page: t.Integer(), pageSize: t.Integer() }) }));
  // t.NoValidate marks the schema with an enumerable `noValidate: true`, which the OpenAPI plugin would copy into the
  // document as an unknown keyword; Elysia only reads the flag, so keep it and hide it from serialisation.
  Object.defineProperty(t.NoValidate(envelope), 'noValidate', { value: true, enumerable: false });
  return envelope;
}

export function paging(query: { page?: number; pageSize?: number }) {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 25;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** ORDER BY for a whitelisted sort key, with the id as tie-breaker so pages never overlap. */
export function orderBy(sort: string | undefined, columns: Record<string, AnyColumn | SQL>, fallback: SQL[], id: AnyColumn): SQL[] {
  if (!sort) return fallback;
  const descending = sort.startsWith('-');
  const column = columns[descending ? sort.slice(1) : sort];
  if (!column) return fallback;
  return [descending ? desc(column) : asc(column), descending ? desc(id) : asc(id)];
}

export type ListQueryOf<S extends ReturnType<typeof listQuery>> = Static<S>;
