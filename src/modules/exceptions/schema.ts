import type { TObject } from '@sinclair/typebox';
import { t, type Static } from 'elysia';
import { IsoDate, ownerView, Uuid } from '../../platform/records/record-schema';
import { listQuery } from '../../platform/http/paging';
import { stringEnum } from '../../platform/http/schema-helpers';

export const EXCEPTION_STATUSES = ['requested', 'approved', 'rejected'] as const;
export const DECISIONS = ['approved', 'rejected'] as const;

const text = (maxLength: number) => t.String({ minLength: 1, maxLength });

export const ExceptionCreate = t.Object({
  parentId: t.String({ format: 'uuid', description: 'The risk (or policy) the exception is for; you need update on it' }),
  title: text(300),
  description: text(100_000),
  expiresAt: IsoDate,
  approverId: t.Optional(t.Union([Uuid, t.Null()], { description: 'The person expected to decide; whoever decides is recorded instead' })),
  status: t.Optional(t.String({ description: 'Only requested is accepted: decisions are made with POST /:id/decision' })),
  ownerId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An active user; defaults to you when owner and group are both left out' })),
  ownerGroupId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An existing group' })),
}, { additionalProperties: false });
export type ExceptionCreate = Static<typeof ExceptionCreate>;

export const ExceptionUpdate = t.Partial(t.Object({
  title: text(300),
  description: text(100_000),
  expiresAt: IsoDate,
  approverId: t.Union([Uuid, t.Null()]),
  ownerId: t.Union([Uuid, t.Null()]),
  ownerGroupId: t.Union([Uuid, t.Null()]),
}), { additionalProperties: false, minProperties: 1, description: 'Only while requested; a decided exception is not changed' });
export type ExceptionUpdate = Static<typeof ExceptionUpdate>;

export const ExceptionDecision = t.Object({
  decision: stringEnum(DECISIONS),
  note: t.Optional(t.String({ maxLength: 10_000, description: 'Why; required with override' })),
  override: t.Optional(t.Boolean({
    description: 'Segregation of duties: the requester of an exception may not decide it. An administrator (every right at level all) may decide their own request with override: true and a note; the override is recorded in the Audit Log and History',
  })),
}, { additionalProperties: false });
export type ExceptionDecision = Static<typeof ExceptionDecision>;

const Person = t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]);

export const ExceptionView = t.Object({
  id: t.String(),
  parentType: t.String(),
  parentId: t.String(),
  parent: t.Object({ id: t.String(), title: t.String() }),
  title: t.String(),
  description: t.String(),
  status: stringEnum(EXCEPTION_STATUSES),
  expiresAt: t.String(),
  expired: t.Boolean({ description: 'expiresAt is before today (UTC)' }),
  approverId: t.Union([t.String(), t.Null()]),
  approver: Person,
  decidedAt: t.Union([t.String(), t.Null()]),
  decisionNote: t.String(),
  requestedById: t.Union([t.String(), t.Null()], { description: 'Who requested it (segregation of duties: they may not decide it)' }),
  ...ownerView,
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type ExceptionView = Static<typeof ExceptionView>;

export const EXCEPTION_SORTS = ['title', 'status', 'expiresAt', 'owner', 'approver', 'createdAt', 'updatedAt'] as const;
export const ExceptionListQuery = listQuery(EXCEPTION_SORTS, {
  status: t.Optional(stringEnum(EXCEPTION_STATUSES)),
  expired: t.Optional(stringEnum(['true', 'false'] as const, { description: 'true: expiresAt before today; false: today or later' })),
  parentId: t.Optional(Uuid),
  ownerId: t.Optional(Uuid),
  ownerGroupId: t.Optional(Uuid),
});
export type ExceptionListQuery = Static<typeof ExceptionListQuery>;

/* ---- CSV import (src/modules/exceptions/import.ts): the parent is named by columns of its own ---- */

const withoutParent = Object.fromEntries(Object.entries(ExceptionCreate.properties).filter(([key]) => key !== 'parentId'));

/** Risk and policy exceptions: the parent column may be left out on update (an exception stays with its parent). */
export const ParentExceptionImportUpdate = t.Object({ parentId: t.Optional(Uuid), ...ExceptionUpdate.properties }, { additionalProperties: false });

/** Compliance exceptions: the package and the requirement's code name the analysis. */
export const ComplianceExceptionImportCreate: TObject = t.Object({
  packageId: Uuid,
  requirement: t.String({ minLength: 1, description: 'Code of a requirement (item) of the package' }),
  ...withoutParent,
}, { additionalProperties: false });
export const ComplianceExceptionImportUpdate = t.Object({ packageId: t.Optional(Uuid), requirement: t.Optional(t.String()), ...ExceptionUpdate.properties }, { additionalProperties: false });
