import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { exactly } from '../../platform/http/envelopes';
import { exampleOwnership, IsoDate, NullableUuid, recordInputs, recordListQuery, recordView } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';

export const POLICY_STATUSES = ['draft', 'published'] as const;
export const REVIEW_OUTCOMES = ['no_changes', 'changes_required'] as const;
export const DEFAULT_REVIEW_FREQUENCY_MONTHS = 12;
export const MAX_CONTENT_LENGTH = 100_000;

const policyFields = {
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  reviewFrequencyMonths: t.Optional(t.Union([Type.Integer({ minimum: 1, maximum: 120 }), t.Null()], {
    description: 'Months between reviews, 1 to 120; blank (null or left out) gives 12',
  })),
};
/** Content and status are not here: content has its own path (PUT /:id/content) and only publishing sets the status. */
export const { Create: PolicyCreate, Update: PolicyUpdate } = recordInputs(policyFields, { customFields: true });
export type PolicyCreate = Static<typeof PolicyCreate>;
export type PolicyUpdate = Static<typeof PolicyUpdate>;

/** A batch item (POST/PATCH /api/v1/policies/batch): the record's fields and, unlike the single create, its draft content. */
export const PolicyBatchCreate = t.Object({
  ...PolicyCreate.properties,
  content: t.Optional(t.String({ maxLength: MAX_CONTENT_LENGTH, description: 'The draft content (Markdown), as PUT /{id}/content sets it' })),
}, { additionalProperties: false });
export const PolicyBatchUpdate = t.Partial(PolicyBatchCreate, { additionalProperties: false, minProperties: 1 });

export const PolicyView = recordView({
  title: t.String(),
  description: t.String(),
  content: t.String({ description: 'The draft content (Markdown); the next publication carries it' }),
  reviewFrequencyMonths: Type.Integer(),
  status: stringEnum(POLICY_STATUSES),
  currentVersion: t.Union([Type.Integer(), t.Null()], { description: 'Number of the latest published version' }),
  createdBy: t.Union([t.String(), t.Null()]),
}, { customFields: true });
export type PolicyView = Static<typeof PolicyView>;

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const policyExamples = {
  create: { title: 'Information security policy', description: 'Management direction for information security.', reviewFrequencyMonths: 12 } satisfies PolicyCreate,
  row: {
    id: '7c2a9e50-1d4b-4e8f-9a3c-6b0d2f8e5a14', title: 'Information security policy', description: 'Management direction for information security.',
    content: '# Information security policy\n\n1. Scope ...', reviewFrequencyMonths: 12, status: 'published', currentVersion: 3, createdBy: exampleOwnership.ownerId,
    ...exampleOwnership, customFields: {},
  } satisfies PolicyView,
};

export const POLICY_SORTS = ['title', 'status', 'reviewFrequencyMonths', 'currentVersion', 'owner', 'createdAt', 'updatedAt'] as const;
export const PolicyListQuery = recordListQuery(POLICY_SORTS, POLICY_STATUSES);

export const PolicyContent = t.Object({
  content: t.String({ maxLength: MAX_CONTENT_LENGTH, description: 'Markdown; raw HTML is shown as text, never rendered' }),
}, { additionalProperties: false });
export type PolicyContent = Static<typeof PolicyContent>;

export const PolicyVersionView = t.Object({
  id: t.String(),
  policyId: t.String(),
  version: Type.Integer(),
  content: t.String(),
  publishedAt: t.String(),
  publishedBy: t.Union([t.String(), t.Null()]),
  publishedByName: t.Union([t.String(), t.Null()]),
});
export type PolicyVersionView = Static<typeof PolicyVersionView>;
export const PublishedVersion = exactly(t.Object({ data: t.Object({ id: t.String(), version: Type.Integer() }) }, { description: 'Published' }));

export const PolicyReviewCreate = t.Object({
  reviewedOn: IsoDate,
  outcome: stringEnum(REVIEW_OUTCOMES),
  notes: t.Optional(t.String({ maxLength: 100_000 })),
  reviewerId: t.Optional(NullableUuid),
}, { additionalProperties: false });
export type PolicyReviewCreate = Static<typeof PolicyReviewCreate>;

export const PolicyReviewView = t.Object({
  id: t.String(),
  policyId: t.String(),
  reviewerId: t.Union([t.String(), t.Null()]),
  reviewerName: t.Union([t.String(), t.Null()]),
  reviewedOn: t.String(),
  outcome: stringEnum(REVIEW_OUTCOMES),
  notes: t.String(),
  createdAt: t.String(),
});
export const PolicyReviews = t.Object({
  frequencyMonths: Type.Integer(),
  lastReviewedOn: t.Union([t.String(), t.Null()]),
  nextReviewDue: t.Union([t.String({
    description: 'Last review plus the frequency; before any review, the first publication plus the frequency',
  }), t.Null()]),
  reviews: t.Array(PolicyReviewView),
});
export type PolicyReviews = Static<typeof PolicyReviews>;

export const PolicyApprovalCreate = t.Object({
  approverName: t.String({ minLength: 1, maxLength: 300 }),
  approvedOn: IsoDate,
  version: t.Optional(Type.Integer({ minimum: 1, description: 'The published version approved; the current one when left out' })),
}, { additionalProperties: false });
export type PolicyApprovalCreate = Static<typeof PolicyApprovalCreate>;

export const PolicyApprovalView = t.Object({
  id: t.String(),
  policyId: t.String(),
  version: Type.Integer(),
  approverName: t.String(),
  approvedOn: t.String(),
  recordedBy: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
});
export type PolicyApprovalView = Static<typeof PolicyApprovalView>;

export const PolicySettings = t.Object({
  allowOutsideApprovals: t.Boolean({ description: 'Allow recording outside approvals (off by default)' }),
}, { additionalProperties: false });
export type PolicySettings = Static<typeof PolicySettings>;

/** One item of POST /policies/batch/publish. */
export const PolicyPublishItem = t.Object({ id: t.String({ format: 'uuid' }) }, { additionalProperties: false });
