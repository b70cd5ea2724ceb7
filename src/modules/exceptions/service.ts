import { and, asc, count, desc, eq, gte, ilike, inArray, lt, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { exceptions, groups, users } from '../../../db/schema';
import { AppError, conflict, forbidden, invalid, invalidField, notFound, type FieldProblem } from '../../platform/core/errors';
import { insertRows, updateRowsById } from '../../platform/core/bulk-insert';
import { diffFields, listHistory, recordChange, recordChanges, type HistoryView } from '../../platform/audit/history';
import { NOT_AN_ACTIVE_USER, ownershipCondition, requireOwnLevelKeepsOwnership } from '../../platform/permissions/ownership';
import { orderBy, paging, type Page } from '../../platform/http/paging';
import { canTouch, holdsEveryRight, levelOf, ownsRecord, requireOnRecord, requirePermission, type Actor, type Owned, type Permission } from '../../platform/permissions/permissions';
import { nameAsSeen } from '../../platform/records/links';
import { loadParent, parentColumn, type ExceptionParent } from './parents';
import { EXCEPTION_STATUSES, type ExceptionCreate, type ExceptionDecision, type ExceptionListQuery, type ExceptionUpdate, type ExceptionView } from './schema';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { isRealDate } from '../../platform/core/dates';
import { isUuid } from '../../platform/core/uuid';

/**
 * Exceptions of one parent kind. Rights are the parent module's: read to see, update to request or change (on a
 * parent the caller can read), delete to remove, review to approve or reject. The own level is judged on the
 * exception's owner and owner group, like any owned record; a decision also needs review on the parent.
 */

const approvers = alias(users, 'approver');
const right = (parent: ExceptionParent, r: 'read' | 'update' | 'delete' | 'review') => `${parent.module}:${r}` as Permission;
const todayOf = (now: Date) => now.toISOString().slice(0, 10);

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

function toView(parent: ExceptionParent, actor: Actor, row: Joined, today: string): ExceptionView {
  const e = row.e;
  const parentId = e[parent.column] as string;
  // At level own an exception can be readable (owned) while its parent is not: the parent is then not named.
  const parentOwned = { ownerId: row.parentOwnerId as string | null, ownerGroupId: row.parentOwnerGroupId as string | null };
  return {
    id: e.id, parentType: e.parentType, parentId, parent: { id: parentId, title: nameAsSeen(actor, parent.module, parentOwned, String(row.parentTitle)) },
    title: e.title, description: e.description, status: e.status, expiresAt: e.expiresAt, expired: e.expiresAt < today,
    approverId: e.approverId,
    approver: e.approverId && row.approverName ? { id: e.approverId, name: row.approverName, email: row.approverEmail ?? '' } : null,
    decidedAt: e.decidedAt?.toISOString() ?? null, decisionNote: e.decisionNote, requestedById: e.createdBy,
    ownerId: e.ownerId, ownerGroupId: e.ownerGroupId,
    owner: e.ownerId && row.ownerName ? { id: e.ownerId, name: row.ownerName, email: row.ownerEmail ?? '' } : null,
    ownerGroup: e.ownerGroupId && row.ownerGroupName ? { id: e.ownerGroupId, name: row.ownerGroupName } : null,
    createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString(),
  };
}

/**
 * The list's sort keys: the status in its list's order, people by name. Not the parent record: its title is hidden from
 * a reader who may not read it (level own), and an order by it would tell what the screen does not.
 */
const sortColumns: Record<string, AnyColumn | SQL> = {
  title: exceptions.title, status: inDefinedOrder(exceptions.status, EXCEPTION_STATUSES), expiresAt: exceptions.expiresAt,
  owner: ownerNameSort, approver: sql`lower(${approvers.name})`, createdAt: exceptions.createdAt, updatedAt: exceptions.updatedAt,
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
  return { rows: rows.map((r) => toView(parent, actor, r, today)), total, page, pageSize };
}

async function loadJoined(db: DbOrTx, parent: ExceptionParent, id: string) {
  if (!isUuid(id)) return undefined;
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
  return toView(parent, actor, await loadFor(db, parent, actor, id, 'read'), todayOf(now));
}

/** Loads the parent for an action: 404 when missing or unreadable, 403 when readable but the right is not held. */
async function requireParent(db: DbOrTx, parent: ExceptionParent, actor: Actor, parentId: string, r: 'update' | 'review') {
  const record = isUuid(parentId) ? await loadParent(db, parent, parentId) : undefined;
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

/** The field rules of one exception: the batch rules (below) over its own accounts and group. */
async function problemsOf(db: DbOrTx, c: Editable, requester: string | null): Promise<FieldProblem[]> {
  return editableProblems(c, await batchPeople(db, [c]), requester);
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
  const problems = await problemsOf(tx, candidate, actor.userId);
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
  const problems = await problemsOf(tx, candidate, before.createdBy);
  if (problems.length) throw invalid(problems);
  requireOwnLevelKeepsOwnership(actor, right(parent, 'update'), level, candidate);
  const [after] = await tx.update(exceptions).set({ ...candidate, title: candidate.title.trim(), updatedAt: new Date() })
    .where(eq(exceptions.id, id)).returning();
  await recordChange(tx, actor, { module: parent.module, recordType: parent.recordType, recordId: id, action: 'update', before: auditFields(before), after: auditFields(after) });
}

/** A refusal the person is told the reason of (it is about their own request, not their rights), and audited. */
const segregationRefusal = (reason: string) => new AppError('FORBIDDEN', reason, [], reason);

const SELF_APPROVER = 'must be someone other than the requester: nobody decides their own exception';

/**
 * Approves or rejects a requested exception: needs review on the parent; records who decided, when and why.
 * Segregation of duties: the requester may not decide their own exception (403, the reason audited). An administrator
 * (every right at level all) may, explicitly, with `override` and a note saying why; the override is recorded in the
 * Audit Log entry (`segregationOverride`) and History shows who decided.
 */
export async function decideException(tx: DbOrTx, parent: ExceptionParent, actor: Actor, id: string, input: ExceptionDecision): Promise<void> {
  requirePermission(actor, right(parent, 'review'));
  const { e: before } = await loadFor(tx, parent, actor, id, 'read');
  await requireParent(tx, parent, actor, before[parent.column] as string, 'review');
  if (before.status !== 'requested') throw conflict(`${parent.label} exception ${id} is already ${before.status}`);
  const ownRequest = before.createdBy !== null && before.createdBy === actor.userId;
  const note = (input.note ?? '').trim();
  if (input.override && !ownRequest) throw invalidField('override', 'only for deciding an exception you requested yourself');
  if (ownRequest) {
    const what = `${parent.label} exception ${id}`;
    if (!input.override) {
      throw segregationRefusal(`segregation of duties: ${what} was requested by you, so someone else decides it (an administrator may override, with a note)`);
    }
    if (!holdsEveryRight(actor)) throw segregationRefusal(`segregation of duties: overriding it on ${what} needs every right at level all (an administrator's)`);
    if (!note) throw invalidField('note', 'say why you decide an exception you requested yourself');
  }
  const [after] = await tx.update(exceptions).set({
    status: input.decision, approverId: actor.userId, decidedAt: new Date(), decisionNote: input.note ?? '', updatedAt: new Date(),
  }).where(eq(exceptions.id, id)).returning();
  await recordChange(tx, actor, {
    module: parent.module, recordType: parent.recordType, recordId: id, action: input.decision === 'approved' ? 'approve' : 'reject',
    before: auditFields(before), after: auditFields(after),
    ...(ownRequest ? { details: { segregationOverride: { requestedBy: before.createdBy, decidedBy: actor.userId, reason: note } } } : {}),
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

/* ---------- Batch writes (CSV import): set-based, the same rules as createException / updateException ---------- */

type StoredException = typeof exceptions.$inferSelect;
type Fields = Record<string, unknown>;

/** A batch row's result: written (with the audited fields before and after) or refused with every reason. */
export type ExceptionBatchOutcome =
  | { ok: true; id: string; changed: boolean; before: Fields | null; after: Fields }
  | { ok: false; problems: FieldProblem[] };

const refused = (error: unknown): ExceptionBatchOutcome => {
  if (!(error instanceof AppError)) throw error;
  if (error.problems.length) return { ok: false, problems: error.problems };
  return { ok: false, problems: [{ field: '(record)', message: error.code === 'FORBIDDEN' ? `not allowed: ${error.deniedReason ?? error.message}` : error.message }] };
};

/** Accounts and groups named by a batch, in two queries, so each row's checks need none. */
async function batchPeople(tx: DbOrTx, candidates: Editable[]) {
  const userIds = [...new Set(candidates.flatMap((c) => [c.ownerId, c.approverId]).filter((id): id is string => !!id && isUuid(id)))];
  const groupIds = [...new Set(candidates.map((c) => c.ownerGroupId).filter((id): id is string => !!id && isUuid(id)))];
  const [userRows, groupRows] = await Promise.all([
    userIds.length ? tx.select({ id: users.id, status: users.status }).from(users).where(inArray(users.id, userIds)) : [],
    groupIds.length ? tx.select({ id: groups.id }).from(groups).where(inArray(groups.id, groupIds)) : [],
  ]);
  return { status: new Map(userRows.map((u) => [u.id, u.status])), groups: new Set(groupRows.map((g) => g.id)) };
}

/** Every field rule of an exception (all problems, not the first), over preloaded accounts and groups: single writes and CSV batches share it. */
function editableProblems(c: Editable, people: Awaited<ReturnType<typeof batchPeople>>, requester: string | null): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!c.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
  if (!c.description.trim()) problems.push({ field: 'description', message: 'must not be blank' });
  if (!isRealDate(c.expiresAt)) problems.push({ field: 'expiresAt', message: 'must be a real date written YYYY-MM-DD' });
  const person = (field: 'approverId' | 'ownerId', id: string | null) => {
    if (!id) return;
    if (people.status.get(id) !== 'active') problems.push({ field, message: NOT_AN_ACTIVE_USER });
  };
  person('approverId', c.approverId);
  if (c.approverId && c.approverId === requester) problems.push({ field: 'approverId', message: SELF_APPROVER });
  person('ownerId', c.ownerId);
  if (c.ownerGroupId && !people.groups.has(c.ownerGroupId)) problems.push({ field: 'ownerGroupId', message: 'no such group' });
  return problems;
}

/**
 * Requests many exceptions at once (CSV import): per row the rules of createException — the parent exists, is readable
 * and the actor holds update on it (own level per row), the fields are valid, the exception arrives as requested — then
 * one INSERT and one Audit Log + History write for the accepted rows. Outcomes are in input order.
 */
export async function createExceptions(tx: DbOrTx, parent: ExceptionParent, actor: Actor, inputs: ExceptionCreate[]): Promise<ExceptionBatchOutcome[]> {
  const level = requirePermission(actor, right(parent, 'update'));
  const parentIds = [...new Set(inputs.map((i) => i.parentId.toLowerCase()).filter(isUuid))];
  const parentRows = parentIds.length
    ? await tx.select({ id: parent.idColumn, ownerId: parent.ownerColumn, ownerGroupId: parent.ownerGroupColumn }).from(parent.table).where(inArray(parent.idColumn, parentIds))
    : [];
  const parents = new Map(parentRows.map((p) => [String(p.id), { ownerId: (p.ownerId as string | null) ?? null, ownerGroupId: (p.ownerGroupId as string | null) ?? null }]));
  const candidates = inputs.map((input): Editable => {
    const unowned = input.ownerId === undefined && input.ownerGroupId === undefined;
    return {
      title: input.title, description: input.description, expiresAt: input.expiresAt, approverId: input.approverId ?? null,
      ownerId: unowned ? actor.userId : input.ownerId ?? null, ownerGroupId: input.ownerGroupId ?? null,
    };
  });
  const people = await batchPeople(tx, candidates);
  const outcomes: ExceptionBatchOutcome[] = new Array(inputs.length);
  const accepted: { index: number; values: Fields }[] = [];
  for (const [index, input] of inputs.entries()) {
    const parentId = input.parentId.toLowerCase();
    const candidate = candidates[index];
    try {
      const record = parents.get(parentId);
      if (!record) throw notFound(`${parent.label} ${input.parentId}`);
      requireOnRecord(actor, right(parent, 'update'), record, `${parent.label} ${input.parentId}`);
      const problems = editableProblems(candidate, people, actor.userId);
      if (input.status !== undefined && input.status !== 'requested') {
        problems.push({ field: 'status', message: 'an exception arrives as requested; approve or reject it with a decision' });
      }
      if (problems.length) throw invalid(problems);
      requireOwnLevelKeepsOwnership(actor, right(parent, 'update'), level, candidate);
    } catch (error) {
      outcomes[index] = refused(error);
      continue;
    }
    accepted.push({
      index,
      values: { ...candidate, title: candidate.title.trim(), parentType: parent.type, [parent.column]: parentId, status: 'requested', createdBy: actor.userId },
    });
  }
  if (accepted.length === 0) return outcomes;
  const rows = (await insertRows(tx, exceptions, accepted.map((a) => a.values), { returning: true })) as StoredException[];
  await recordChanges(tx, actor, rows.map((row) => ({
    module: parent.module, recordType: parent.recordType, recordId: row.id, action: 'create', before: null, after: auditFields(row),
  })));
  accepted.forEach((a, i) => { outcomes[a.index] = { ok: true, id: rows[i].id, changed: true, before: null, after: auditFields(rows[i]) }; });
  return outcomes;
}

/**
 * Changes many exceptions at once (CSV import) by the rules of updateException: readable (else not found), update at
 * the exception's own level, only while requested (a row that changes nothing is Unchanged whatever the status), valid
 * fields, ownership kept at level own; then one UPDATE and one Audit Log + History write.
 */
export async function updateExceptions(
  tx: DbOrTx, parent: ExceptionParent, actor: Actor, items: { id: string; patch: ExceptionUpdate }[],
): Promise<ExceptionBatchOutcome[]> {
  const level = requirePermission(actor, right(parent, 'update'));
  const stored = await readableExceptions(tx, parent, actor, { ids: items.map((i) => i.id) });
  const byId = new Map(stored.map((row) => [row.id, row]));
  const candidates = items.map(({ id, patch }): Editable | null => {
    const before = byId.get(id.toLowerCase());
    if (!before) return null;
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<Editable>;
    return {
      title: before.title, description: before.description, expiresAt: before.expiresAt, approverId: before.approverId,
      ownerId: before.ownerId, ownerGroupId: before.ownerGroupId, ...defined,
    };
  });
  const people = await batchPeople(tx, candidates.filter((c): c is Editable => c !== null));
  const outcomes: ExceptionBatchOutcome[] = new Array(items.length);
  const writes: { index: number; id: string; values: Editable; before: StoredException; after: StoredException }[] = [];
  for (const [index, { id }] of items.entries()) {
    const before = byId.get(id.toLowerCase());
    const candidate = candidates[index];
    const what = `${parent.label} exception ${id}`;
    try {
      if (!before || !candidate) throw notFound(what);
      if (level === 'own' && !ownsRecord(actor, before)) throw forbidden(`${right(parent, 'update')} is at level own and ${what} is not owned`);
      const after: StoredException = { ...before, ...candidate, title: candidate.title.trim() };
      if (Object.keys(diffFields(auditFields(before), auditFields(after))).length === 0) {
        outcomes[index] = { ok: true, id: before.id, changed: false, before: auditFields(before), after: auditFields(before) };
        continue;
      }
      if (before.status !== 'requested') throw conflict(`${what} is ${before.status}; a decided exception is not changed, request a new one`);
      const problems = editableProblems(candidate, people, before.createdBy);
      if (problems.length) throw invalid(problems);
      requireOwnLevelKeepsOwnership(actor, right(parent, 'update'), level, candidate);
      writes.push({ index, id: before.id, values: { ...candidate, title: candidate.title.trim() }, before, after });
    } catch (error) {
      outcomes[index] = refused(error);
    }
  }
  if (writes.length === 0) return outcomes;
  await updateRowsById(tx, exceptions, writes.map((w) => ({ id: w.id, values: { ...w.values } })));
  await recordChanges(tx, actor, writes.map((w) => ({
    module: parent.module, recordType: parent.recordType, recordId: w.id, action: 'update', before: auditFields(w.before), after: auditFields(w.after),
  })));
  for (const w of writes) outcomes[w.index] = { ok: true, id: w.id, changed: true, before: auditFields(w.before), after: auditFields(w.after) };
  return outcomes;
}

/**
 * Stored exceptions of the parent kind that the actor may read (owned by them or their groups, or on a parent they own,
 * at level own): by id, or all of them oldest first up to `limit`.
 */
export async function readableExceptions(
  db: DbOrTx, parent: ExceptionParent, actor: Actor, options: { ids?: string[]; limit?: number },
): Promise<StoredException[]> {
  if (levelOf(actor, right(parent, 'read')) === null) return [];
  const ids = options.ids ? [...new Set(options.ids.map((id) => id.toLowerCase()).filter(isUuid))] : undefined;
  if (ids && ids.length === 0) return [];
  const rows = await db.select({ e: exceptions }).from(exceptions)
    .innerJoin(parent.table, eq(parent.idColumn, parentColumn(parent)))
    .where(and(exceptionFilters(parent, actor, {}, todayOf(new Date())), ids ? inArray(exceptions.id, ids) : undefined))
    .orderBy(asc(exceptions.createdAt), asc(exceptions.id))
    .limit(options.limit ?? 1_000_000);
  return rows.map((r) => r.e);
}

/** Exceptions of one parent kind waiting for the actor's decision as their approver (the assistant's my_open_items). */
export async function exceptionsToDecide(db: DbOrTx, parent: ExceptionParent, actor: Actor) {
  if (!actor.userId) return [];
  const requested = await listExceptions(db, parent, actor, { status: 'requested', pageSize: 200 });
  return requested.rows.filter((e) => e.approverId === actor.userId).map((e) => ({ id: e.id, title: e.title, parent: e.parent, expiresAt: e.expiresAt }));
}
