import { t, type Static } from 'elysia';
import { NullableDate, recordInputs, recordListQuery, recordView } from '../../platform/records/record-schema';
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

export const PROJECT_SORTS = ['title', 'status', 'deadline', 'createdAt', 'updatedAt'] as const;
export const ProjectListQuery = recordListQuery(PROJECT_SORTS, PROJECT_STATUSES);
