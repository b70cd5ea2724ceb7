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
