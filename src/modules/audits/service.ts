import { asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { auditFindings, auditPlans, controls } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { requireReadableLink } from '../../platform/records/links';
import { listRecords, referencedBy, type RecordKind } from '../../platform/records/records';
import { controlKind } from '../controls/service';
import type { AuditPlanCreate, FindingCreate } from './schema';
import { dateProblems } from '../../platform/core/dates';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { AUDIT_PLAN_STATUSES, FINDING_STATUSES } from './schema';

export const auditPlanKind: RecordKind<typeof auditPlans, AuditPlanCreate> = {
  module: 'audits',
  recordType: 'audit_plan',
  label: 'Audit plan',
  table: auditPlans,
  titleColumn: auditPlans.title,
  statusColumn: auditPlans.status,
  sortable: {
    title: auditPlans.title, status: inDefinedOrder(auditPlans.status, AUDIT_PLAN_STATUSES), periodStart: auditPlans.periodStart, periodEnd: auditPlans.periodEnd,
    owner: ownerNameSort,
    createdAt: auditPlans.createdAt, updatedAt: auditPlans.updatedAt,
  },
  defaults: { scope: '', periodStart: null, periodEnd: null, status: 'planned' },
  toColumns: (c) => ({ ...c, title: c.title.trim() }),
  async check(_db, c) {
    const problems: FieldProblem[] = [];
    if (!c.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
    problems.push(...dateProblems('periodStart', c.periodStart), ...dateProblems('periodEnd', c.periodEnd));
    if (!problems.length && c.periodStart && c.periodEnd && c.periodEnd < c.periodStart) {
      problems.push({ field: 'periodEnd', message: 'must not be before periodStart' });
    }
    return problems;
  },
  references: [referencedBy({ one: 'audit finding', many: 'audit findings' }, auditFindings, auditFindings.auditPlanId, { kind: 'auditFinding', id: auditFindings.id })],
};

export const findingKind: RecordKind<typeof auditFindings, FindingCreate> = {
  module: 'audits',
  recordType: 'audit_finding',
  label: 'Audit finding',
  table: auditFindings,
  titleColumn: auditFindings.title,
  statusColumn: auditFindings.status,
  sortable: {
    title: auditFindings.title, status: inDefinedOrder(auditFindings.status, FINDING_STATUSES), deadline: auditFindings.deadline, owner: ownerNameSort,
    createdAt: auditFindings.createdAt, updatedAt: auditFindings.updatedAt,
  },
  defaults: { description: '', status: 'open', deadline: null, controlId: null },
  filters: {
    auditPlanId: (value) => eq(auditFindings.auditPlanId, value),
    controlId: (value) => eq(auditFindings.controlId, value),
  },
  toColumns: (c) => ({ ...c, title: c.title.trim() }),
  async check(db, c, before, actor) {
    // A plan or control the actor cannot read answers like a missing one (404, audited): its existence is not disclosed.
    await requireReadableLink(db, actor, auditPlanKind, 'auditPlanId', c.auditPlanId, before?.auditPlanId);
    await requireReadableLink(db, actor, controlKind, 'controlId', c.controlId, before?.controlId);
    const problems: FieldProblem[] = [];
    if (!c.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
    if (before === null && c.status !== 'open') problems.push({ field: 'status', message: 'a finding is created open' });
    problems.push(...dateProblems('deadline', c.deadline));
    return problems;
  },
};

interface Choice {
  value: string;
  label: string;
}

/** Audit plans and controls the viewer may read, by title or name, for the finding form's pickers. */
export async function findingChoices(db: DbOrTx, actor: Actor): Promise<{ plans: Choice[]; controls: Choice[] }> {
  const plans = levelOf(actor, 'audits:read') === null ? [] : await db.select({ value: auditPlans.id, label: auditPlans.title }).from(auditPlans)
    .where(ownershipCondition(actor, 'audits:read', auditPlans.ownerId, auditPlans.ownerGroupId)).orderBy(asc(auditPlans.title)).limit(1000);
  const controlChoices = levelOf(actor, 'controls:read') === null ? [] : await db.select({ value: controls.id, label: controls.name }).from(controls)
    .where(ownershipCondition(actor, 'controls:read', controls.ownerId, controls.ownerGroupId)).orderBy(asc(controls.name)).limit(1000);
  return { plans, controls: controlChoices };
}

/** Audit findings the actor owns that are open or in remediation, by deadline (the assistant's my_open_items). */
export async function openFindingsOf(db: DbOrTx, actor: Actor) {
  if (!actor.userId) return [];
  const owned = await listRecords(db, findingKind, actor, { ownerId: actor.userId, pageSize: 200, sort: 'deadline' });
  return owned.rows.filter((f) => f.status !== 'closed').map((f) => ({ id: f.id, title: f.title, status: f.status, deadline: f.deadline }));
}
