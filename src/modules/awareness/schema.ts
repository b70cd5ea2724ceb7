import { Type } from '@sinclair/typebox';
import { t, type Static } from 'elysia';
import { exampleOwnership, NullableDate, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';
import { listQuery } from '../../platform/http/paging';

export const PROGRAM_STATUSES = ['draft', 'published'] as const;
export const RESULT_STATUSES = ['assigned', 'started', 'passed', 'failed'] as const;
export const QUESTION_KINDS = ['single', 'multiple'] as const;

/** A test question as its author writes it: the choices and the indexes of the right ones. */
export const Question = t.Object({
  text: t.String({ minLength: 1, maxLength: 2000 }),
  kind: stringEnum(QUESTION_KINDS, { description: 'single: exactly one right choice; multiple: one or more, all of them must be chosen' }),
  choices: t.Array(t.String({ minLength: 1, maxLength: 500 }), { minItems: 2, maxItems: 10 }),
  correct: t.Array(Type.Integer({ minimum: 0, maximum: 9 }), { minItems: 1, maxItems: 10, uniqueItems: true, description: 'Indexes (from 0) of the right choices' }),
}, { additionalProperties: false });
export type Question = Static<typeof Question>;

const programFields = {
  title: t.String({ minLength: 1, maxLength: 300 }),
  content: t.Optional(t.String({ maxLength: 200_000, description: 'The training itself, in Markdown' })),
  contentUrl: t.Optional(t.Union([t.String({ maxLength: 2000, description: 'A link to the training (https:// or http://) instead of, or beside, the Markdown' }), t.Null()])),
  audienceGroupIds: t.Optional(t.Array(Uuid, { maxItems: 500, uniqueItems: true, description: 'Groups whose members are assigned when the program is published' })),
  audienceUserIds: t.Optional(t.Array(Uuid, { maxItems: 5000, uniqueItems: true, description: 'People assigned when the program is published' })),
  startsOn: t.Optional(NullableDate),
  endsOn: t.Optional(NullableDate),
  passMark: t.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Percent of questions answered right needed to pass (default 80)' })),
  questions: t.Optional(t.Array(Question, { maxItems: 100, description: 'The optional test; without questions, reading the content and confirming it passes' })),
  recurrenceMonths: t.Optional(t.Union([Type.Integer({
    minimum: 1, maximum: 60,
    description: 'Every how many months the program runs again (needs a start and an end date): its period moves on by this many months and everyone in the audience takes it again. Null: once.',
  }), t.Null()])),
};
export const { Create: ProgramCreate, Update: ProgramUpdate } = recordInputs(programFields);
export type ProgramCreate = Static<typeof ProgramCreate>;
export type ProgramUpdate = Static<typeof ProgramUpdate>;

export const ProgramView = recordView({
  title: t.String(),
  content: t.String(),
  contentUrl: t.Union([t.String(), t.Null()]),
  status: stringEnum(PROGRAM_STATUSES),
  audienceGroupIds: t.Array(t.String()),
  audienceUserIds: t.Array(t.String()),
  startsOn: t.Union([t.String({ description: 'YYYY-MM-DD' }), t.Null()]),
  endsOn: t.Union([t.String({ description: 'YYYY-MM-DD' }), t.Null()]),
  passMark: Type.Integer(),
  questions: t.Array(Question),
  recurrenceMonths: t.Union([Type.Integer(), t.Null()]),
});
export type ProgramView = Static<typeof ProgramView>;

export const PROGRAM_SORTS = ['title', 'status', 'startsOn', 'endsOn', 'owner', 'createdAt', 'updatedAt'] as const;
export const ProgramListQuery = recordListQuery(PROGRAM_SORTS, PROGRAM_STATUSES);

const question = { text: 'A message asks you to confirm your password at a link. What do you do?', kind: 'single' as const, choices: ['Follow the link', 'Report it as phishing'], correct: [1] };
export const programExamples = {
  create: {
    title: 'Phishing awareness 2027', content: '# Spotting phishing\nCheck the sender…', audienceGroupIds: ['5d2e8f1a-3b4c-4d6e-9f1a-2b3c4d5e6f70'],
    startsOn: '2027-01-04', endsOn: '2027-01-31', passMark: 80, questions: [question], recurrenceMonths: 12,
  } satisfies ProgramCreate,
  row: {
    id: '7a3c9e1f-2d4b-4f6a-8c1e-3b5d7f9a1c24', title: 'Phishing awareness 2027', content: '# Spotting phishing\nCheck the sender…', contentUrl: null, status: 'published',
    audienceGroupIds: ['5d2e8f1a-3b4c-4d6e-9f1a-2b3c4d5e6f70'], audienceUserIds: [], startsOn: '2027-01-04', endsOn: '2027-01-31', passMark: 80, questions: [question],
    recurrenceMonths: 12, ...exampleOwnership,
  } satisfies ProgramView,
};

/** A test question as the person taking it sees it: no right answers. */
export const QuestionToAnswer = t.Object({ text: t.String(), kind: stringEnum(QUESTION_KINDS), choices: t.Array(t.String()) });

/** One person's result in one program. Answers are not part of it: only the person reads their own. */
export const ResultView = t.Object({
  id: t.String(),
  programId: t.String(),
  programTitle: t.String(),
  person: t.Object({ id: t.String(), name: t.String() }),
  status: stringEnum(RESULT_STATUSES),
  score: t.Union([Type.Integer({ description: 'Percent of questions answered right in the last attempt' }), t.Null()]),
  attempts: Type.Integer(),
  assignedAt: t.String(),
  startedAt: t.Union([t.String(), t.Null()]),
  completedAt: t.Union([t.String(), t.Null()]),
});
export type ResultView = Static<typeof ResultView>;

export const ResultListQuery = listQuery(['assignedAt', 'completedAt', 'status'] as const, {
  programId: t.Optional(Uuid),
  personId: t.Optional(Uuid),
  status: t.Optional(stringEnum(RESULT_STATUSES)),
});
export type ResultListQuery = Static<typeof ResultListQuery>;

/** What the person taking a program is shown: the content and the questions without their answers. */
export const TrainingView = t.Object({
  result: ResultView,
  title: t.String(),
  content: t.String(),
  contentUrl: t.Union([t.String(), t.Null()]),
  startsOn: t.Union([t.String(), t.Null()]),
  endsOn: t.Union([t.String(), t.Null()]),
  passMark: Type.Integer(),
  questions: t.Array(QuestionToAnswer),
});
export type TrainingView = Static<typeof TrainingView>;

export const Submission = t.Object({
  answers: t.Array(t.Array(Type.Integer({ minimum: 0, maximum: 9 }), { maxItems: 10, uniqueItems: true }), {
    maxItems: 100, description: 'For each question in order, the indexes of the chosen choices; the service scores them',
  }),
}, { additionalProperties: false });
export type Submission = Static<typeof Submission>;

export const AttemptOutcome = t.Object({ status: stringEnum(['passed', 'failed'] as const), score: Type.Integer(), attempts: Type.Integer(), passMark: Type.Integer() });
export const MyAnswers = t.Object({ answers: t.Union([t.Array(t.Array(Type.Integer())), t.Null()]) });

export const CompletionView = t.Object({
  programId: t.String(),
  total: Type.Integer(),
  byStatus: t.Object({ assigned: Type.Integer(), started: Type.Integer(), passed: Type.Integer(), failed: Type.Integer() }),
  byGroup: t.Array(t.Object({ groupId: t.String(), groupName: t.String(), total: Type.Integer(), passed: Type.Integer() })),
});
export type CompletionView = Static<typeof CompletionView>;
