import { t, type Static } from 'elysia';
import { NullableDate, recordInputs, recordListQuery, recordView } from '../../platform/records/record-schema';
import { PageQuery } from '../../platform/http/paging';
import { stringEnum } from '../../platform/http/schema-helpers';

export const PROGRAM_STATUSES = ['open', 'closed'] as const;
export const DECISIONS = ['keep', 'revoke', 'modify'] as const;
export type Decision = (typeof DECISIONS)[number];

const programFields = {
  name: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  status: t.Optional(stringEnum(PROGRAM_STATUSES, { description: 'Blank gives open; decisions are refused on a closed program' })),
  dueOn: t.Optional(t.Union([t.String({ format: 'date', description: 'YYYY-MM-DD' }), t.Null()])),
};
export const { Create: ProgramCreate, Update: ProgramUpdate } = recordInputs(programFields);
export type ProgramCreate = Static<typeof ProgramCreate>;
export type ProgramUpdate = Static<typeof ProgramUpdate>;

export const ProgramView = recordView({
  name: t.String(),
  description: t.String(),
  status: stringEnum(PROGRAM_STATUSES),
  dueOn: NullableDate,
  createdBy: t.Union([t.String(), t.Null()]),
});

export const PROGRAM_SORTS = ['name', 'status', 'dueOn', 'owner', 'createdAt', 'updatedAt'] as const;
export const ProgramListQuery = recordListQuery(PROGRAM_SORTS, PROGRAM_STATUSES);

const Email = t.String({ format: 'email', maxLength: 320 });
const UserRef = t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]);

export const ItemCreate = t.Object({
  account: t.String({ minLength: 1, maxLength: 300 }),
  system: t.String({ minLength: 1, maxLength: 300 }),
  owner: t.Optional(t.Union([Email, t.Null()], { description: 'Email of an active user responsible for the account' })),
  notes: t.Optional(t.String({ maxLength: 100_000 })),
}, { additionalProperties: false });
export type ItemCreate = Static<typeof ItemCreate>;

export const ItemDecision = t.Object({
  decision: stringEnum(DECISIONS),
  reviewer: t.Optional(t.Union([Email, t.Null()], { description: 'Email of an active user; defaults to whoever records the decision' })),
  notes: t.Optional(t.String({ maxLength: 100_000 })),
}, { additionalProperties: false });
export type ItemDecision = Static<typeof ItemDecision>;

export const ItemView = t.Object({
  id: t.String(),
  programId: t.String(),
  account: t.String(),
  system: t.String(),
  ownerId: t.Union([t.String(), t.Null()]),
  owner: UserRef,
  decision: t.Union([stringEnum(DECISIONS), t.Null()]),
  reviewerId: t.Union([t.String(), t.Null()]),
  reviewer: UserRef,
  reviewedAt: t.Union([t.String(), t.Null()]),
  notes: t.String(),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type ItemView = Static<typeof ItemView>;

export const ItemListQuery = t.Object({
  ...PageQuery.properties,
  decision: t.Optional(stringEnum([...DECISIONS, 'pending'] as const, { description: 'pending: not decided yet' })),
  q: t.Optional(t.String({ maxLength: 200, description: 'Text search on account or system' })),
});
export type ItemListQuery = Static<typeof ItemListQuery>;

export const ItemParams = t.Object({
  id: t.String({ format: 'uuid', description: 'Review program id' }),
  itemId: t.String({ format: 'uuid', description: 'Review item id' }),
});
