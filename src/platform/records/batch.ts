import { t, type TSchema } from 'elysia';
import { AppError, type FieldProblem } from '../core/errors';
import { Data } from '../http/envelopes';
import type { BatchOutcome } from './records';

/**
 * Batch operations on the REST API (`POST /api/v1/<register>/batch` and the like): many records in one request and
 * one transaction, each with the rules of its single-record operation and its own Audit Log and History entry.
 * An item that is refused is answered with its problems and the others are written: the answer lists one result
 * per item, in order. A body that does not match the schema is refused whole (400), as for any operation.
 * They exist for bulk clients (the bundle loader): one write transaction per record costs a commit each.
 */

/** At most this many items per request. */
export const BATCH_MAX_ITEMS = 500;

export const batchOf = <T extends TSchema>(item: T, description: string) => t.Object({
  items: t.Array(item, { minItems: 1, maxItems: BATCH_MAX_ITEMS, description: `1 to ${BATCH_MAX_ITEMS} items. ${description}` }),
}, { additionalProperties: false });

const Written = t.Object({
  id: t.String({ description: 'The record written (or found as it was)' }),
  changed: t.Boolean({ description: 'false when the item changed nothing (an update to the same values, a mapping already there)' }),
});
const Refused = t.Object({
  error: t.String({ description: 'Why the item was refused, as the single-record operation would say it' }),
  problems: t.Array(t.Object({ field: t.String(), message: t.String() })),
});
export const BatchResults = Data(t.Object({
  results: t.Array(t.Union([Written, Refused]), { description: 'One result per item, in the order of the items' }),
}));

export type BatchResult = { id: string; changed: boolean } | { error: string; problems: FieldProblem[] };

/** The record as a whole (not found, not allowed) is named '(record)' in a problem; its message then stands alone. */
export const refusedResult = (problems: FieldProblem[]): BatchResult => ({
  error: problems.map((p) => (p.field && p.field !== '(record)' ? `${p.field}: ${p.message}` : p.message)).join('; '), problems,
});

export const resultOf = (outcome: BatchOutcome): BatchResult =>
  outcome.ok ? { id: outcome.id, changed: outcome.changed } : refusedResult(outcome.problems);

/** An item's refusal from an AppError its rules threw (not found, not allowed, invalid); anything else is rethrown. */
export function refusalOf(error: unknown): BatchResult {
  if (!(error instanceof AppError)) throw error;
  if (error.problems.length) return refusedResult(error.problems);
  const message = error.code === 'FORBIDDEN' ? `not allowed: ${error.deniedReason ?? error.message}` : error.message;
  return { error: message, problems: [{ field: '(record)', message }] };
}
