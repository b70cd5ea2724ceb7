import { and, count, desc, eq, gte, ilike, lt, or, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { exceptions, groups, users } from '../../../db/schema';
import { AppError, conflict, forbidden, invalid, notFound, type FieldProblem } from '../../platform/errors';
import { listHistory, recordChange, type HistoryView } from '../../platform/history';
import { ownerProblems, ownershipCondition, requireOwnLevelKeepsOwnership } from '../../platform/ownership';
import { orderBy, paging, type Page } from '../../platform/paging';
import { canTouch, ownsRecord, requireOnRecord, requirePermission, type Actor, type Owned, type Permission } from '../../platform/permissions';
import { loadParent, parentColumn, type ExceptionParent } from './parents';
import type { ExceptionCreate, ExceptionDecision, ExceptionListQuery, ExceptionUpdate, ExceptionView } from './schema';
import { isRealDate } from '../../platform/dates';

/**
 * Exceptions of one parent kind. Rights are the parent module's: read to see, update to request or change (on a
 * parent the caller can read), delete to remove, review to approve or reject. The own level is judged on the
 * exception's owner and owner group, like any owned record; a decision also needs review on the parent.
 */

const approvers = alias(users, 'approver');
const right = (parent: ExceptionParent, r: 'read' | 'update' | 'delete' | 'review') => `${parent.module}:${r}` as Permission;
const todayOf = (now: Date) => now.toISOString().slice(0, 10);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function selectViews(db: DbOrTx, parent: ExceptionParent) {
  return db.select({
    e: exceptions, parentTitle: parent.titleColumn, parentOwnerId: parent.ownerColumn, parentOwnerGroupId: parent.ownerGroupColumn, ownerName: users.name, ownerEmail: users.email, ownerGroupName: groups.name,
    approverName: approvers.name, approverEmail: approvers.email,
  }).from(exceptions)
    .innerJoin(parent.table, eq(parent.idColumn, parentColumn(parent)))
    .leftJoin(users, eq(users.id, exceptions.ownerId))
    .leftJoin(groups, eq(groups.id, exceptions.ownerGroupId))
    .leftJoin(approvers, eq(approvers.id, exceptions.approverId));
}

type Joined = Awaited<ReturnType<ReturnType<typeof selectViews>['execute']>>[number];

function toView(parent: ExceptionParent, row: Joined, today: string): ExceptionView {
  const e = row.e;
  const parentId = e[parent.column] as string;
  return {
    id: e.id, parentType: e.parentType, parentId, parent: { id: parentId, title: String(row.parentTitle) },
    title: e.title, description: e.description, status: e.status, expiresAt: e.expiresAt, expired: e.expiresAt < today,
    approverId: e.approverId,
    approver: e.approverId && row.approverName ? { id: e.approverId, name: row.approverName, email: row.approverEmail ?? '' } : null,
    decidedAt: e.decidedAt?.toISOString() ?? null, decisionNote: e.decisionNote,
    ownerId: e.ownerId, ownerGroupId: e.ownerGroupId,
    owner: e.ownerId && row.ownerName ? { id: e.ownerId, name: row.ownerName, email: row.ownerEmail ?? '' } : null,
    ownerGroup: e.ownerGroupId && row.ownerGroupName ? { id: e.ownerGroupId, name: row.ownerGroupName } : null,
    createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString(),
  };
}

const sortColumns = {
  title: exceptions.title, status: exceptions.status, expiresAt: exceptions.expiresAt,
  createdAt: exceptions.createdAt, updatedAt: exceptions.updatedAt,
};

export function exceptionFilters(parent: ExceptionParent, actor: Actor, query: Partial<ExceptionListQuery>, today: string): SQL | undefined {
  return and(
    eq(exceptions.parentType, parent.type),
    // At level own: exceptions owned by the actor or their groups, and every exception on a parent they own.
    or(
      ownershipCondition(actor, right(parent, 'read'), exceptions.ownerId, exceptions.ownerGroupId),
      ownershipCondition(actor, right(parent, 'read'), parent.ownerColumn, parent.ownerGroupColumn),
    ),
    query.status ? eq(exceptions.status, query.status) : undefined,
    query.expired === 'true' ? lt(exceptions.expiresAt, today) : query.expired === 'false' ? gte(exceptions.expiresAt, today) : undefined,
    query.parentId ? eq(parentColumn(parent), query.parentId) : undefined,
    query.ownerId ? eq(exceptions.ownerId, query.ownerId) : undefined,
    query.ownerGroupId ? eq(exceptions.ownerGroupId, query.ownerGroupId) : undefined,
    query.q ? ilike(exceptions.title, `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
  );
}

export async function listExceptions(
  db: DbOrTx, parent: ExceptionParent, actor: Actor, query: ExceptionListQuery, now = new Date(),
): Promise<Page<ExceptionView>> {
  const { page, pageSize, offset } = paging(query);
  const today = todayOf(now);
  const where = exceptionFilters(parent, actor, query, today);
  const order = orderBy(query.sort, sortColumns, [desc(exceptions.createdAt), desc(exceptions.id)], exceptions.id);
  const [rows, [{ total }]] = await Promise.all([
    selectViews(db, parent).where(where).orderBy(...order).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(exceptions).innerJoin(parent.table, eq(parent.idColumn, parentColumn(parent))).where(where),
  ]);
  return { rows: rows.map((r) => toView(parent, r, today)), total, page, pageSize };
}

async function loadJoined(db: DbOrTx, parent: ExceptionParent, id: string) {
  if (!UUID.test(id)) return undefined;
  const [row] = await selectViews(db, parent).where(and(eq(exceptions.id, id), eq(exceptions.parentType, parent.type)));
  return row;
}

/**
 * The stored exception after the check: 404 when missing or unreadable (readable: owned by the actor or their groups,
 * or on a parent they own, at level own), 403 when readable but `r` is not held; changing at level own needs the
 * exception itself to be owned.
 */
async function loadFor(db: DbOrTx, parent: ExceptionParent, actor: Actor, id: string, r: 'read' | 'update' | 'delete') {
  const row = await loadJoined(db, parent, id);
  const what = `${parent.label} exception ${id}`;
  const read = right(parent, 'read');
  const parentOwned: Owned = { ownerId: (row?.parentOwnerId as string | null) ?? null, ownerGroupId: (row?.parentOwnerGroupId as string | null) ?? null };
  if (!row || !(canTouch(actor, read, row.e) || canTouch(actor, read, parentOwned))) {
    throw new AppError('NOT_FOUND', `${what} not found`, [], row ? `no ${read} on ${what}` : undefined);
  }
  if (r !== 'read') {
    const level = requirePermission(actor, right(parent, r));
    if (level === 'own' && !ownsRecord(actor, row.e)) throw forbidden(`${right(parent, r)} is at level own and ${what} is not owned`);
  }
  return row;
}

export async function getException(db: DbOrTx, parent: ExceptionParent, actor: Actor, id: string, now = new Date()): Promise<ExceptionView> {
  return toView(parent, await loadFor(db, parent, actor, id, 'read'), todayOf(now));
}

/** Loads the parent for an action: 404 when missing or unreadable, 403 when readable but the right is not held. */
async function requireParent(db: DbOrTx, parent: ExceptionParent, actor: Actor, parentId: string, r: 'update' | 'review') {
  const record = UUID.test(parentId) ? await loadParent(db, parent, parentId) : undefined;
  const what = `${parent.label} ${parentId}`;
  if (!record) throw notFound(what);
  requireOnRecord(actor, right(parent, r), record, what);
  return record;
}

interface Editable {
  title: string;
  description: string;
  expiresAt: string;
  approverId: string | null;
  ownerId: string | null;
  ownerGroupId: string | null;
}

async function problemsOf(db: DbOrTx, c: Editable): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  if (!c.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
  if (!c.description.trim()) problems.push({ field: 'description', message: 'must not be blank' });
  if (!isRealDate(c.expiresAt)) problems.push({ field: 'expiresAt', message: 'must be a real date written YYYY-MM-DD' });
  if (c.approverId) {
    const [approver] = await db.select({ status: users.status }).from(users).where(eq(users.id, c.approverId));
    if (!approver) problems.push({ field: 'approverId', message: 'no such user' });
    else if (approver.status !== 'active') problems.push({ field: 'approverId', message: 'must be an active user' });
  }
  problems.push(...(await ownerProblems(db, c)));
  return problems;
}

const auditFields = (row: typeof exceptions.$inferSelect) => {
  const { id: _i, createdAt: _c, updatedAt: _u, createdBy: _b, ...fields } = row;
  return fields;
};

/** Requests an exception: it always arrives as requested; deciding is a separate step needing the review right. */
export async function createException(tx: DbOrTx, parent: ExceptionParent, actor: Actor, input: ExceptionCreate): Promise<{ id: string }> {
  const level = requirePermission(actor, right(parent, 'update'));
  await requireParent(tx, parent, actor, input.parentId, 'update');
  const unowned = input.ownerId === undefined && input.ownerGroupId === undefined;
  const candidate: Editable = {
    title: input.title, description: input.description, expiresAt: input.expiresAt, approverId: input.approverId ?? null,
    ownerId: unowned ? actor.userId : input.ownerId ?? null, ownerGroupId: input.ownerGroupId ?? null,
  };
  const problems = await problemsOf(tx, candidate);
  if (input.status !== undefined && input.status !== 'requested') {
    problems.push({ field: 'status', message: 'an exception arrives as requested; approve or reject it with a decision' });
  }
  if (problems.length) throw invalid(problems);
  requireOwnLevelKeepsOwnership(actor, right(parent, 'update'), level, candidate);
  const [row] = await tx.insert(exceptions).values({
    ...candidate, title: candidate.title.trim(), parentType: parent.type, [parent.column]: input.parentId,
    status: 'requested', createdBy: actor.userId,
  }).returning();
  await recordChange(tx, actor, { module: parent.module, recordType: parent.recordType, recordId: row.id, action: 'create', before: null, after: auditFields(row) });
  return { id: row.id };
}

export async function updateException(tx: DbOrTx, parent: ExceptionParent, actor: Actor, id: string, patch: ExceptionUpdate): Promise<void> {
  const { e: before } = await loadFor(tx, parent, actor, id, 'update');
  const level = requirePermission(actor, right(parent, 'update'));
  if (before.status !== 'requested') throw conflict(`${parent.label} exception ${id} is ${before.status}; a decided exception is not changed, request a new one`);
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<Editable>;
  const candidate: Editable = {
    title: before.title, description: before.description, expiresAt: before.expiresAt, approverId: before.approverId,
    ownerId: before.ownerId, ownerGroupId: before.ownerGroupId, ...defined,
  };
  const problems = await problemsOf(tx, candidate);
  if (problems.length) throw invalid(problems);
  requireOwnLevelKeepsOwnership(actor, right(parent, 'update'), level, candidate);
  const [after] = await tx.update(exceptions).set({ ...candidate, title: candidate.title.trim(), updatedAt: new Date() })
    .where(eq(exceptions.id, id)).returning();
  await recordChange(tx, actor, { module: parent.module, recordType: parent.recordType, recordId: id, action: 'update', before: auditFields(before), after: auditFields(after) });
}

/** Approves or rejects a requested exception: needs review on the parent; records who decided, when and why. */
export async function decideException(tx: DbOrTx, parent: ExceptionParent, actor: Actor, id: string, input: ExceptionDecision): Promise<void> {
  requirePermission(actor, right(parent, 'review'));
  const { e: before } = await loadFor(tx, parent, actor, id, 'read');
  await requireParent(tx, parent, actor, before[parent.column] as string, 'review');
  if (before.status !== 'requested') throw conflict(`${parent.label} exception ${id} is already ${before.status}`);
  const [after] = await tx.update(exceptions).set({
    status: input.decision, approverId: actor.userId, decidedAt: new Date(), decisionNote: input.note ?? '', updatedAt: new Date(),
  }).where(eq(exceptions.id, id)).returning();
  await recordChange(tx, actor, {
    module: parent.module, recordType: parent.recordType, recordId: id, action: input.decision === 'approved' ? 'approve' : 'reject',
    before: auditFields(before), after: auditFields(after),
  });
}

export async function deleteException(tx: DbOrTx, parent: ExceptionParent, actor: Actor, id: string): Promise<void> {
  const { e: before } = await loadFor(tx, parent, actor, id, 'delete');
  await tx.delete(exceptions).where(eq(exceptions.id, id));
  await recordChange(tx, actor, { module: parent.module, recordType: parent.recordType, recordId: id, action: 'delete', before: auditFields(before), after: null });
}

export async function exceptionHistory(db: DbOrTx, parent: ExceptionParent, actor: Actor, id: string): Promise<HistoryView[]> {
  await loadFor(db, parent, actor, id, 'read');
  return listHistory(db, parent.recordType, id);
}
