import { and, asc, count, eq, ilike, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { accountReviewItems, accountReviewPrograms, users } from '../../../db/schema';
import { conflict, invalid, notFound, type FieldProblem } from '../../platform/core/errors';
import { listHistory, recordChange, type HistoryView } from '../../platform/audit/history';
import { paging, type Page } from '../../platform/http/paging';
import type { Actor } from '../../platform/permissions/permissions';
import { getRecord, loadForAction, referencedBy, type RecordKind } from '../../platform/records/records';
import type { Decision, ItemCreate, ItemDecision, ItemListQuery, ItemView, ProgramCreate } from './schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { isUuid } from '../../platform/core/uuid';
import { isRealDate } from '../../platform/core/dates';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { PROGRAM_STATUSES } from './schema';

const MODULE = 'accountReviews';
/** Stored in the Audit Log and History for review items. */
export const ITEM_RECORD_TYPE = 'accountReviewItem';


export const programKind: RecordKind<typeof accountReviewPrograms, ProgramCreate> = {
  module: MODULE,
  recordType: 'accountReviewProgram',
  label: 'Review program',
  table: accountReviewPrograms,
  titleColumn: accountReviewPrograms.name,
  statusColumn: accountReviewPrograms.status,
  sortable: {
    name: accountReviewPrograms.name, status: inDefinedOrder(accountReviewPrograms.status, PROGRAM_STATUSES), dueOn: accountReviewPrograms.dueOn, owner: ownerNameSort,
    createdAt: accountReviewPrograms.createdAt, updatedAt: accountReviewPrograms.updatedAt,
  },
  defaults: { description: '', status: 'open', dueOn: null },
  references: [referencedBy({ one: 'review item', many: 'review items' }, accountReviewItems, accountReviewItems.programId)],
  toColumns: (c) => ({ ...c, name: c.name.trim() }),
  async check(_db, candidate) {
    const problems: FieldProblem[] = [];
    if (!candidate.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
    if (candidate.dueOn && !isRealDate(candidate.dueOn)) problems.push({ field: 'dueOn', message: 'must be a real date written YYYY-MM-DD' });
    return problems;
  },
};

type Program = typeof accountReviewPrograms.$inferSelect;
type Item = typeof accountReviewItems.$inferSelect;

/** The program after the permission check (404 unreadable, 403 without the right); writes to its items need it open. */
export async function programForItemWrite(tx: DbOrTx, actor: Actor, programId: string): Promise<Program> {
  const program = await loadForAction(tx, programKind, actor, programId, 'update');
  if (program.status === 'closed') throw conflict(`Review program ${programId} is closed; reopen it to change its items`);
  return program;
}

export interface ActiveUser {
  id: string;
  email: string;
  status: string;
}

/** Users by email (case-insensitive), in one query for any number of emails; keys are lower-cased. */
export async function usersByEmail(db: DbOrTx, emails: readonly string[]): Promise<Map<string, ActiveUser>> {
  const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length) return new Map();
  const rows = await db.select({ id: users.id, email: users.email, status: users.status }).from(users)
    .where(inArray(sql`lower(${users.email})`, wanted));
  return new Map(rows.map((r) => [r.email.toLowerCase(), r]));
}

/** The problem with naming this email as a person on an item, if any. */
export function personProblem(field: string, email: string | null | undefined, known: Map<string, ActiveUser>): FieldProblem | null {
  if (!email?.trim()) return null;
  const user = known.get(email.trim().toLowerCase());
  if (!user) return { field, message: `no user with email ${email.trim()}` };
  if (user.status !== 'active') return { field, message: `${email.trim()} is not an active user` };
  return null;
}

const owners = alias(users, 'item_owner');
const reviewers = alias(users, 'item_reviewer');

function selectItems(db: DbOrTx) {
  return db.select({
    item: accountReviewItems,
    ownerName: owners.name, ownerEmail: owners.email,
    reviewerName: reviewers.name, reviewerEmail: reviewers.email,
  }).from(accountReviewItems)
    .leftJoin(owners, eq(owners.id, accountReviewItems.ownerId))
    .leftJoin(reviewers, eq(reviewers.id, accountReviewItems.reviewerId));
}

type JoinedItem = Awaited<ReturnType<ReturnType<typeof selectItems>['execute']>>[number];

const person = (id: string | null, name: string | null, email: string | null) => (id && name ? { id, name, email: email ?? '' } : null);

function toItemView({ item, ownerName, ownerEmail, reviewerName, reviewerEmail }: JoinedItem): ItemView {
  // Field by field: list rows are sent as built (not re-checked), so a new column is not sent until the view names it.
  return {
    id: item.id,
    programId: item.programId,
    account: item.account,
    system: item.system,
    ownerId: item.ownerId,
    decision: item.decision,
    reviewerId: item.reviewerId,
    notes: item.notes,
    owner: person(item.ownerId, ownerName, ownerEmail),
    reviewer: person(item.reviewerId, reviewerName, reviewerEmail),
    reviewedAt: item.reviewedAt?.toISOString() ?? null,
    createdAt: item.createdAt.toISOString(),
    updatedAt: item.updatedAt.toISOString(),
  };
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A program's items, oldest first, paged; needs accountReviews:read on the program. */
export async function listItems(db: DbOrTx, actor: Actor, programId: string, query: ItemListQuery = {}): Promise<Page<ItemView>> {
  await getRecord(db, programKind, actor, programId);
  const { page, pageSize, offset } = paging(query);
  const decided: SQL | undefined = query.decision === 'pending'
    ? isNull(accountReviewItems.decision)
    : query.decision ? eq(accountReviewItems.decision, query.decision) : undefined;
  const text = query.q ? `%${escapeLike(query.q)}%` : null;
  const where = and(
    eq(accountReviewItems.programId, programId),
    decided,
    text ? or(ilike(accountReviewItems.account, text), ilike(accountReviewItems.system, text)) : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    selectItems(db).where(where).orderBy(asc(accountReviewItems.system), asc(accountReviewItems.account), asc(accountReviewItems.id))
      .limit(pageSize).offset(offset),
    db.select({ total: count() }).from(accountReviewItems).where(where),
  ]);
  return { rows: rows.map(toItemView), total, page, pageSize };
}

/** Counts of a program's items by decision (pending = not decided yet), for the program page. */
export async function itemCounts(db: DbOrTx, programId: string): Promise<Record<'pending' | 'keep' | 'revoke' | 'modify', number>> {
  const rows = await db.select({ decision: accountReviewItems.decision, n: count() }).from(accountReviewItems)
    .where(eq(accountReviewItems.programId, programId)).groupBy(accountReviewItems.decision);
  const counts = { pending: 0, keep: 0, revoke: 0, modify: 0 };
  for (const row of rows) counts[row.decision ?? 'pending'] = row.n;
  return counts;
}

async function loadItem(db: DbOrTx, programId: string, itemId: string): Promise<Item> {
  const [item] = await db.select().from(accountReviewItems)
    .where(and(eq(accountReviewItems.id, itemId), eq(accountReviewItems.programId, programId)));
  if (!item) throw notFound(`Review item ${itemId}`);
  return item;
}

/** The fields History and the Audit Log keep for an item. */
export function itemAuditFields(item: Item): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, ...fields } = item;
  return fields;
}

/** The accounts already in a program among the given (system, account) pairs, keyed `system\u0000account`. */
export async function existingAccounts(db: DbOrTx, programId: string, pairs: readonly { system: string; account: string }[]): Promise<Map<string, string>> {
  if (!pairs.length) return new Map();
  const systems = [...new Set(pairs.map((p) => p.system))];
  const rows = await db.select({ id: accountReviewItems.id, system: accountReviewItems.system, account: accountReviewItems.account })
    .from(accountReviewItems)
    .where(and(eq(accountReviewItems.programId, programId), inArray(accountReviewItems.system, systems)));
  return new Map(rows.map((r) => [accountKey(r), r.id]));
}

export const accountKey = (pair: { system: string; account: string }) => `${pair.system}\u0000${pair.account}`;

/** Every problem with a new item's account, system and owner (blank, unknown or inactive owner, already in the program). */
export async function newItemProblems(db: DbOrTx, programId: string, input: { account?: string; system?: string; owner?: string | null }): Promise<FieldProblem[]> {
  const account = input.account?.trim() ?? '';
  const system = input.system?.trim() ?? '';
  const problems: FieldProblem[] = [];
  if (!account) problems.push({ field: 'account', message: 'must not be blank' });
  if (!system) problems.push({ field: 'system', message: 'must not be blank' });
  const ownerProblem = personProblem('owner', input.owner, await usersByEmail(db, input.owner ? [input.owner] : []));
  if (ownerProblem) problems.push(ownerProblem);
  if (account && system && (await existingAccounts(db, programId, [{ system, account }])).has(accountKey({ system, account }))) {
    problems.push({ field: 'account', message: `${account} on ${system} is already in this program` });
  }
  return problems;
}

/** Adds an account to review (needs accountReviews:update on the program, which must be open). */
export async function addItem(tx: DbOrTx, actor: Actor, programId: string, input: ItemCreate): Promise<{ id: string }> {
  await programForItemWrite(tx, actor, programId);
  const problems = await newItemProblems(tx, programId, input);
  if (problems.length) throw invalid(problems);
  const ownerId = input.owner ? (await usersByEmail(tx, [input.owner])).get(input.owner.trim().toLowerCase())!.id : null;
  const [row] = await tx.insert(accountReviewItems).values({
    programId, account: input.account.trim(), system: input.system.trim(), ownerId, notes: input.notes ?? '',
  }).returning();
  await recordChange(tx, actor, { module: MODULE, recordType: ITEM_RECORD_TYPE, recordId: row.id, action: 'create', before: null, after: itemAuditFields(row) });
  return { id: row.id };
}

/**
 * Records a decision on an item: keep, revoke or modify. The reviewer is whoever decides unless another active user
 * is named; the time is now. Needs accountReviews:update on the program; a closed program answers 409.
 */
export async function decideItem(tx: DbOrTx, actor: Actor, programId: string, itemId: string, input: ItemDecision): Promise<void> {
  await programForItemWrite(tx, actor, programId);
  const before = await loadItem(tx, programId, itemId);
  let reviewerId = actor.userId;
  if (input.reviewer) {
    const known = await usersByEmail(tx, [input.reviewer]);
    const problem = personProblem('reviewer', input.reviewer, known);
    if (problem) throw invalid([problem]);
    reviewerId = known.get(input.reviewer.trim().toLowerCase())!.id;
  }
  const [after] = await tx.update(accountReviewItems).set({
    decision: input.decision, reviewerId, reviewedAt: new Date(), updatedAt: new Date(),
    ...(input.notes !== undefined ? { notes: input.notes } : {}),
  }).where(eq(accountReviewItems.id, itemId)).returning();
  await recordChange(tx, actor, {
    module: MODULE, recordType: ITEM_RECORD_TYPE, recordId: itemId, action: 'update',
    before: itemAuditFields(before), after: itemAuditFields(after), details: { programId, decision: input.decision },
  });
}

/** Removes an item from an open program (needs accountReviews:update on it); the History keeps what it held. */
export async function removeItem(tx: DbOrTx, actor: Actor, programId: string, itemId: string): Promise<void> {
  await programForItemWrite(tx, actor, programId);
  const before = await loadItem(tx, programId, itemId);
  await tx.delete(accountReviewItems).where(eq(accountReviewItems.id, itemId));
  await recordChange(tx, actor, { module: MODULE, recordType: ITEM_RECORD_TYPE, recordId: itemId, action: 'delete', before: itemAuditFields(before), after: null });
}

export async function getItem(db: DbOrTx, actor: Actor, programId: string, itemId: string): Promise<ItemView> {
  await getRecord(db, programKind, actor, programId);
  const [row] = await selectItems(db).where(and(eq(accountReviewItems.id, itemId), eq(accountReviewItems.programId, programId)));
  if (!row) throw notFound(`Review item ${itemId}`);
  return toItemView(row);
}

/** An item's History (decisions and changes); needs accountReviews:read on the program. */
export async function itemHistory(db: DbOrTx, actor: Actor, programId: string, itemId: string): Promise<HistoryView[]> {
  await getRecord(db, programKind, actor, programId);
  await loadItem(db, programId, itemId);
  return listHistory(db, ITEM_RECORD_TYPE, itemId);
}

/** One reviewed account as the account review results report shows it: the program, the account and the decision. */
export interface ReviewResult {
  program: string;
  programStatus: 'open' | 'closed';
  programDueOn: string | null;
  system: string;
  account: string;
  owner: string | null;
  decision: Decision | null;
  reviewer: string | null;
  /** When the decision was recorded, as ISO-8601 text. */
  reviewedAt: string | null;
  notes: string;
}

/** What the results may be narrowed to (the Report Center's filters). */
export interface ReviewResultNarrowing {
  programId?: string;
  programStatus?: 'open' | 'closed';
  decision?: Decision | 'pending';
  ownerGroupId?: string;
  /** Decided on or after / on or before this day (YYYY-MM-DD, UTC), both included. */
  reviewedFrom?: string;
  reviewedTo?: string;
}

/** The review programs the actor may read (own level: those they or their groups own), by name: the report's program filter. */
export async function readablePrograms(db: DbOrTx, actor: Actor): Promise<{ id: string; name: string }[]> {
  const p = accountReviewPrograms;
  return db.select({ id: p.id, name: p.name }).from(p)
    .where(ownershipCondition(actor, 'accountReviews:read', p.ownerId, p.ownerGroupId)).orderBy(asc(p.name), asc(p.id));
}

/**
 * Every item of every review program the actor may read (accountReviews:read; own level: the programs they or their
 * groups own), by program, system and account, a page at a time: each page one statement with the program and the
 * people named by joins, the next page after the last row's key (no OFFSET), so a results report of any size is read
 * once with memory flat.
 */
export async function* reviewResultPages(db: DbOrTx, actor: Actor, narrow: ReviewResultNarrowing = {}, pageSize = 1000): AsyncGenerator<ReviewResult[]> {
  const p = accountReviewPrograms;
  const i = accountReviewItems;
  const reviewedDay = sql`(${i.reviewedAt} at time zone 'UTC')::date`;
  const where = and(
    ownershipCondition(actor, 'accountReviews:read', p.ownerId, p.ownerGroupId),
    narrow.programId ? eq(p.id, narrow.programId) : undefined,
    narrow.programStatus ? eq(p.status, narrow.programStatus) : undefined,
    narrow.ownerGroupId ? eq(p.ownerGroupId, narrow.ownerGroupId) : undefined,
    narrow.decision === 'pending' ? isNull(i.decision) : narrow.decision ? eq(i.decision, narrow.decision) : undefined,
    narrow.reviewedFrom ? sql`${reviewedDay} >= ${narrow.reviewedFrom}::date` : undefined,
    narrow.reviewedTo ? sql`${reviewedDay} <= ${narrow.reviewedTo}::date` : undefined,
  );
  let after: { program: string; programId: string; system: string; account: string; id: string } | undefined;
  for (;;) {
    const next = after
      ? sql`(${p.name}, ${p.id}, ${i.system}, ${i.account}, ${i.id}) > (${after.program}, ${after.programId}::uuid, ${after.system}, ${after.account}, ${after.id}::uuid)`
      : undefined;
    const rows = await db.select({
      id: i.id, programId: p.id, program: p.name, programStatus: p.status, programDueOn: p.dueOn, system: i.system, account: i.account,
      owner: owners.name, decision: i.decision, reviewer: reviewers.name,
      reviewedAt: sql<string | null>`to_char(${i.reviewedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`, notes: i.notes,
    }).from(i)
      .innerJoin(p, eq(p.id, i.programId))
      .leftJoin(owners, eq(owners.id, i.ownerId))
      .leftJoin(reviewers, eq(reviewers.id, i.reviewerId))
      .where(and(where, next))
      .orderBy(asc(p.name), asc(p.id), asc(i.system), asc(i.account), asc(i.id))
      .limit(pageSize);
    if (rows.length === 0) return;
    yield rows.map(({ id: _id, programId: _programId, ...result }) => result);
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1];
    after = { program: last.program, programId: last.programId, system: last.system, account: last.account, id: last.id };
  }
}

/** The program an item belongs to, for the item's address in History and the Audit Log; 404 unless the program may be read. */
export async function itemProgram(db: DbOrTx, actor: Actor, itemId: string): Promise<string> {
  const [item] = isUuid(itemId) ? await db.select({ programId: accountReviewItems.programId }).from(accountReviewItems).where(eq(accountReviewItems.id, itemId)) : [];
  if (!item) throw notFound(`Account review item ${itemId}`);
  await getRecord(db, programKind, actor, item.programId);
  return item.programId;
}
