import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { exampleOwnership, IsoDate, NullableUuid, recordInputs, recordListQuery, recordView } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';

export const CONTROL_TYPES = ['policy', 'process', 'technical', 'physical', 'other'] as const;
export const CONTROL_STATUSES = ['planned', 'active', 'retired'] as const;
export const TEST_RESULTS = ['pass', 'fail', 'partial'] as const;

const controlFields = {
  name: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  type: t.Optional(stringEnum(CONTROL_TYPES, { description: 'Blank gives process' })),
  status: t.Optional(stringEnum(CONTROL_STATUSES, { description: 'Blank gives active' })),
  testFrequencyMonths: t.Optional(t.Union([Type.Integer({ minimum: 1, maximum: 120 }), t.Null()], { description: 'Testing schedule: months between tests' })),
};
export const { Create: ControlCreate, Update: ControlUpdate } = recordInputs(controlFields, { customFields: true });
export type ControlCreate = Static<typeof ControlCreate>;
export type ControlUpdate = Static<typeof ControlUpdate>;

export const ControlView = recordView({
  name: t.String(),
  description: t.String(),
  type: stringEnum(CONTROL_TYPES),
  status: stringEnum(CONTROL_STATUSES),
  testFrequencyMonths: t.Union([Type.Integer(), t.Null()]),
  createdBy: t.Union([t.String(), t.Null()]),
}, { customFields: true });

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const controlExamples = {
  create: { name: 'AC-2 Account management', description: 'Accounts are requested, approved, reviewed quarterly and removed on leaving.', type: 'process', status: 'active', testFrequencyMonths: 3 } satisfies ControlCreate,
  row: {
    id: '3e7b1d92-4a6c-4f0e-b5d8-1c9a2e6f4b07', name: 'AC-2 Account management', description: 'Accounts are requested, approved, reviewed quarterly and removed on leaving.',
    type: 'process', status: 'active', testFrequencyMonths: 3, createdBy: exampleOwnership.ownerId, ...exampleOwnership, customFields: {},
  } satisfies Static<typeof ControlView>,
};

export const CONTROL_SORTS = ['name', 'type', 'status', 'owner', 'createdAt', 'updatedAt'] as const;
export const ControlListQuery = recordListQuery(CONTROL_SORTS, CONTROL_STATUSES, { type: t.Optional(stringEnum(CONTROL_TYPES)) });

export const ControlTestCreate = t.Object({
  testedOn: IsoDate,
  result: stringEnum(TEST_RESULTS),
  notes: t.Optional(t.String({ maxLength: 100_000 })),
  testerId: t.Optional(NullableUuid),
}, { additionalProperties: false });
export type ControlTestCreate = Static<typeof ControlTestCreate>;

export const ControlTestView = t.Object({
  id: t.String(),
  controlId: t.String(),
  testedOn: t.String(),
  result: stringEnum(TEST_RESULTS),
  notes: t.String(),
  testerId: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
});
export const ControlTesting = t.Object({
  frequencyMonths: t.Union([Type.Integer(), t.Null()]),
  lastTestedOn: t.Union([t.String(), t.Null()]),
  nextTestDue: t.Union([t.String({ description: 'Last test plus the frequency; today when never tested' }), t.Null()]),
  tests: t.Array(ControlTestView),
});
export type ControlTesting = Static<typeof ControlTesting>;
