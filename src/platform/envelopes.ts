import { t, type TSchema } from 'elysia';

/** Response shapes shared by every module, so the OpenAPI document describes them once. */
export const Data = <T extends TSchema>(schema: T) => t.Object({ data: schema });
export const Created = t.Object({ data: t.Object({ id: t.String() }) }, { description: 'Created' });
/** OpenAPI `responses` for a 204 delete (a null body schema would not be a valid OpenAPI media type). */
export const deletedResponses = { 204: { description: 'Deleted; no body' } } as const;
export const ErrorBody = t.Object({ error: t.String() });
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
