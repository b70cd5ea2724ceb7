import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { assets, businessUnits, risks } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { ownershipCondition } from '../../platform/permissions/ownership';
import type { Actor } from '../../platform/permissions/permissions';
import { requireReadableLink } from '../../platform/records/links';
import { referencedBy, type RecordKind } from '../../platform/records/records';
import type { BusinessUnitCreate, BusinessUnitTreeEntry } from './schema';
import { isUuid } from '../../platform/core/uuid';
import { ownerNameSort } from '../../platform/records/sort-keys';

type BusinessUnitRow = typeof businessUnits.$inferSelect;


/** True when `unitId` is `candidateParentId` or one of its ancestors: making it the parent would close a cycle. */
async function isAncestorOrSelf(db: DbOrTx, unitId: string, candidateParentId: string): Promise<boolean> {
  // UNION (not UNION ALL) stops on repeated rows, so the walk ends even on data that somehow holds a cycle.
  const rows = await db.execute<{ id: string }>(sql`
    with recursive chain(id, parent_id) as (
      select id, parent_id from ${businessUnits} where id = ${candidateParentId}
      union
      select bu.id, bu.parent_id from ${businessUnits} bu join chain on bu.id = chain.parent_id
    )
    select id from chain where id = ${unitId} limit 1`);
  const list = Array.isArray(rows) ? rows : (rows as { rows: { id: string }[] }).rows;
  return list.length > 0;
}

async function parentProblems(db: DbOrTx, actor: Actor, candidate: BusinessUnitCreate, before: BusinessUnitRow | null): Promise<FieldProblem[]> {
  const parentId = candidate.parentId ?? null;
  if (!parentId || parentId === (before?.parentId ?? null)) return [];
  if (before && parentId === before.id) return [{ field: 'parentId', message: 'a business unit cannot be its own parent' }];
  await requireReadableLink(db, actor, businessUnitKind, 'parentId', parentId);
  if (before) {
    // Two concurrent moves (A under B, B under A) would each pass the check alone; serialise hierarchy moves.
    await db.execute(sql`select pg_advisory_xact_lock(hashtext('business_units.parent_id'))`);
    if (await isAncestorOrSelf(db, before.id, parentId)) {
      return [{ field: 'parentId', message: 'would make the business unit its own ancestor (a cycle)' }];
    }
  }
  return [];
}

async function siblingNameTaken(db: DbOrTx, name: string, parentId: string | null, selfId: string | null): Promise<boolean> {
  const [{ n }] = await db.select({ n: count() }).from(businessUnits).where(and(
    sql`lower(${businessUnits.name}) = lower(${name})`,
    parentId ? eq(businessUnits.parentId, parentId) : sql`${businessUnits.parentId} is null`,
    selfId ? ne(businessUnits.id, selfId) : undefined,
  ));
  return n > 0;
}

export const businessUnitKind: RecordKind<typeof businessUnits, BusinessUnitCreate> = {
  module: 'businessUnits',
  recordType: 'businessUnit',
  label: 'Business unit',
  table: businessUnits,
  titleColumn: businessUnits.name,
  sortable: { name: businessUnits.name, owner: ownerNameSort, createdAt: businessUnits.createdAt, updatedAt: businessUnits.updatedAt },
  defaults: { description: '', parentId: null },
  filters: { parentId: (value) => (isUuid(value) ? eq(businessUnits.parentId, value) : sql`false`) },
  toColumns: (c) => ({ ...c, name: c.name.trim() }),
  async check(db, candidate, before, actor) {
    const problems: FieldProblem[] = [];
    const name = candidate.name.trim();
    if (!name) problems.push({ field: 'name', message: 'must not be blank' });
    problems.push(...(await parentProblems(db, actor, candidate, before)));
    if (name && !problems.some((p) => p.field === 'parentId')
      && (await siblingNameTaken(db, name, candidate.parentId ?? null, before?.id ?? null))) {
      problems.push({ field: 'name', message: `a business unit named "${name}" already exists under the same parent` });
    }
    return problems;
  },
  references: [
    referencedBy({ one: 'child business unit', many: 'child business units' }, businessUnits, businessUnits.parentId, { kind: 'businessUnit', id: businessUnits.id }),
    referencedBy({ one: 'asset', many: 'assets' }, assets, assets.businessUnitId, { kind: 'asset', id: assets.id }),
    referencedBy({ one: 'risk', many: 'risks' }, risks, risks.businessUnitId, { kind: 'risk', id: risks.id }),
  ],
};

interface TreeNode {
  row: Omit<BusinessUnitTreeEntry, 'depth' | 'path'>;
  children: TreeNode[];
}

/** Every unit the actor can read, depth-first; units whose parent is unreadable are placed at the top. */
export async function businessUnitTree(db: DbOrTx, actor: Actor): Promise<BusinessUnitTreeEntry[]> {
  const rows = await db.select({
    id: businessUnits.id, name: businessUnits.name, description: businessUnits.description, parentId: businessUnits.parentId,
    ownerId: businessUnits.ownerId, ownerGroupId: businessUnits.ownerGroupId,
  }).from(businessUnits)
    .where(ownershipCondition(actor, 'businessUnits:read', businessUnits.ownerId, businessUnits.ownerGroupId))
    .orderBy(asc(sql`lower(${businessUnits.name})`), asc(businessUnits.id));
  const nodes = new Map<string, TreeNode>(rows.map((row) => [row.id, { row, children: [] }]));
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.row.parentId ? nodes.get(node.row.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const entries: BusinessUnitTreeEntry[] = [];
  const walk = (level: TreeNode[], path: string[]) => {
    for (const node of level) {
      const own = [...path, node.row.name];
      entries.push({ ...node.row, depth: path.length, path: own });
      walk(node.children, own);
    }
  };
  walk(roots, []);
  return entries;
}

/** Picker options for forms: every readable unit labelled with its path ("Group › Finance › Payroll"), in tree order. */
export async function businessUnitOptions(db: DbOrTx, actor: Actor): Promise<{ value: string; label: string }[]> {
  return (await businessUnitTree(db, actor)).map((entry) => ({ value: entry.id, label: entry.path.join(' › ') }));
}
