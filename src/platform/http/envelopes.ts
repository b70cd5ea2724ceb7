import { t, type TSchema } from 'elysia';

/**
 * The schema with every object that does not say otherwise closed to undeclared properties (a copy; TypeBox's own
 * markers kept). Elysia no longer strips what a schema does not name (src/app.ts), so a response is checked to carry
 * exactly its documented fields: a field a handler should not send is a failed response, not a leak.
 */
export function exactly<T extends TSchema>(schema: T): T {
  // Object spread copies TypeBox's symbol-keyed markers (Kind, Optional) along with the keywords.
  const copy: TSchema = { ...schema };
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  if (copy.properties) copy.properties = Object.fromEntries(Object.entries(copy.properties as Record<string, TSchema>).map(([key, value]) => [key, exactly(value)]));
  if (copy.patternProperties) {
    copy.patternProperties = Object.fromEntries(Object.entries(copy.patternProperties as Record<string, TSchema>).map(([key, value]) => [key, exactly(value)]));
  }
  if (copy.items && !Array.isArray(copy.items)) copy.items = exactly(copy.items as TSchema);
  // Not allOf: closing each member of an intersection would refuse the other members' fields.
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(copy[key])) copy[key] = (copy[key] as TSchema[]).map(exactly);
  return copy as T;
}

/** Response shapes shared by every module, so the OpenAPI document describes them once. */
export const Data = <T extends TSchema>(schema: T) => exactly(t.Object({ data: schema }));
export const Created = exactly(t.Object({ data: t.Object({ id: t.String() }) }, { description: 'Created' }));
/** OpenAPI `responses` for a 204 delete (a null body schema would not be a valid OpenAPI media type). */
export const deletedResponses = { 204: { description: 'Deleted; no body' } } as const;
export const ErrorBody = t.Object({
  error: t.String(),
  problems: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }), { description: 'Invalid input: each field and its rule' })),
});
export const IdParam = t.Object({ id: t.String({ format: 'uuid', description: 'Record id' }) });

export const HistoryEntry = t.Object({
  at: t.String(),
  action: t.String(),
  via: t.String(),
  source: t.Union([t.String(), t.Null()]),
  actor: t.Union([t.String(), t.Null()]),
  tokenId: t.Union([t.String(), t.Null()]),
  changes: t.Record(t.String(), t.Object({ before: t.Unknown(), after: t.Unknown() })),
  auditSeq: t.Union([t.Integer(), t.Null()]),
});
export const HistoryList = Data(t.Array(HistoryEntry));
