import { t, type Static } from 'elysia';
import { exampleOwnership, NullableDate, recordInputs, recordListQuery, recordView } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';

export const PROJECT_STATUSES = ['planned', 'in_progress', 'completed'] as const;

const projectFields = {
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  status: t.Optional(stringEnum(PROJECT_STATUSES, { description: 'Blank gives planned' })),
  deadline: t.Optional(NullableDate),
};
export const { Create: ProjectCreate, Update: ProjectUpdate } = recordInputs(projectFields, { customFields: true });
export type ProjectCreate = Static<typeof ProjectCreate>;
export type ProjectUpdate = Static<typeof ProjectUpdate>;

export const ProjectView = recordView({
  title: t.String(),
  description: t.String(),
  status: stringEnum(PROJECT_STATUSES),
  deadline: t.Union([t.String({ description: 'YYYY-MM-DD' }), t.Null()]),
}, { customFields: true });
export type ProjectView = Static<typeof ProjectView>;

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const projectExamples = {
  create: { title: 'Roll out multi-factor sign-in', description: 'Every remote access and administrator account', status: 'in_progress', deadline: '2027-03-31' } satisfies ProjectCreate,
  row: {
    id: '8e1c4a7d-2b5f-4c9e-a3d6-0f7b2e5c9a31', title: 'Roll out multi-factor sign-in', description: 'Every remote access and administrator account',
    status: 'in_progress', deadline: '2027-03-31', ...exampleOwnership, customFields: {},
  } satisfies ProjectView,
};

export const PROJECT_SORTS = ['title', 'status', 'deadline', 'owner', 'createdAt', 'updatedAt'] as const;
export const ProjectListQuery = recordListQuery(PROJECT_SORTS, PROJECT_STATUSES);
