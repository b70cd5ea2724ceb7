import { Elysia } from 'elysia';
import { FormatRegistry } from '@sinclair/typebox';
import { invalid } from '../core/errors';

/**
 * Query values are read as written, never guessed (README, REST API). Elysia reads an integer query
 * parameter with JavaScript's Number(), which takes `0x10` as 16, `1e1` as 10 and ` 25` as 25; these formats back its
 * query coercion and accept plain decimal digits only, so `page=0x10` and `pageSize= 25` are refused with 400.
 */
const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]{0,15})$/;
const DECIMAL_NUMBER = /^-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,15})?$/;
FormatRegistry.Set('integer', (value) => DECIMAL_INTEGER.test(value));
FormatRegistry.Set('numeric', (value) => DECIMAL_NUMBER.test(value));

/** The query parameters of `url` given more than once that the route reads as a single value. */
export function repeatedParameters(url: string, query: Record<string, unknown>): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const [key] of new URL(url).searchParams) {
    if (seen.has(key) && !Array.isArray(query[key])) repeated.add(key);
    seen.add(key);
  }
  return [...repeated];
}

/**
 * A REST parameter given twice (`page=1&page=2`) is refused instead of one of them being picked silently. Checked
 * after the token (the authorising hooks run first), before the handler.
 */
export const strictQuery = () =>
  new Elysia({ name: 'platform:strict-query' }).onBeforeHandle({ as: 'global' }, ({ request, path, query }) => {
    if (!path.startsWith('/api/') || !request.url.includes('?')) return;
    const repeated = repeatedParameters(request.url, query);
    if (repeated.length) throw invalid(repeated.map((field) => ({ field, message: 'given more than once' })));
  });
