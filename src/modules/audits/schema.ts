import { t, type Static } from 'elysia';
import { NullableDate, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';

export const AUDIT_PLAN_STATUSES = ['planned', 'in_progress', 'completed'] as const;
export const FINDING_STATUSES = ['open', 'in_remediation', 'closed'] as const;

// ---------------------------------------------------------------- audit plans

const planFields = {
  title: t.String({ minLength: 1, maxLength: 300 }),
  scope: t.Optional(t.String({ maxLength: 100_000, description: 'What the audit covers' })),
  periodStart: t.Optional(NullableDate),
  periodEnd: t.Optional(t.Union([t.String({ format: 'date' }), t.Null()], { description: 'YYYY-MM-DD, not before periodStart' })),
  status: t.Optional(stringEnum(AUDIT_PLAN_STATUSES, { description: 'Blank gives planned' })),
};
export const { Create: AuditPlanCreate, Update: AuditPlanUpdate } = recordInputs(planFields);
export type AuditPlanCreate = Static<typeof AuditPlanCreate>;
export type AuditPlanUpdate = Static<typeof AuditPlanUpdate>;

export const AuditPlanView = recordView({
  title: t.String(),
  scope: t.String(),
  periodStart: t.Union([t.String(), t.Null()]),
  periodEnd: t.Union([t.String(), t.Null()]),
  status: stringEnum(AUDIT_PLAN_STATUSES),
});
export type AuditPlanView = Static<typeof AuditPlanView>;

export const AUDIT_PLAN_SORTS = ['title', 'status', 'periodStart', 'periodEnd', 'owner', 'createdAt', 'updatedAt'] as const;
export const AuditPlanListQuery = recordListQuery(AUDIT_PLAN_SORTS, AUDIT_PLAN_STATUSES);

// ---------------------------------------------------------------- findings

const findingFields = {
  auditPlanId: t.String({ format: 'uuid', description: 'The audit plan the finding belongs to' }),
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  status: t.Optional(stringEnum(FINDING_STATUSES, { description: 'A finding is created open; moving it is an update' })),
  deadline: t.Optional(NullableDate),
  controlId: t.Optional(t.Union([Uuid, t.Null()], { description: 'The control the finding concerns' })),
};
export const { Create: FindingCreate, Update: FindingUpdate } = recordInputs(findingFields);
export type FindingCreate = Static<typeof FindingCreate>;
export type FindingUpdate = Static<typeof FindingUpdate>;

export const FindingView = recordView({
  auditPlanId: t.String(),
  title: t.String(),
  description: t.String(),
  status: stringEnum(FINDING_STATUSES),
  deadline: t.Union([t.String(), t.Null()]),
  controlId: t.Union([t.String(), t.Null()]),
});
export type FindingView = Static<typeof FindingView>;

export const FINDING_SORTS = ['title', 'status', 'deadline', 'owner', 'createdAt', 'updatedAt'] as const;
export const FindingListQuery = recordListQuery(FINDING_SORTS, FINDING_STATUSES, {
  auditPlanId: t.Optional(Uuid),
  controlId: t.Optional(Uuid),
});
