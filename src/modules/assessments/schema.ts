import { Type } from '@sinclair/typebox';
import { t, type Static } from 'elysia';
import { ASSESSMENT_REQUEST_STATUSES } from '../../../db/schema';
import { stringEnum } from '../../platform/http/schema-helpers';
import { listQuery } from '../../platform/http/paging';
import { IsoDate, NullableUuid, Uuid } from '../../platform/records/record-schema';

export const QUESTION_KINDS = ['yesno', 'single', 'multiple', 'text', 'number', 'date', 'file'] as const;
export const REQUEST_STATUSES = ASSESSMENT_REQUEST_STATUSES;
export const STATUS_LABELS: Record<(typeof REQUEST_STATUSES)[number], string> = {
  sent: 'Sent', in_progress: 'In progress', submitted: 'Submitted', returned: 'Returned for changes', accepted: 'Accepted', revoked: 'Revoked',
};
export const KIND_LABELS: Record<(typeof QUESTION_KINDS)[number], string> = {
  yesno: 'Yes or no', single: 'One choice', multiple: 'Several choices', text: 'Text', number: 'Number', date: 'Date', file: 'File',
};

const Key = t.String({ pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$', description: 'The question\'s key, unique in the template: answers point at it' });

export const Choice = t.Object({
  value: t.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  label: t.String({ minLength: 1, maxLength: 500 }),
  score: Type.Integer({ minimum: 0, maximum: 100, description: 'Percent of the question\'s weight this answer earns' }),
}, { additionalProperties: false });

export const Question = t.Object({
  key: Key,
  text: t.String({ minLength: 1, maxLength: 2000 }),
  hint: t.Optional(t.String({ maxLength: 1000 })),
  kind: stringEnum(QUESTION_KINDS, { description: 'yesno, single and multiple score by their choices; text, number, date and file are scored by the reviewer' }),
  required: t.Boolean(),
  weight: Type.Integer({ minimum: 0, maximum: 100, description: 'How much the question counts in the score; 0 leaves it out' }),
  choices: t.Optional(t.Array(Choice, { maxItems: 30, description: 'For yesno (values yes and no), single and multiple' })),
  showWhen: t.Optional(t.Union([t.Object({
    question: Key, equals: t.String({ maxLength: 64, description: 'The value the earlier question must have (for multiple choice: among those chosen)' }),
  }, { additionalProperties: false }), t.Null()])),
}, { additionalProperties: false });
export type Question = Static<typeof Question>;

export const Section = t.Object({
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
  questions: t.Array(Question, { minItems: 1, maxItems: 300 }),
}, { additionalProperties: false });
export type Section = Static<typeof Section>;

export const TemplateCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 5000 })),
  sections: t.Array(Section, { minItems: 1, maxItems: 50 }),
  ownerId: t.Optional(NullableUuid),
  ownerGroupId: t.Optional(NullableUuid),
}, { additionalProperties: false });
export type TemplateCreate = Static<typeof TemplateCreate>;

export const TemplateUpdate = t.Partial(t.Object({
  ...TemplateCreate.properties,
  expectedVersion: Type.Integer({ minimum: 1, description: 'The version this change was made on: refused (409) when another change has published a newer one since' }),
}), { additionalProperties: false });
export type TemplateUpdate = Static<typeof TemplateUpdate>;

export const TemplateView = t.Object({
  id: t.String(),
  title: t.String(),
  description: t.String(),
  shippedKey: t.Union([t.String(), t.Null()]),
  version: Type.Integer({ description: 'The current version; a change of the sections makes a new one' }),
  versionId: t.String(),
  sections: t.Array(Section),
  ownerId: t.Union([t.String(), t.Null()]),
  ownerGroupId: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type TemplateView = Static<typeof TemplateView>;

export const TEMPLATE_SORTS = ['title', 'createdAt', 'updatedAt'] as const;
export const TemplateListQuery = listQuery(TEMPLATE_SORTS, { ownerId: t.Optional(Uuid) });
export type TemplateListQuery = Static<typeof TemplateListQuery>;

export const RequestCreate = t.Object({
  templateId: Uuid,
  title: t.Optional(t.String({ maxLength: 300, description: 'Defaults to the template\'s title' })),
  thirdPartyId: t.Optional(NullableUuid),
  respondentName: t.Optional(t.String({ maxLength: 200 })),
  respondentEmail: t.String({ minLength: 3, maxLength: 320, description: 'The one address the link is sent to' }),
  dueOn: IsoDate,
  ownerId: t.Optional(NullableUuid),
  ownerGroupId: t.Optional(NullableUuid),
}, { additionalProperties: false });
export type RequestCreate = Static<typeof RequestCreate>;

export const AnswerValue = t.Union([t.String({ maxLength: 20_000 }), t.Number(), t.Array(t.String({ maxLength: 64 }), { maxItems: 30 }), t.Null()]);

export const ReviewedAnswer = t.Object({
  key: t.String(),
  section: t.String(),
  text: t.String(),
  kind: stringEnum(QUESTION_KINDS),
  weight: Type.Integer(),
  shown: t.Boolean({ description: 'False when its condition is not met: not asked, not scored' }),
  answer: AnswerValue,
  answerText: t.String({ description: 'The answer in words (choice labels, file names)' }),
  templateScore: t.Union([Type.Integer(), t.Null()]),
  reviewScore: t.Union([Type.Integer(), t.Null()]),
  comment: t.String(),
});
export type ReviewedAnswer = Static<typeof ReviewedAnswer>;

export const RequestView = t.Object({
  id: t.String(),
  title: t.String(),
  templateId: t.String(),
  templateVersion: Type.Integer(),
  thirdParty: t.Union([t.Object({ id: t.String(), name: t.String() }), t.Null()]),
  respondentName: t.String(),
  respondentEmail: t.String(),
  dueOn: t.String(),
  status: stringEnum(REQUEST_STATUSES),
  expiresAt: t.String(),
  score: t.Union([Type.Integer({ description: 'Percent: weights times answer scores (the reviewer\'s where set)' }), t.Null()]),
  submittedAt: t.Union([t.String(), t.Null()]),
  reviewedAt: t.Union([t.String(), t.Null()]),
  ownerId: t.Union([t.String(), t.Null()]),
  ownerGroupId: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type RequestView = Static<typeof RequestView>;

export const RequestDetail = t.Composite([RequestView, t.Object({ answers: t.Array(ReviewedAnswer) })]);
export type RequestDetail = Static<typeof RequestDetail>;

export const RequestSent = t.Object({
  id: t.String(),
  url: t.String({ description: 'The link, shown once: only its SHA-256 is stored' }),
  expiresAt: t.String(),
});

export const REQUEST_SORTS = ['createdAt', 'title', 'dueOn', 'status', 'score'] as const;
export const RequestListQuery = listQuery(REQUEST_SORTS, {
  status: t.Optional(stringEnum(REQUEST_STATUSES)),
  ownerId: t.Optional(Uuid),
  thirdPartyId: t.Optional(Uuid),
  templateId: t.Optional(Uuid),
});
export type RequestListQuery = Static<typeof RequestListQuery>;

export const ReviewInput = t.Object({
  answers: t.Array(t.Object({
    key: t.String({ maxLength: 64 }),
    score: t.Optional(t.Union([Type.Integer({ minimum: 0, maximum: 100 }), t.Null()])),
    comment: t.Optional(t.String({ maxLength: 5000 })),
  }, { additionalProperties: false }), { maxItems: 300 }),
}, { additionalProperties: false });
export type ReviewInput = Static<typeof ReviewInput>;

export const ReturnInput = t.Object({ message: t.String({ minLength: 1, maxLength: 5000, description: 'What to change; sent with the new link' }) }, { additionalProperties: false });
export type ReturnInput = Static<typeof ReturnInput>;

export const FindingFromAnswer = t.Object({
  key: t.String({ maxLength: 64, description: 'The answer the finding comes from' }),
  auditPlanId: Uuid,
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 20_000 })),
}, { additionalProperties: false });
export type FindingFromAnswer = Static<typeof FindingFromAnswer>;

export const RiskFromAnswer = t.Object({
  key: t.String({ maxLength: 64, description: 'The answer the risk comes from' }),
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 20_000 })),
  classificationId: Uuid,
  likelihood: Type.Integer({ minimum: 1 }),
  impact: Type.Integer({ minimum: 1 }),
}, { additionalProperties: false });
export type RiskFromAnswer = Static<typeof RiskFromAnswer>;
