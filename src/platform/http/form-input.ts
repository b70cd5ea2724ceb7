import type { TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import type { FieldProblem } from '../core/errors';

/** Every leaf message under a (possibly nested) union error. */
function leafMessages(error: ValueError): string[] {
  if (error.errors.length === 0) return [error.message];
  return error.errors.flatMap((branch) => [...branch].flatMap(leafMessages));
}

/** A union's own message says nothing; the useful one is a branch's that failed on a rule rather than on the type. */
function bestMessage(error: ValueError): string {
  const typeOnly = /^Expected (string|null|integer|number|boolean|object|array|union value)$/;
  const leaves = leafMessages(error);
  const message = leaves.find((m) => !typeOnly.test(m)) ?? leaves[0] ?? error.message;
  return message.replace(/^Expected/, 'expected');
}

/**
 * Checks a value built from a form (or a CSV row) against the same TypeBox schema the REST API validates with,
 * as field problems — one per field, so each shows next to its input.
 */
export function schemaProblems(schema: TSchema, value: unknown, rename: (field: string) => string = (f) => f): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const error of Value.Errors(schema, value)) {
    const field = rename(error.path.replace(/^\//, '').replaceAll('/', '.')) || '(record)';
    if (problems.some((p) => p.field === field)) continue;
    const blank = error.value === '' || error.value === null || error.value === undefined;
    problems.push({ field, message: blank ? 'is required' : bestMessage(error) });
  }
  return problems;
}
