import { t } from 'elysia';
import type { SchemaOptions } from '@sinclair/typebox';

/**
 * A string enum schema (`{ enum: [...] }` in OpenAPI) typed as the union of its values.
 * Elysia's UnionEnum silently defaults to the first value, which would turn an absent filter into a filter;
 * a default is kept only when the caller asks for one.
 */
export const stringEnum = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) => {
  const schema = t.UnionEnum(values as unknown as [T[number], ...T[number][]], options);
  if (!('default' in options)) delete (schema as { default?: unknown }).default;
  return schema;
};
