import { t } from 'elysia';
import type { TProperties, TSchema } from '@sinclair/typebox';
import { listQuery } from './paging';
import { stringEnum } from './schema-helpers';

/** Shapes every owned record shares, so each module's schema.ts states only its own fields. */
export const Uuid = t.String({ format: 'uuid' });
export const NullableUuid = t.Union([Uuid, t.Null()]);
export const IsoDate = t.String({ format: 'date', description: 'YYYY-MM-DD' });
export const NullableDate = t.Union([IsoDate, t.Null()]);

export const ownerInput = {
  ownerId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An active user; defaults to the creator when owner and group are both left out' })),
  ownerGroupId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An existing group' })),
};

export const ownerView = {
  ownerId: t.Union([t.String(), t.Null()]),
  ownerGroupId: t.Union([t.String(), t.Null()]),
  owner: t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]),
  ownerGroup: t.Union([t.Object({ id: t.String(), name: t.String() }), t.Null()]),
};

/** A record's read shape: its fields, id, owner and timestamps. */
export const recordView = <P extends TProperties>(fields: P) =>
  t.Object({ id: t.String(), ...fields, ...ownerView, createdAt: t.String(), updatedAt: t.String() });

/** The create shape (strict) and the update shape (every field optional, at least one). */
export function recordInputs<P extends TProperties>(fields: P) {
  const Create = t.Object({ ...fields, ...ownerInput }, { additionalProperties: false });
  const Update = t.Partial(Create, { additionalProperties: false, minProperties: 1 });
  return { Create, Update };
}

/** A list query with the standard filters: status (when the record has one), owner and owner group, text, sort. */
export function recordListQuery<const S extends readonly string[], F extends Record<string, TSchema>>(
  sortable: S, statuses: readonly string[] | null, extra: F = {} as F,
) {
  return listQuery(sortable, {
    ...(statuses ? { status: t.Optional(stringEnum(statuses)) } : {}),
    ownerId: t.Optional(Uuid),
    ownerGroupId: t.Optional(Uuid),
    ...extra,
  });
}
