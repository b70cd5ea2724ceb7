import { plural } from '../../platform/core/text';
import { randomUUID } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import { ownerNameSort } from '../../platform/records/sort-keys';
import type { DbOrTx } from '../../../db/client';
import { complianceAnalyses, complianceItems, compliancePackages, exceptions } from '../../../db/schema';
import { AppError, conflict } from '../../platform/core/errors';
import { insertRows, rowAsStored } from '../../platform/core/bulk-insert';
import { recordChange, recordChanges, type RecordChange } from '../../platform/audit/history';
import { PipelinedWrites } from '../../platform/core/pipelined-writes';
import type { Page } from '../../platform/http/paging';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import {
  auditFields, getRecord, listRecords, loadForAction, updateRecord, type ListParams, type RecordKind, type RecordView,
} from '../../platform/records/records';
import {
  ANALYSIS_RECORD_TYPE, ITEM_KINDS, ITEM_RECORD_TYPE, PACKAGE_LIMITS, PackageInput, type ItemCounts, type ItemKind, type PackageFields, type PackageItem, type PackageProblem,
  type PackageUpdate, type PackageView,
} from './schema';

/**
 * Compliance packages: a framework's item tree imported whole (every problem listed, nothing written when any),
 * with one analysis per requirement and additional item created in the same transaction, set-based.
 */

/** How many items of a kind a package holds, for sorting the list by its count columns. */
const itemCountSql = (kind: ItemKind) =>
  sql`(select count(*) from ${complianceItems} where ${complianceItems.packageId} = ${compliancePackages.id} and ${complianceItems.kind} = ${kind})`;

export const packageKind: RecordKind<typeof compliancePackages, PackageFields> = {
  module: 'compliance',
  recordType: 'compliancePackage',
  label: 'Compliance package',
  table: compliancePackages,
  titleColumn: compliancePackages.name,
  sortable: {
    name: compliancePackages.name, standard: compliancePackages.standard, version: compliancePackages.version,
    headings: itemCountSql('heading'), requirements: itemCountSql('requirement'), additional: itemCountSql('additional'), owner: ownerNameSort,
    createdAt: compliancePackages.createdAt, updatedAt: compliancePackages.updatedAt,
  },
  defaults: { standard: '', version: '', description: '' },
  toColumns: (c) => ({ ...c, name: c.name.trim(), standard: (c.standard ?? '').trim(), version: (c.version ?? '').trim() }),
  async check(_db, candidate) {
    return candidate.name.trim() ? [] : [{ field: 'name', message: 'must not be empty' }];
  },
};

/** An item as stored: trimmed, blank parent as null, blank kind as requirement. */
export interface NormalisedItem {
  code: string;
  name: string;
  description: string;
  parentCode: string | null;
  kind: ItemKind;
}

export function normaliseItem(item: PackageItem): NormalisedItem {
  const parent = (item.parentCode ?? '').trim();
  return {
    code: item.code.trim(),
    name: item.name.trim(),
    description: item.description ?? '',
    parentCode: parent === '' ? null : parent,
    kind: item.kind ? item.kind : 'requirement',
  };
}

const checkShape = TypeCompiler.Compile(PackageInput);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** "/items/12/code" -> index 12, field code; "/name" -> field name. */
function shapeProblem(path: string, message: string, items: unknown[]): PackageProblem {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'items' && parts.length >= 2 && /^\d+$/.test(parts[1])) {
    const index = Number(parts[1]);
    const code = isRecord(items[index]) ? text(items[index].code) : null;
    return { index, ...(code ? { code } : {}), field: parts.slice(2).join('.') || 'item', message };
  }
  return { field: parts.join('.') || 'body', message };
}

function shapeMessage(path: string, message: string): string {
  if (/Expected string length less or equal to (\d+)/.test(message)) return message.replace(/Expected string length less or equal to (\d+)/, 'at most $1 characters');
  if (/Expected array length to be less or equal to/.test(message) || (path === '/items' && /less or equal/.test(message))) {
    return `at most ${PACKAGE_LIMITS.items.toLocaleString('en')} items`;
  }
  if (path === '/items' && /greater or equal/.test(message)) return 'at least one item is required';
  if (/Unexpected property/.test(message)) return 'is not a package field';
  if (path.endsWith('/kind')) return `must be ${ITEM_KINDS.join(', ')} or blank (blank means requirement)`;
  if (path.endsWith('/parentCode')) return `must be the code of another item (at most ${PACKAGE_LIMITS.code} characters) or blank`;
  return message.replace(/^Expected/, 'expected');
}

/**
 * Every reason the package must be refused, in file order: the shape (types, lengths, item count, unknown keys),
 * then empty code or name, repeated code, a parent that is not in the file, and parents forming a cycle.
 * An empty list means the package can be imported.
 */
export function validatePackage(input: unknown): PackageProblem[] {
  const problems: PackageProblem[] = [];
  const items = isRecord(input) && Array.isArray(input.items) ? input.items : [];
  if (!checkShape.Check(input)) {
    const seen = new Set<string>();
    for (const error of checkShape.Errors(input)) {
      // A union (parentCode, kind) reports each branch; one line per field is enough.
      const key = error.path;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(shapeProblem(error.path, shapeMessage(error.path, error.message), items));
    }
  }
  if (isRecord(input) && typeof input.name === 'string' && !input.name.trim()) problems.push({ field: 'name', message: 'must not be empty' });

  const firstIndexOf = new Map<string, number>();
  const parentOf = new Map<string, string>();
  items.forEach((item, index) => {
    if (!isRecord(item)) return;
    const code = text(item.code)?.trim() ?? null;
    const at = code ? { index, code } : { index };
    if (code === '') problems.push({ ...at, field: 'code', message: 'must not be empty' });
    if (text(item.name)?.trim() === '') problems.push({ ...at, field: 'name', message: 'must not be empty' });
    if (!code) return;
    const first = firstIndexOf.get(code);
    if (first !== undefined) problems.push({ ...at, field: 'code', message: `repeats the code of item ${first}` });
    else firstIndexOf.set(code, index);
    const parent = text(item.parentCode)?.trim();
    if (parent && first === undefined) parentOf.set(code, parent);
  });
  items.forEach((item, index) => {
    if (!isRecord(item)) return;
    const parent = text(item.parentCode)?.trim();
    if (parent && !firstIndexOf.has(parent)) {
      const code = text(item.code)?.trim();
      problems.push({ index, ...(code ? { code } : {}), field: 'parentCode', message: `names ${parent}, which is not in the package` });
    }
  });
  for (const cycle of findCycles(parentOf)) {
    const path = [...cycle, cycle[0]].join(' → ');
    for (const code of cycle) problems.push({ index: firstIndexOf.get(code)!, code, field: 'parentCode', message: `parents form a cycle: ${path}` });
  }
  return problems.sort((a, b) => (a.index ?? -1) - (b.index ?? -1));
}

/** Each cycle in the child -> parent map once, as the codes along it; linear in the number of items. */
function findCycles(parentOf: Map<string, string>): string[][] {
  const state = new Map<string, 'walking' | 'done'>();
  const cycles: string[][] = [];
  for (const start of parentOf.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [];
    let code: string | undefined = start;
    while (code !== undefined && !state.has(code)) {
      state.set(code, 'walking');
      path.push(code);
      code = parentOf.get(code);
    }
    if (code !== undefined && state.get(code) === 'walking') cycles.push(path.slice(path.indexOf(code)));
    for (const walked of path) state.set(walked, 'done');
  }
  return cycles;
}

/** The 400 for a refused package: a short message, and every problem in `problems`. */
export function packageRefused(problems: PackageProblem[]): AppError {
  const where = (p: PackageProblem) => (p.line !== undefined ? `line ${p.line} ` : p.index !== undefined ? `items[${p.index}] ` : '');
  const shown = problems.slice(0, 5).map((p) => `${where(p)}${p.field}: ${p.message}`).join('; ');
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
  return new AppError('INVALID', `package refused (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${shown}${more}`, problems);
}

/** Trail entries (Audit Log + History) written per statement while the next are hashed; see importPackage. */
const TRAIL_CHUNK = 2_000;

/** A new row's fields as History records them: the stored values, defaults included, without id and timestamps. */
const createdFields = (table: typeof complianceItems | typeof complianceAnalyses, values: Record<string, unknown>) =>
  auditFields(rowAsStored(table, values)!);

/**
 * Creates the package, its items and one analysis per requirement and additional item, each with its Audit Log and
 * History entry (the package's entry also carries the counts), all in `tx`. The package and its analyses are owned by
 * the importing user.
 *
 * Set-based, as the CSV import: ids are made here (random UUIDs, as the column defaults would), so items, analyses and
 * their trail go in multi-row INSERTs sent without waiting (PipelinedWrites) while the next chunk of entries is hashed.
 */
export async function importPackage(tx: DbOrTx, actor: Actor, input: PackageInput): Promise<{ id: string }> {
  requirePermission(actor, 'compliance:create');
  const problems = validatePackage(input);
  if (problems.length) throw packageRefused(problems);
  const items = input.items.map(normaliseItem);
  const ownerId = actor.userId;
  const [pkg] = await tx.insert(compliancePackages).values({
    name: input.name.trim(),
    standard: (input.standard ?? '').trim(),
    version: (input.version ?? '').trim(),
    description: input.description ?? '',
    ownerId,
    ownerGroupId: null,
    createdBy: actor.userId,
  }).returning();
  const itemRows = items.map((item, position) => ({ id: randomUUID(), packageId: pkg.id, position, ...item }));
  const analysisRows = itemRows.filter((item) => item.kind !== 'heading')
    .map((item) => ({ id: randomUUID(), packageId: pkg.id, itemId: item.id, ownerId, ownerGroupId: null }));
  const writes = new PipelinedWrites();
  await insertRows(tx, complianceItems, itemRows, { writes });
  await insertRows(tx, complianceAnalyses, analysisRows, { writes });

  const counts = countKinds(items);
  const created = (recordType: string, table: typeof complianceItems | typeof complianceAnalyses) =>
    (row: { id: string } & Record<string, unknown>): RecordChange => ({
      module: 'compliance', recordType, recordId: row.id, action: 'create', before: null, after: createdFields(table, row),
    });
  const changes: RecordChange[] = [
    {
      module: 'compliance', recordType: packageKind.recordType, recordId: pkg.id, action: 'create', before: null, after: auditFields(pkg),
      details: { import: { items: counts.total, requirements: counts.requirement, additional: counts.additional, headings: counts.heading, analyses: analysisRows.length } },
    },
    ...itemRows.map(created(ITEM_RECORD_TYPE, complianceItems)),
    ...analysisRows.map(created(ANALYSIS_RECORD_TYPE, complianceAnalyses)),
  ];
  for (let start = 0; start < changes.length; start += TRAIL_CHUNK) {
    await recordChanges(tx, actor, changes.slice(start, start + TRAIL_CHUNK), writes);
    // Back-pressure: at most two chunks' statements in flight, so memory stays flat on a 10,000-item package.
    await writes.drain(4);
  }
  await writes.drain();
  return { id: pkg.id };
}

function countKinds(items: { kind: ItemKind }[]): ItemCounts {
  const counts: ItemCounts = { total: items.length, requirement: 0, additional: 0, heading: 0 };
  for (const item of items) counts[item.kind] += 1;
  return counts;
}

/** Item counts by kind for many packages in one query. */
export async function itemCountsOf(db: DbOrTx, packageIds: string[]): Promise<Map<string, ItemCounts>> {
  const result = new Map<string, ItemCounts>(packageIds.map((id) => [id, { total: 0, requirement: 0, additional: 0, heading: 0 }]));
  if (packageIds.length === 0) return result;
  const rows = await db.select({ packageId: complianceItems.packageId, kind: complianceItems.kind, n: count() })
    .from(complianceItems).where(inArray(complianceItems.packageId, packageIds))
    .groupBy(complianceItems.packageId, complianceItems.kind);
  for (const row of rows) {
    const counts = result.get(row.packageId)!;
    counts[row.kind] = row.n;
    counts.total += row.n;
  }
  return result;
}

type StoredView = RecordView<typeof compliancePackages>;
const withCounts = (view: StoredView, counts: ItemCounts | undefined): PackageView =>
  ({ ...view, itemCounts: counts ?? { total: 0, requirement: 0, additional: 0, heading: 0 } });

/** Packages the actor may read (own level: owned by them or their groups), each with its item counts. */
export async function listPackages(db: DbOrTx, actor: Actor, query: ListParams): Promise<Page<PackageView>> {
  const page = await listRecords(db, packageKind, actor, query);
  const counts = await itemCountsOf(db, page.rows.map((row) => row.id));
  return { ...page, rows: page.rows.map((row) => withCounts(row, counts.get(row.id))) };
}

/** One package with its item counts by kind; 404 when missing or not readable. */
export async function getPackage(db: DbOrTx, actor: Actor, id: string): Promise<PackageView> {
  const view = await getRecord(db, packageKind, actor, id);
  return withCounts(view, (await itemCountsOf(db, [id])).get(id));
}

/** The package in exactly the import shape, items in file order; importing it gives the identical tree. */
export async function exportPackage(db: DbOrTx, actor: Actor, id: string): Promise<PackageInput> {
  const pkg = await getRecord(db, packageKind, actor, id);
  const items = await db.select({
    code: complianceItems.code, name: complianceItems.name, description: complianceItems.description,
    parentCode: complianceItems.parentCode, kind: complianceItems.kind,
  }).from(complianceItems).where(eq(complianceItems.packageId, id)).orderBy(asc(complianceItems.position));
  return { name: pkg.name, standard: pkg.standard, version: pkg.version, description: pkg.description, items };
}

/** Changes the package's own fields (name, standard, version, description, owner); the item tree stays as imported. */
export async function updatePackage(tx: DbOrTx, actor: Actor, id: string, patch: PackageUpdate): Promise<{ changed: boolean }> {
  return updateRecord(tx, packageKind, actor, id, patch);
}

/**
 * Deletes the package with its items, analyses, their mappings and exceptions (all cascade); one Audit Log
 * and History entry records what went with it.
 */
export async function deletePackage(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const before = await loadForAction(tx, packageKind, actor, id, 'delete');
  // Exceptions are decisions on the record: a package whose requirements carry some is not deleted under them.
  const [{ held }] = await tx.select({ held: count() }).from(exceptions)
    .innerJoin(complianceAnalyses, eq(complianceAnalyses.id, exceptions.complianceAnalysisId))
    .where(eq(complianceAnalyses.packageId, id));
  if (held > 0) throw conflict(`Package ${id} is still referenced by ${plural(held, 'compliance exception')}; remove those first`);
  const counts = (await itemCountsOf(tx, [id])).get(id)!;
  const [{ analyses }] = await tx.select({ analyses: count() }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
  await tx.delete(compliancePackages).where(eq(compliancePackages.id, id));
  await recordChange(tx, actor, {
    module: 'compliance', recordType: packageKind.recordType, recordId: id, action: 'delete', before: auditFields(before), after: null,
    details: { removed: { items: counts.total, analyses } },
  });
}

/** Item kinds accepted from a CSV cell: ignoring case, spaces and underscores; blank means requirement. */
export function kindFromText(value: string): ItemKind | '' | null {
  const key = value.trim().toLowerCase().replace(/[\s_]+/g, '');
  if (key === '') return '';
  return ITEM_KINDS.find((kind) => kind === key) ?? null;
}

/** Analyses of a package for callers that need the item behind each (ids only; the analyses helper owns the rest). */
export async function analysisIdsByCode(db: DbOrTx, packageId: string): Promise<Map<string, string>> {
  const rows = await db.select({ code: complianceItems.code, id: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
    .where(and(eq(complianceAnalyses.packageId, packageId), ne(complianceItems.kind, 'heading')));
  return new Map(rows.map((row) => [row.code, row.id]));
}
