import { t, type Static } from 'elysia';
import { CUSTOM_FIELD_TYPES } from '../../platform/records/custom-field-values';
import { MODULES } from '../../platform/permissions/permissions';
import { stringEnum } from '../../platform/http/schema-helpers';

export const CUSTOM_FIELD_KEY = '^[a-z][a-zA-Z0-9_]{0,39}$';

const Options = t.Array(t.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 200, description: 'The choices of a singleSelect or multiSelect field: non-empty, no repeats; empty for other types',
});

export const CustomFieldCreate = t.Object({
  module: stringEnum(MODULES, { description: 'The records that take the field: a module whose records take custom fields (risks, controls, policies, thirdParties, incidents, projects); any other is refused (400)' }),
  key: t.String({ pattern: CUSTOM_FIELD_KEY, description: 'The name in REST reads and writes; unique per module; cannot change' }),
  label: t.String({ minLength: 1, maxLength: 120 }),
  type: stringEnum(CUSTOM_FIELD_TYPES, { description: 'Cannot change once created' }),
  options: t.Optional(Options),
  required: t.Optional(t.Boolean({ description: 'A new record must give a value; false when left out' })),
  position: t.Optional(t.Integer({ minimum: 0, maximum: 10_000, description: 'Display order within the module (ascending)' })),
}, { additionalProperties: false });
export type CustomFieldCreate = Static<typeof CustomFieldCreate>;

export const CustomFieldUpdate = t.Object({
  label: t.Optional(CustomFieldCreate.properties.label),
  options: t.Optional(Options),
  required: t.Optional(t.Boolean()),
  position: t.Optional(t.Integer({ minimum: 0, maximum: 10_000 })),
}, { additionalProperties: false, minProperties: 1, description: 'Removing an option that records still hold is refused (409)' });
export type CustomFieldUpdate = Static<typeof CustomFieldUpdate>;

export const CustomFieldView = t.Object({
  id: t.String(),
  module: stringEnum(MODULES),
  key: t.String(),
  label: t.String(),
  type: stringEnum(CUSTOM_FIELD_TYPES),
  options: t.Array(t.String()),
  required: t.Boolean(),
  position: t.Integer(),
  valueCount: t.Integer({ description: 'How many records hold a value for this field' }),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type CustomFieldView = Static<typeof CustomFieldView>;

export const CustomFieldListQuery = t.Object({
  module: t.Optional(stringEnum(MODULES)),
});
export type CustomFieldListQuery = Static<typeof CustomFieldListQuery>;

export const CustomFieldDeleteQuery = t.Object({
  confirm: t.Optional(t.Boolean({ description: 'Required (true) when records hold values for the field; they are removed with it' })),
});
