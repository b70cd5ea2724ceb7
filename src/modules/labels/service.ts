import { and, asc, count, eq, ilike, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { labels } from '../../../db/schema';
import { conflict, invalid, notFound, type FieldProblem } from '../../platform/core/errors';
import { listHistory, recordChange, type HistoryView } from '../../platform/audit/history';
import { orderBy, paging, type Page } from '../../platform/http/paging';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import type { LabelInput, LabelListQuery, LabelPatch, LabelView } from './schema';
import { isUuid } from '../../platform/core/uuid';
import { labelUse, type LabelUse } from '../../platform/records/labels';

/**
 * Labels are a supporting list managed in Settings: reading needs settings:read, adding settings:create, renaming,
 * recolouring and deleting settings:update (Settings has no delete right).
 */

const COLOR = /^#[0-9a-fA-F]{6}$/;
const DEFAULT_COLOR = '#888888';

const toView = (row: typeof labels.$inferSelect): LabelView => ({
  id: row.id, name: row.name, color: row.color, description: row.description,
  createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
});
const historyFields = (row: typeof labels.$inferSelect) => ({ name: row.name, color: row.color, description: row.description });

export async function listLabels(db: DbOrTx, actor: Actor, query: LabelListQuery): Promise<Page<LabelView>> {
  requirePermission(actor, 'settings:read');
  const { page, pageSize, offset } = paging(query);
  const where = query.q ? ilike(labels.name, `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined;
  const order = orderBy(query.sort, { name: labels.name, createdAt: labels.createdAt }, [asc(labels.name), asc(labels.id)], labels.id);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(labels).where(where).orderBy(...order).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(labels).where(where),
  ]);
  return { rows: rows.map(toView), total, page, pageSize };
}

async function load(db: DbOrTx, id: string, lock = false) {
  const query = db.select().from(labels).where(eq(labels.id, id));
  const [row] = isUuid(id) ? await (lock ? query.for('update') : query) : [];
  if (!row) throw notFound(`Label ${id}`);
  return row;
}

export async function getLabel(db: DbOrTx, actor: Actor, id: string): Promise<LabelView> {
  requirePermission(actor, 'settings:read');
  return toView(await load(db, id));
}

/** Every problem at once; a name already taken (ignoring case) is a conflict with existing data (409). */
async function checked(db: DbOrTx, candidate: { name: string; color: string; description: string }, exceptId?: string) {
  const problems: FieldProblem[] = [];
  const name = candidate.name.trim();
  if (!name) problems.push({ field: 'name', message: 'must not be blank' });
  if (name.length > 80) problems.push({ field: 'name', message: 'must be at most 80 characters' });
  if (candidate.description.length > 2000) problems.push({ field: 'description', message: 'must be at most 2000 characters' });
  if (!COLOR.test(candidate.color)) problems.push({ field: 'color', message: 'must be a colour written #rrggbb' });
  if (problems.length) throw invalid(problems);
  const [clash] = await db.select({ name: labels.name }).from(labels)
    .where(and(sql`lower(${labels.name}) = lower(${name})`, exceptId ? ne(labels.id, exceptId) : undefined));
  if (clash) throw conflict(`A label named "${clash.name}" already exists`);
  return { ...candidate, name };
}

export async function createLabel(tx: DbOrTx, actor: Actor, input: LabelInput): Promise<{ id: string }> {
  requirePermission(actor, 'settings:create');
  const values = await checked(tx, { name: input.name, color: input.color ?? DEFAULT_COLOR, description: input.description ?? '' });
  const [row] = await tx.insert(labels).values(values).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'label', recordId: row.id, action: 'create', before: null, after: historyFields(row) });
  return { id: row.id };
}

export async function updateLabel(tx: DbOrTx, actor: Actor, id: string, patch: LabelPatch): Promise<LabelView> {
  requirePermission(actor, 'settings:update');
  const before = await load(tx, id);
  const values = await checked(tx, {
    name: patch.name ?? before.name, color: patch.color ?? before.color, description: patch.description ?? before.description,
  }, id);
  const [after] = await tx.update(labels).set({ ...values, updatedAt: new Date() }).where(eq(labels.id, id)).returning();
  await recordChange(tx, actor, { module: 'settings', recordType: 'label', recordId: id, action: 'update', before: historyFields(before), after: historyFields(after) });
  return toView(after);
}

/**
 * The records carrying a label, by type, as `reader` may see them: found through the record-type declarations of the
 * registers carrying labels (the register kit), never a list kept here.
 */
export async function labelInUse(db: DbOrTx, reader: Actor, id: string): Promise<LabelUse[]> {
  requirePermission(reader, 'settings:read');
  await load(db, id);
  return labelUse(db, reader, id, RECORDS_NAMED);
}

/** Records of each type a refused deletion names on the screen (the Label filter of each list finds them all). */
const RECORDS_NAMED = 10;

/**
 * A label records still carry is not deleted (409 naming how many records of each type carry it): deleting it would
 * leave its id on them with no name. The count includes records the caller may not read; none is named here.
 */
export async function deleteLabel(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  requirePermission(actor, 'settings:update');
  // Locked first: a write putting this label on a record meanwhile waits, or is counted below (labelProblems).
  const before = await load(tx, id, true);
  const uses = await labelUse(tx, actor, id, 0);
  if (uses.length) {
    throw conflict(`Label "${before.name}" is still carried by ${uses.map((use) => `${use.count} ${use.label}`).join(', ')}; remove it from those records first`);
  }
  await tx.delete(labels).where(eq(labels.id, id));
  await recordChange(tx, actor, { module: 'settings', recordType: 'label', recordId: id, action: 'delete', before: historyFields(before), after: null });
}

export async function labelHistory(db: DbOrTx, actor: Actor, id: string): Promise<HistoryView[]> {
  requirePermission(actor, 'settings:read');
  await load(db, id);
  return listHistory(db, 'label', id);
}
