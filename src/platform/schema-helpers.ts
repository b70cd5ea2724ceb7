import { t } from 'elysia';
import type { SchemaOptions } from '@sinclair/typebox';

/** A string enum schema (`{ enum: [...] }` in OpenAPI) typed as the union of its values. */
export const stringEnum = <const T extends readonly string[]>(values: T, options?: SchemaOptions) =>
  t.UnionEnum(values as unknown as [T[number], ...T[number][]], options);
