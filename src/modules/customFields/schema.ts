import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { CUSTOM_FIELD_TYPES } from '../../platform/records/custom-field-values';
import { MODULES } from '../../platform/permissions/permissions';
import { stringEnum } from '../../platform/http/schema-helpers';
import { once } from '../../platform/core/once';

export const CUSTOM_FIELD_KEY = '^[a-z][a-zA-Z0-9_]{0,39}$';

const Options = t.Array(t.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 200, description: 'The choices of a singleSelect or multiSelect field: non-empty, no repeats; empty for other types',
});

const Label = t.String({ minLength: 1, maxLength: 120 });

export const CustomFieldUpdate = t.Object({
  label: t.Optional(Label),
  options: t.Optional(Options),
  required: t.Optional(t.Boolean()),
  position: t.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
}, { additionalProperties: false, minProperties: 1, description: 'Removing an option that records still hold is refused (409)' });
export type CustomFieldUpdate = Static<typeof CustomFieldUpdate>;

/**
 * The shapes naming a module take the installed permission areas (its enum), so they are made once the modules are
 * installed, when the routes are.
 */
export const customFieldSchemas = once(() => {
  const CustomFieldCreate = t.Object({
    module: stringEnum(MODULES, { description: 'The records that take the field: a module whose records take custom fields (risks, controls, policies, thirdParties, incidents, projects); any other is refused (400)' }),
    key: t.String({ pattern: CUSTOM_FIELD_KEY, description: 'The name in REST reads and writes; unique per module; cannot change' }),
    label: Label,
    type: stringEnum(CUSTOM_FIELD_TYPES, { description: 'Cannot change once created' }),
    options: t.Optional(Options),
    required: t.Optional(t.Boolean({ description: 'A new record must give a value; false when left out' })),
    position: t.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'Display order within the module (ascending)' })),
  }, { additionalProperties: false });
  const CustomFieldView = t.Object({
    id: t.String(),
    module: stringEnum(MODULES),
    key: t.String(),
    label: t.String(),
    type: stringEnum(CUSTOM_FIELD_TYPES),
    options: t.Array(t.String()),
    required: t.Boolean(),
    position: Type.Integer(),
    valueCount: Type.Integer({ description: 'How many records hold a value for this field' }),
    createdAt: t.String(),
    updatedAt: t.String(),
  });
  const CustomFieldListQuery = t.Object({
    module: t.Optional(stringEnum(MODULES)),
  });
  return { CustomFieldCreate, CustomFieldView, CustomFieldListQuery };
});
type CustomFieldSchemas = ReturnType<typeof customFieldSchemas>;
export type CustomFieldCreate = Static<CustomFieldSchemas['CustomFieldCreate']>;
export type CustomFieldView = Static<CustomFieldSchemas['CustomFieldView']>;
export type CustomFieldListQuery = Static<CustomFieldSchemas['CustomFieldListQuery']>;

export const CustomFieldDeleteQuery = t.Object({
  confirm: t.Optional(t.Boolean({ description: 'Required (true) when records hold values for the field; they are removed with it' })),
});
