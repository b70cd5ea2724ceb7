import { t } from 'elysia';
import type { TOptional, TProperties, TSchema } from '@sinclair/typebox';
import { CustomFieldsInput, CustomFieldsView } from './custom-field-values';
import { listQuery } from '../http/paging';
import { stringEnum } from '../http/schema-helpers';

/** Shapes every owned record shares, so each module's schema.ts states only its own fields. */
export const Uuid = t.String({ format: 'uuid' });
export const NullableUuid = t.Union([Uuid, t.Null()]);
export const IsoDate = t.String({ format: 'date', description: 'YYYY-MM-DD' });
export const NullableDate = t.Union([IsoDate, t.Null()]);

/**
 * The shapes of a register carrying labels (its kind's `labels`, records/labels.ts): `labelIds` on writes, `labelIds`
 * and `labels` (the names) on reads, `label` on its list query.
 */
export const labelInput = {
  labelIds: t.Optional(t.Array(Uuid, {
    maxItems: 50, uniqueItems: true, description: 'Labels (GET /api/v1/labels); an id naming no label is a 400 naming labelIds',
  })),
};
export const labelView = {
  labelIds: t.Array(t.String(), { description: 'Labels (Settings › Labels)' }),
  labels: t.Array(t.String(), { description: 'The labels by name, in name order' }),
};
export const labelQuery = { label: t.Optional(t.String({ format: 'uuid', description: 'Only the records carrying this label' })) };

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

/** The owner and timestamps of an example row in the OpenAPI document (RecordApiOptions.examples). */
export const exampleOwnership = {
  ownerId: '0b6f7d0e-3c1a-4b7e-9d2f-5a8c1e4b7d20',
  ownerGroupId: null,
  owner: { id: '0b6f7d0e-3c1a-4b7e-9d2f-5a8c1e4b7d20', name: 'Dana Whitfield', email: 'dana.whitfield@example.com' },
  ownerGroup: null,
  createdAt: '2026-11-02T09:14:03.512Z',
  updatedAt: '2026-11-20T16:40:11.078Z',
};

/** Options of the shared shapes: `customFields` adds the record's custom field values (pair with RecordKind.customFields). */
export interface RecordShapeOptions<C extends boolean = boolean> {
  customFields?: C;
}
type CustomInputProps<C extends boolean> = C extends true ? { customFields: TOptional<typeof CustomFieldsInput> } : {};
type CustomViewProps<C extends boolean> = C extends true ? { customFields: typeof CustomFieldsView } : {};

/** A record's read shape: its fields, id, owner and timestamps (and custom field values, when the module takes them). */
export const recordView = <P extends TProperties, C extends boolean = false>(fields: P, options: RecordShapeOptions<C> = {}) => {
  const custom = (options.customFields ? { customFields: CustomFieldsView } : {}) as CustomViewProps<C>;
  return t.Object({ id: t.String(), ...fields, ...ownerView, createdAt: t.String(), updatedAt: t.String(), ...custom });
};

/** The create shape (strict) and the update shape (every field optional, at least one). */
export function recordInputs<P extends TProperties, C extends boolean = false>(fields: P, options: RecordShapeOptions<C> = {}) {
  const custom = (options.customFields ? { customFields: t.Optional(CustomFieldsInput) } : {}) as CustomInputProps<C>;
  const Create = t.Object({ ...fields, ...ownerInput, ...custom }, { additionalProperties: false });
  const Update = t.Partial(Create, { additionalProperties: false, minProperties: 1 });
  return { Create, Update };
}

/** A list query with the standard filters: status (when the record has one), owner and owner group, text, sort. */
export function recordListQuery<const S extends readonly string[], F extends Record<string, TSchema> = Record<never, TSchema>>(
  sortable: S, statuses: readonly string[] | null, extra: F = {} as F,
) {
  return listQuery(sortable, {
    ...(statuses ? { status: t.Optional(stringEnum(statuses)) } : {}),
    ownerId: t.Optional(Uuid),
    ownerGroupId: t.Optional(Uuid),
    ...extra,
  });
}
