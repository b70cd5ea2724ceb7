import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { CustomFieldsInput, CustomFieldsView } from '../../platform/records/custom-field-values';
import { listQuery } from '../../platform/http/paging';
import { NameListInput } from '../../platform/name-lists/name-list';
import { stringEnum } from '../../platform/http/schema-helpers';
import { queryInteger } from '../../platform/http/strict-input';
import { exampleOwnership, IsoDate, NullableDate } from '../../platform/records/record-schema';

export const RISK_STATUSES = ['open', 'closed', 'archived'] as const;
export const RiskStatus = stringEnum(RISK_STATUSES);

/** A level on the risk scale, given by its value (1) or its name ("Rare"). */
export const LevelRef = t.Union([Type.Integer(), t.String({ minLength: 1, maxLength: 100 })], {
  description: "A level's value or its name, as defined in Risk Settings",
});
const Uuid = t.String({ format: 'uuid' });
const NullableUuid = t.Union([Uuid, t.Null()]);

const riskFields = {
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.String({ maxLength: 100_000 }),
  classificationId: Uuid,
  inherentLikelihood: LevelRef,
  inherentImpact: LevelRef,
  residualLikelihood: t.Union([LevelRef, t.Null()], { description: 'Never above the inherent likelihood' }),
  residualImpact: t.Union([LevelRef, t.Null()], { description: 'Never above the inherent impact' }),
  ownerId: NullableUuid,
  ownerGroupId: NullableUuid,
  reviewFrequencyMonths: Type.Integer({ minimum: 1, maximum: 120, description: '1 to 120; 12 when blank' }),
  status: RiskStatus,
  assetId: NullableUuid,
  businessUnitId: NullableUuid,
};

export const RiskCreate = t.Object({
  title: riskFields.title,
  description: t.Optional(riskFields.description),
  classificationId: riskFields.classificationId,
  inherentLikelihood: riskFields.inherentLikelihood,
  inherentImpact: riskFields.inherentImpact,
  residualLikelihood: t.Optional(riskFields.residualLikelihood),
  residualImpact: t.Optional(riskFields.residualImpact),
  ownerId: t.Optional(riskFields.ownerId),
  ownerGroupId: t.Optional(riskFields.ownerGroupId),
  reviewFrequencyMonths: t.Optional(riskFields.reviewFrequencyMonths),
  status: t.Optional(riskFields.status),
  assetId: t.Optional(riskFields.assetId),
  businessUnitId: t.Optional(riskFields.businessUnitId),
  customFields: t.Optional(CustomFieldsInput),
}, { additionalProperties: false });
export type RiskCreate = Static<typeof RiskCreate>;

export const RiskUpdate = t.Partial(RiskCreate, { additionalProperties: false, minProperties: 1 });
export type RiskUpdate = Static<typeof RiskUpdate>;

const Level = t.Object({ value: Type.Integer(), name: t.String() });
const Band = t.Union([t.Object({ name: t.String(), color: t.String() }), t.Null()]);

export const RiskView = t.Object({
  id: t.String(),
  title: t.String(),
  description: t.String(),
  classification: t.Object({ id: t.String(), name: t.String() }),
  inherentLikelihood: Level,
  inherentImpact: Level,
  inherentScore: t.Union([Type.Integer(), t.Null()]),
  inherentBand: Band,
  residualLikelihood: t.Union([Level, t.Null()]),
  residualImpact: t.Union([Level, t.Null()]),
  residualScore: t.Union([Type.Integer(), t.Null()]),
  residualBand: Band,
  owner: t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]),
  ownerGroup: t.Union([t.Object({ id: t.String(), name: t.String() }), t.Null()]),
  reviewFrequencyMonths: Type.Integer(),
  status: RiskStatus,
  assetId: t.Union([t.String(), t.Null()]),
  businessUnitId: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  updatedAt: t.String(),
  customFields: t.Optional(CustomFieldsView),
});
export type RiskView = Static<typeof RiskView>;

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const riskExamples = {
  create: {
    title: 'R-12 Ransomware encrypts the file servers',
    description: 'Malware arriving by phishing encrypts the shared drives; recovery depends on the offline backups.',
    classificationId: '5d2e8f41-7c3b-4a9e-8f10-2b6c4d8e0a13',
    inherentLikelihood: 4,
    inherentImpact: 'Major',
    reviewFrequencyMonths: 6,
  } satisfies RiskCreate,
  row: {
    id: '9a4e2c17-5b3d-4f8a-a1c6-7e2d9b0f3c58',
    title: 'R-12 Ransomware encrypts the file servers',
    description: 'Malware arriving by phishing encrypts the shared drives; recovery depends on the offline backups.',
    classification: { id: '5d2e8f41-7c3b-4a9e-8f10-2b6c4d8e0a13', name: 'Information security' },
    inherentLikelihood: { value: 4, name: 'Likely' },
    inherentImpact: { value: 4, name: 'Major' },
    inherentScore: 16,
    inherentBand: { name: 'High', color: '#ef6c00' },
    residualLikelihood: { value: 2, name: 'Unlikely' },
    residualImpact: { value: 3, name: 'Moderate' },
    residualScore: 6,
    residualBand: { name: 'Medium', color: '#f9a825' },
    owner: exampleOwnership.owner,
    ownerGroup: null,
    reviewFrequencyMonths: 6,
    status: 'open',
    assetId: null,
    businessUnitId: null,
    createdAt: exampleOwnership.createdAt,
    updatedAt: exampleOwnership.updatedAt,
    customFields: {},
  } satisfies RiskView,
};

export const RISK_SORTS = ['title', 'classification', 'status', 'inherentScore', 'residualScore', 'owner', 'createdAt', 'updatedAt'] as const;
const levelFilter = (what: string) => t.Optional(queryInteger({ minimum: 0, maximum: 1000, description: `Risks whose ${what} is this level's value; a value not on the scale is refused (400)` }));
const bandFilter = (what: string) => t.Optional(t.String({ minLength: 1, maxLength: 60, description: `Risks whose ${what} score falls in the appetite band of this name; a band that does not exist is refused (400)` }));
export const RiskListQuery = listQuery(RISK_SORTS, {
  status: t.Optional(RiskStatus),
  classificationId: t.Optional(Uuid),
  ownerId: t.Optional(Uuid),
  ownerGroupId: t.Optional(Uuid),
  inherentLikelihood: levelFilter('inherent likelihood'),
  inherentImpact: levelFilter('inherent impact'),
  residualLikelihood: levelFilter('residual likelihood'),
  residualImpact: levelFilter('residual impact'),
  inherentBand: bandFilter('inherent'),
  residualBand: bandFilter('residual'),
});
export type RiskListQuery = Static<typeof RiskListQuery>;

// Risk settings: classifications and the scale.
/** A classification's body: the name list kit's (src/platform/name-lists), also read by the bundle loader. */
export const ClassificationInput = NameListInput;
export type ClassificationInput = NameListInput;

const LevelInput = t.Object({
  value: Type.Integer({ minimum: 1, maximum: 100 }),
  name: t.String({ minLength: 1, maxLength: 100 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
});
export const RiskScale = t.Object({
  likelihood: t.Array(LevelInput, { minItems: 1, maxItems: 20 }),
  impact: t.Array(LevelInput, { minItems: 1, maxItems: 20 }),
  cells: t.Array(t.Object({ likelihood: Type.Integer(), impact: Type.Integer(), score: Type.Integer({ minimum: 0, maximum: 10_000 }) })),
  bands: t.Array(t.Object({
    name: t.String({ minLength: 1, maxLength: 60 }),
    minScore: Type.Integer({ minimum: 0 }),
    maxScore: Type.Integer({ minimum: 0 }),
    color: t.Optional(t.String({ pattern: '^#[0-9a-fA-F]{6}$' })),
  })),
}, { additionalProperties: false });
export type RiskScale = Static<typeof RiskScale>;

/** The scale as stored; it is also a valid PUT body, so a client can read, change and write it back. */
export const RiskScaleView = t.Object({
  likelihood: t.Array(t.Object({ value: Type.Integer(), name: t.String(), description: t.String() })),
  impact: t.Array(t.Object({ value: Type.Integer(), name: t.String(), description: t.String() })),
  cells: t.Array(t.Object({ likelihood: Type.Integer(), impact: Type.Integer(), score: Type.Integer() })),
  bands: t.Array(t.Object({ name: t.String(), minScore: Type.Integer(), maxScore: Type.Integer(), color: t.String() })),
});
export type RiskScaleView = Static<typeof RiskScaleView>;

/* ---------- Treatments and reviews ---------- */

export const TREATMENT_TYPES = ['mitigate', 'accept', 'transfer', 'avoid'] as const;
export const TREATMENT_STATUSES = ['planned', 'implemented'] as const;
export const REVIEW_OUTCOMES = ['no_change', 'changed', 'escalated'] as const;

export const TreatmentCreate = t.Object({
  type: stringEnum(TREATMENT_TYPES),
  status: t.Optional(stringEnum(TREATMENT_STATUSES, { description: 'Blank gives planned' })),
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  dueOn: t.Optional(NullableDate),
  residualLikelihood: t.Optional(t.Union([LevelRef, t.Null()], { description: 'Mitigate only; never above the risk\'s inherent likelihood' })),
  residualImpact: t.Optional(t.Union([LevelRef, t.Null()], { description: 'Mitigate only; never above the risk\'s inherent impact' })),
  controlIds: t.Optional(t.Array(Uuid, {
    maxItems: 500, description: 'Mitigate only. Replaces the links to controls you can read (needs controls:read on each)',
  })),
}, { additionalProperties: false });
export type TreatmentCreate = Static<typeof TreatmentCreate>;
export const TreatmentUpdate = t.Partial(TreatmentCreate, { additionalProperties: false, minProperties: 1 });
export type TreatmentUpdate = Static<typeof TreatmentUpdate>;

export const TreatmentView = t.Object({
  id: t.String(),
  riskId: t.String(),
  type: stringEnum(TREATMENT_TYPES),
  status: stringEnum(TREATMENT_STATUSES),
  title: t.String(),
  description: t.String(),
  dueOn: t.Union([t.String(), t.Null()]),
  residualLikelihood: t.Union([Level, t.Null()]),
  residualImpact: t.Union([Level, t.Null()]),
  controls: t.Array(t.Object({ id: t.String(), name: t.String() }), { description: 'Linked controls you can read' }),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type TreatmentView = Static<typeof TreatmentView>;

export const ReviewCreate = t.Object({
  reviewedOn: IsoDate,
  outcome: stringEnum(REVIEW_OUTCOMES),
  notes: t.Optional(t.String({ maxLength: 100_000 })),
  reviewerId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An active user; defaults to you' })),
}, { additionalProperties: false });
export type ReviewCreate = Static<typeof ReviewCreate>;

export const RiskReviews = t.Object({
  frequencyMonths: Type.Integer(),
  lastReviewedOn: t.Union([t.String(), t.Null()]),
  nextReviewDue: t.String({ description: 'Last review plus the review frequency; the creation date plus the frequency when never reviewed' }),
  overdue: t.Boolean(),
  reviews: t.Array(t.Object({
    id: t.String(),
    reviewer: t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]),
    reviewedOn: t.String(),
    outcome: stringEnum(REVIEW_OUTCOMES),
    notes: t.String(),
    createdAt: t.String(),
  })),
});
export type RiskReviews = Static<typeof RiskReviews>;
