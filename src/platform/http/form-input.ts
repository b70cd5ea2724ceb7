import type { TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { AppError, type FieldProblem } from '../core/errors';

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

/**
 * Runs a form submission; a refusal the user can fix (INVALID, CONFLICT, THROTTLED) comes back as
 * `{ error }` to re-render the form with it, anything else (403, 404, 500) propagates to the error page.
 */
export async function attempt<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: AppError }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    // A refusal of rights (deniedReason) goes on to the error handler, which writes it to the Audit Log.
    if (error instanceof AppError && !error.deniedReason && (error.code === 'INVALID' || error.code === 'CONFLICT' || error.code === 'THROTTLED')) {
      return { ok: false, error };
    }
    throw error;
  }
}

/** A urlencoded or multipart form body as Elysia parses it: a repeated name becomes an array. */
const fieldOf = (body: unknown, name: string): unknown =>
  body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;

export function formText(body: unknown, name: string): string {
  const value = fieldOf(body, name);
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

export function formList(body: unknown, name: string): string[] {
  const value = fieldOf(body, name);
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');
}
