import { and, asc, count, eq, ilike, inArray, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { alias, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import {
  analysisControls, analysisPolicies, analysisProjects, analysisRisks, complianceAnalyses, complianceItems, compliancePackages, controls, groups,
  policies, projects, risks, users,
} from '../../../db/schema';
import { AppError, conflict, forbidden, invalid, notFound, type FieldProblem } from '../../platform/core/errors';
import { refusalOf, type BatchResult } from '../../platform/records/batch';
import { describeHistory, historyWithParts, type ShownEntry } from '../../platform/records/history-format';
import { listHistory, recordChange, recordChanges, type HistoryView, type RecordChange } from '../../platform/audit/history';
import { NOT_AN_ACTIVE_USER, ownerProblems, ownershipCondition, requireOwnLevelKeepsOwnership } from '../../platform/permissions/ownership';
import { orderBy, paging, type Page } from '../../platform/http/paging';
import { canTouch, levelOf, ownsRecord, requirePermission, type Actor, type Module, type Owned, type Permission } from '../../platform/permissions/permissions';
import { historyAsSeen, readableLinked, requireLinked, unreadableLink, type LinkTarget } from '../../platform/records/links';
import { controlKind } from '../controls/service';
import { policyKind } from '../policies/service';
import { projectKind } from '../projects/service';
import { riskLinkTarget } from '../risks/service';
import {
  ANALYSIS_RECORD_TYPE, MAPPING_KIND_NAMES,
  type AnalysisDetail, type AnalysisListQuery, type AnalysisStatus, type AnalysisUpdate, type AnalysisView, type MappingKind, type PackageScore, type StatusCounts,
} from './schema';
import { isUuid } from '../../platform/core/uuid';

/**
 * Analyses: one per requirement or additional item of a package, where its status is assessed and the controls,
 * policies, risks and remediation projects addressing it are mapped.
 *
 * Who may see and change an analysis: compliance:read / compliance:update at level all, or at level own when the
 * caller (or one of their groups) owns the analysis or its package. Mapping a record also needs read on the linked
 * module (403 without it) and on that record (404 when it cannot be read), because scopes bound the whole request.
 */

const assessors = alias(users, 'assessor');
const packageOwned = (actor: Actor, pkg: Owned) => ownsRecord(actor, pkg);

export interface MappingDefinition {
  module: Module;
  /** 'Control', for messages and History. */
  label: string;
  /** The History action prefix: control.link, control.unlink. */
  action: string;
  table: PgTable;
  analysisColumn: PgColumn;
  recordColumn: PgColumn;
  /** The mapping table's property naming the record (for inserts). */
  recordKey: string;
  target: PgTable;
  targetId: PgColumn;
  targetTitle: PgColumn;
  targetStatus: PgColumn;
  targetOwner: PgColumn;
  targetOwnerGroup: PgColumn;
  /** The record type mapped (read right and readable record required: requireLinked). */
  link: LinkTarget;
}

export const MAPPING_KINDS = {
  controls: {
    module: 'controls', label: 'Control', action: 'control', table: analysisControls, analysisColumn: analysisControls.analysisId,
    recordColumn: analysisControls.controlId, recordKey: 'controlId', target: controls, targetId: controls.id, targetTitle: controls.name,
    targetStatus: controls.status, targetOwner: controls.ownerId, targetOwnerGroup: controls.ownerGroupId,
    link: controlKind,
  },
  policies: {
    module: 'policies', label: 'Policy', action: 'policy', table: analysisPolicies, analysisColumn: analysisPolicies.analysisId,
    recordColumn: analysisPolicies.policyId, recordKey: 'policyId', target: policies, targetId: policies.id, targetTitle: policies.title,
    targetStatus: policies.status, targetOwner: policies.ownerId, targetOwnerGroup: policies.ownerGroupId,
    link: policyKind,
  },
  risks: {
    module: 'risks', label: 'Risk', action: 'risk', table: analysisRisks, analysisColumn: analysisRisks.analysisId,
    recordColumn: analysisRisks.riskId, recordKey: 'riskId', target: risks, targetId: risks.id, targetTitle: risks.title,
    targetStatus: risks.status, targetOwner: risks.ownerId, targetOwnerGroup: risks.ownerGroupId,
    link: riskLinkTarget,
  },
  projects: {
    module: 'projects', label: 'Project', action: 'project', table: analysisProjects, analysisColumn: analysisProjects.analysisId,
    recordColumn: analysisProjects.projectId, recordKey: 'projectId', target: projects, targetId: projects.id, targetTitle: projects.title,
    targetStatus: projects.status, targetOwner: projects.ownerId, targetOwnerGroup: projects.ownerGroupId,
    link: projectKind,
  },
} satisfies Record<MappingKind, MappingDefinition>;

/** Mapping counts as correlated subqueries: one query for a whole list or tree, never one per row. */
export const mappingCounts = {
  controls: sql<number>`(select count(*)::int from ${analysisControls} where ${analysisControls.analysisId} = ${complianceAnalyses.id})`,
  policies: sql<number>`(select count(*)::int from ${analysisPolicies} where ${analysisPolicies.analysisId} = ${complianceAnalyses.id})`,
  risks: sql<number>`(select count(*)::int from ${analysisRisks} where ${analysisRisks.analysisId} = ${complianceAnalyses.id})`,
  projects: sql<number>`(select count(*)::int from ${analysisProjects} where ${analysisProjects.analysisId} = ${complianceAnalyses.id})`,
};

/** WHERE limiting analyses to those the actor may act on with `permission`: all, or owned (analysis or package) at level own. */
export function analysisCondition(actor: Actor, permission: Permission): SQL | undefined {
  const own = ownershipCondition(actor, permission, complianceAnalyses.ownerId, complianceAnalyses.ownerGroupId);
  if (!own) return undefined;
  return or(own, ownershipCondition(actor, permission, compliancePackages.ownerId, compliancePackages.ownerGroupId));
}

/** True when the actor holds `permission` on an analysis (directly or through its package). */
export const mayOnAnalysis = (actor: Actor, permission: Permission, analysis: Owned, pkg: Owned) =>
  canTouch(actor, permission, analysis) || canTouch(actor, permission, pkg);

function selectViews(db: DbOrTx) {
  return db.select({
    a: complianceAnalyses,
    packageName: compliancePackages.name, packageOwnerId: compliancePackages.ownerId, packageOwnerGroupId: compliancePackages.ownerGroupId,
    code: complianceItems.code, itemName: complianceItems.name, itemDescription: complianceItems.description, kind: complianceItems.kind,
    parentCode: complianceItems.parentCode,
    ownerName: users.name, ownerEmail: users.email, ownerGroupName: groups.name, assessorName: assessors.name, assessorEmail: assessors.email,
    ...mappingCounts,
  }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
    .innerJoin(compliancePackages, eq(compliancePackages.id, complianceAnalyses.packageId))
    .leftJoin(users, eq(users.id, complianceAnalyses.ownerId))
    .leftJoin(groups, eq(groups.id, complianceAnalyses.ownerGroupId))
    .leftJoin(assessors, eq(assessors.id, complianceAnalyses.assessorId));
}

type Joined = Awaited<ReturnType<ReturnType<typeof selectViews>['execute']>>[number];

function toView(row: Joined): AnalysisView {
  const a = row.a;
  return {
    id: a.id, packageId: a.packageId, package: { id: a.packageId, name: row.packageName }, itemId: a.itemId,
    item: { code: row.code, name: row.itemName, description: row.itemDescription, kind: row.kind, parentCode: row.parentCode },
    status: a.status, notes: a.notes, applicable: a.applicable, justification: a.justification, assessorId: a.assessorId,
    assessor: a.assessorId && row.assessorName ? { id: a.assessorId, name: row.assessorName, email: row.assessorEmail ?? '' } : null,
    assessedAt: a.assessedAt?.toISOString() ?? null,
    mappingCounts: { controls: row.controls, policies: row.policies, risks: row.risks, projects: row.projects },
    ownerId: a.ownerId, ownerGroupId: a.ownerGroupId,
    owner: a.ownerId && row.ownerName ? { id: a.ownerId, name: row.ownerName, email: row.ownerEmail ?? '' } : null,
    ownerGroup: a.ownerGroupId && row.ownerGroupName ? { id: a.ownerGroupId, name: row.ownerGroupName } : null,
    createdAt: a.createdAt.toISOString(), updatedAt: a.updatedAt.toISOString(),
  };
}

const sortColumns = {
  position: complianceItems.position, status: complianceAnalyses.status, assessedAt: complianceAnalyses.assessedAt, updatedAt: complianceAnalyses.updatedAt,
};

export async function listAnalyses(db: DbOrTx, actor: Actor, query: AnalysisListQuery): Promise<Page<AnalysisView>> {
  const { page, pageSize, offset } = paging(query);
  const where = and(
    analysisCondition(actor, 'compliance:read'),
    query.packageId ? eq(complianceAnalyses.packageId, query.packageId) : undefined,
    query.status ? eq(complianceAnalyses.status, query.status) : undefined,
    query.kind ? eq(complianceItems.kind, query.kind) : undefined,
    query.q ? or(ilike(complianceItems.name, `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`), ilike(complianceItems.code, `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)) : undefined,
  );
  const order = orderBy(query.sort, sortColumns, [asc(compliancePackages.name), asc(compliancePackages.id), asc(complianceItems.position)], complianceAnalyses.id);
  const [rows, [{ total }]] = await Promise.all([
    selectViews(db).where(where).orderBy(...order).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(complianceAnalyses)
      .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
      .innerJoin(compliancePackages, eq(compliancePackages.id, complianceAnalyses.packageId)).where(where),
  ]);
  return { rows: rows.map(toView), total, page, pageSize };
}

/**
 * The analysis after the check: 404 when missing or unreadable, 403 when readable but `right` is not held
 * (at level own: neither the analysis nor its package is owned by the caller or their groups).
 */
async function loadFor(db: DbOrTx, actor: Actor, id: string, right: 'read' | 'update'): Promise<Joined> {
  const [row] = isUuid(id) ? await selectViews(db).where(eq(complianceAnalyses.id, id)) : [];
  const what = `Analysis ${id}`;
  const pkg: Owned = { ownerId: row?.packageOwnerId ?? null, ownerGroupId: row?.packageOwnerGroupId ?? null };
  if (!row || !mayOnAnalysis(actor, 'compliance:read', row.a, pkg)) {
    throw new AppError('NOT_FOUND', `${what} not found`, [], row ? `no compliance:read on ${what}` : undefined);
  }
  if (right !== 'read') {
    const permission = `compliance:${right}` as Permission;
    const level = requirePermission(actor, permission);
    if (level === 'own' && !(ownsRecord(actor, row.a) || packageOwned(actor, pkg))) throw forbidden(`${permission} is at level own and ${what} is not owned`);
  }
  return row;
}

/** Mapped records of each kind that the actor may read: four queries, whatever the number of mappings. */
async function mappingsOf(db: DbOrTx, actor: Actor, analysisId: string): Promise<AnalysisDetail['mappings']> {
  const lists = await Promise.all(MAPPING_KIND_NAMES.map(async (name) => {
    const m: MappingDefinition = MAPPING_KINDS[name];
    const read = `${m.module}:read` as Permission;
    if (levelOf(actor, read) === null) return [];
    return db.select({ id: sql<string>`${m.targetId}`, title: sql<string>`${m.targetTitle}`, status: sql<string>`${m.targetStatus}` })
      .from(m.table).innerJoin(m.target, eq(m.targetId, m.recordColumn))
      .where(and(eq(m.analysisColumn, analysisId), ownershipCondition(actor, read, m.targetOwner, m.targetOwnerGroup)))
      .orderBy(asc(m.targetTitle), asc(m.targetId));
  }));
  return { controls: lists[0], policies: lists[1], risks: lists[2], projects: lists[3] };
}

/** Whether the screens should offer the assessment, mapping and exception forms (the services check again on submit). */
export async function mayUpdateAnalysis(db: DbOrTx, actor: Actor, id: string): Promise<boolean> {
  return loadFor(db, actor, id, 'update').then(() => true, () => false);
}

export async function getAnalysis(db: DbOrTx, actor: Actor, id: string): Promise<AnalysisDetail> {
  const row = await loadFor(db, actor, id, 'read');
  return { ...toView(row), mappings: await mappingsOf(db, actor, id) };
}

const auditFields = (row: typeof complianceAnalyses.$inferSelect) => {
  const { id: _i, createdAt: _c, updatedAt: _u, packageId: _p, itemId: _t, ...fields } = row;
  return fields;
};

const history = (tx: DbOrTx, actor: Actor, id: string, action: string, before: Record<string, unknown> | null, after: Record<string, unknown> | null) =>
  recordChange(tx, actor, { module: 'compliance', recordType: ANALYSIS_RECORD_TYPE, recordId: id, action, before, after });

/**
 * Assesses an analysis. Changing status or notes is an assessment: the assessor is the one named, or else the
 * actor, and assessedAt is now. Setting the status back to not_assessed clears assessor and assessedAt.
 */
export async function updateAnalysis(tx: DbOrTx, actor: Actor, id: string, patch: AnalysisUpdate, now = new Date()): Promise<void> {
  const { a: before } = await loadFor(tx, actor, id, 'update');
  const level = requirePermission(actor, 'compliance:update');
  const status: AnalysisStatus = patch.status ?? before.status;
  const assessed = patch.status !== undefined || patch.notes !== undefined || patch.assessorId !== undefined;
  const owner = {
    ownerId: patch.ownerId !== undefined ? patch.ownerId : before.ownerId,
    ownerGroupId: patch.ownerGroupId !== undefined ? patch.ownerGroupId : before.ownerGroupId,
  };
  const resetting = status === 'not_assessed';
  const assessorId = resetting ? null : assessed ? (patch.assessorId !== undefined ? patch.assessorId : actor.userId) : before.assessorId;
  const problems: FieldProblem[] = [...(await ownerProblems(tx, owner))];
  const applicable = patch.applicable ?? before.applicable;
  const justification = patch.justification !== undefined ? patch.justification.trim() : before.justification;
  if (!applicable && !justification) problems.push({ field: 'justification', message: 'must say why the requirement does not apply' });
  if (patch.assessorId && !resetting) {
    const [assessor] = await tx.select({ status: users.status }).from(users).where(eq(users.id, patch.assessorId));
    if (assessor?.status !== 'active') problems.push({ field: 'assessorId', message: NOT_AN_ACTIVE_USER });
  }
  if (problems.length) throw invalid(problems);
  if (patch.ownerId !== undefined || patch.ownerGroupId !== undefined) requireOwnLevelKeepsOwnership(actor, 'compliance:update', level, owner);
  const [after] = await tx.update(complianceAnalyses).set({
    status, notes: patch.notes ?? before.notes, applicable, justification, ...owner, assessorId,
    assessedAt: resetting ? null : assessed ? now : before.assessedAt, updatedAt: now,
  }).where(eq(complianceAnalyses.id, id)).returning();
  await history(tx, actor, id, 'update', auditFields(before), auditFields(after));
}

/** Maps a record: compliance:update on the analysis, then `<module>:read` (403) on a readable record (404). */
export async function linkRecord(tx: DbOrTx, actor: Actor, analysisId: string, kind: MappingKind, recordId: string): Promise<void> {
  await loadFor(tx, actor, analysisId, 'update');
  const m: MappingDefinition = MAPPING_KINDS[kind];
  const record = await requireLinked(tx, actor, m.link, recordId, 'id');
  const inserted = await tx.insert(m.table).values({ analysisId, [m.recordKey]: record.id } as never).onConflictDoNothing().returning();
  if (!inserted.length) throw conflict(`${m.label} ${record.id} is already mapped to analysis ${analysisId}`);
  await history(tx, actor, analysisId, `${m.action}.link`, null, { [m.recordKey]: record.id, title: record.title });
}

/** One item of a batch of mappings (POST /api/v1/compliance/mappings/batch). */
export interface MappingBatchItem {
  analysisId: string;
  kind: MappingKind;
  id: string;
}

/**
 * Maps many records in one transaction with the rules of linkRecord (compliance:update on each analysis, the mapped
 * module's read right and a readable record), one result per item: analyses and records read once per kind, the
 * mappings inserted together, each in the analysis's History and the Audit Log. A mapping already there is answered
 * `changed: false` (a single POST answers 409).
 */
export async function linkRecords(tx: DbOrTx, actor: Actor, items: MappingBatchItem[]): Promise<BatchResult[]> {
  const analysisIds = [...new Set(items.map((item) => item.analysisId).filter(isUuid))];
  const analyses = analysisIds.length
    ? await tx.select({
      id: complianceAnalyses.id, ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId,
      packageOwnerId: compliancePackages.ownerId, packageOwnerGroupId: compliancePackages.ownerGroupId,
    }).from(complianceAnalyses).innerJoin(compliancePackages, eq(compliancePackages.id, complianceAnalyses.packageId))
      .where(inArray(complianceAnalyses.id, analysisIds))
    : [];
  const analysisById = new Map(analyses.map((a) => [a.id, a]));
  const readable = new Map<MappingKind, Map<string, { id: string; title: string }> | AppError>();
  for (const kind of MAPPING_KIND_NAMES) {
    const ids = items.filter((item) => item.kind === kind).map((item) => item.id);
    if (ids.length === 0) continue;
    try {
      readable.set(kind, await readableLinked(tx, actor, MAPPING_KINDS[kind].link, ids));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      readable.set(kind, error);
    }
  }
  const results: BatchResult[] = new Array(items.length);
  const accepted: { index: number; item: MappingBatchItem; title: string }[] = [];
  const seen = new Set<string>();
  items.forEach((item, index) => {
    try {
      const analysis = analysisById.get(item.analysisId);
      const what = `Analysis ${item.analysisId}`;
      const pkg: Owned = { ownerId: analysis?.packageOwnerId ?? null, ownerGroupId: analysis?.packageOwnerGroupId ?? null };
      if (!analysis || !mayOnAnalysis(actor, 'compliance:read', analysis, pkg)) throw notFound(what);
      const level = requirePermission(actor, 'compliance:update');
      if (level === 'own' && !(ownsRecord(actor, analysis) || packageOwned(actor, pkg))) throw forbidden(`compliance:update is at level own and ${what} is not owned`);
      const records = readable.get(item.kind)!;
      if (records instanceof AppError) throw records;
      const record = records.get(item.id);
      if (!record) throw unreadableLink(MAPPING_KINDS[item.kind].link, item.id, 'id');
      const key = `${item.analysisId} ${item.kind} ${item.id}`;
      if (seen.has(key)) {
        results[index] = { id: item.analysisId, changed: false };
        return;
      }
      seen.add(key);
      accepted.push({ index, item, title: record.title });
    } catch (error) {
      results[index] = refusalOf(error);
    }
  });
  const changes: RecordChange[] = [];
  for (const kind of MAPPING_KIND_NAMES) {
    const m: MappingDefinition = MAPPING_KINDS[kind];
    const ofKind = accepted.filter((a) => a.item.kind === kind);
    if (ofKind.length === 0) continue;
    const inserted = await tx.insert(m.table).values(ofKind.map((a) => ({ analysisId: a.item.analysisId, [m.recordKey]: a.item.id })) as never)
      .onConflictDoNothing().returning() as Record<string, string>[];
    const made = new Set(inserted.map((row) => `${row.analysisId} ${row[m.recordKey]}`));
    for (const a of ofKind) {
      const changed = made.has(`${a.item.analysisId} ${a.item.id}`);
      results[a.index] = { id: a.item.analysisId, changed };
      if (changed) {
        changes.push({
          module: 'compliance', recordType: ANALYSIS_RECORD_TYPE, recordId: a.item.analysisId, action: `${m.action}.link`,
          before: null, after: { [m.recordKey]: a.item.id, title: a.title },
        });
      }
    }
  }
  if (changes.length) await recordChanges(tx, actor, changes);
  return results;
}

export async function unlinkRecord(tx: DbOrTx, actor: Actor, analysisId: string, kind: MappingKind, recordId: string): Promise<void> {
  await loadFor(tx, actor, analysisId, 'update');
  const m: MappingDefinition = MAPPING_KINDS[kind];
  const record = await requireLinked(tx, actor, m.link, recordId);
  const removed = await tx.delete(m.table).where(and(eq(m.analysisColumn, analysisId), eq(m.recordColumn, record.id))).returning();
  if (!removed.length) throw notFound(`Mapping of ${m.label.toLowerCase()} ${recordId} to analysis ${analysisId}`);
  await history(tx, actor, analysisId, `${m.action}.unlink`, { [m.recordKey]: record.id, title: record.title }, null);
}

const mappedNames = () => MAPPING_KIND_NAMES.map((name) => ({ idField: MAPPING_KINDS[name].recordKey, nameField: 'title', target: MAPPING_KINDS[name].link }));

export async function analysisHistory(db: DbOrTx, actor: Actor, id: string): Promise<HistoryView[]> {
  await loadFor(db, actor, id, 'read');
  return historyAsSeen(db, actor, await listHistory(db, ANALYSIS_RECORD_TYPE, id), mappedNames());
}

/** A requirement's History with its exceptions', as the one History formatter words it for the reader (its screen). */
export async function analysisHistoryShown(db: DbOrTx, actor: Actor, id: string): Promise<ShownEntry[]> {
  await loadFor(db, actor, id, 'read');
  const entries = await historyWithParts(db, ANALYSIS_RECORD_TYPE, id);
  const mine = entries.filter((e) => e.recordType === ANALYSIS_RECORD_TYPE);
  const seen = await historyAsSeen(db, actor, mine, mappedNames());
  const restricted = new Map(mine.map((e, i) => [e, seen[i]]));
  return describeHistory(db, actor, entries.map((e) => (restricted.has(e) ? { ...e, changes: restricted.get(e)!.changes } : e)), {
    own: { recordType: ANALYSIS_RECORD_TYPE, recordId: id },
    label: (type, field) => (type === ANALYSIS_RECORD_TYPE ? ANALYSIS_FIELD_LABELS[field] : undefined),
  });
}

/** The requirement page's words for the fields its History records. */
const ANALYSIS_FIELD_LABELS: Record<string, string> = {
  status: 'Status', notes: 'Notes', ownerId: 'Owner', ownerGroupId: 'Owner group', title: 'Name at the time',
};

/** Records of a kind the actor may read and that are not yet mapped to the analysis, for the mapping pickers. */
export async function mappingChoices(db: DbOrTx, actor: Actor, analysisId: string, kind: MappingKind): Promise<{ value: string; label: string }[]> {
  const m: MappingDefinition = MAPPING_KINDS[kind];
  const read = `${m.module}:read` as Permission;
  if (levelOf(actor, read) === null) return [];
  const mapped = db.select({ id: m.recordColumn }).from(m.table).where(eq(m.analysisColumn, analysisId));
  return db.select({ value: sql<string>`${m.targetId}`, label: sql<string>`${m.targetTitle}` }).from(m.target)
    .where(and(ownershipCondition(actor, read, m.targetOwner, m.targetOwnerGroup), notInArray(m.targetId, mapped)))
    .orderBy(asc(m.targetTitle)).limit(1000);
}

// ---- Package score and tree --------------------------------------------------------------------------------------

interface PackageAccess {
  id: string;
  name: string;
  /** Every analysis of the package is readable (level all, or the package is owned). */
  whole: boolean;
  /** The actor or one of their groups owns the package (which, at level own, extends to all its analyses). */
  owned: boolean;
}

/** The package as the actor may see it: 404 when missing, or at level own when neither it nor any of its analyses is owned. */
export async function packageAccess(db: DbOrTx, actor: Actor, packageId: string): Promise<PackageAccess> {
  const [pkg] = isUuid(packageId)
    ? await db.select({ id: compliancePackages.id, name: compliancePackages.name, ownerId: compliancePackages.ownerId, ownerGroupId: compliancePackages.ownerGroupId })
      .from(compliancePackages).where(eq(compliancePackages.id, packageId))
    : [];
  if (!pkg) throw notFound(`Package ${packageId}`);
  const owned = ownsRecord(actor, pkg);
  if (canTouch(actor, 'compliance:read', pkg)) return { id: pkg.id, name: pkg.name, whole: true, owned };
  const [{ n }] = await db.select({ n: count() }).from(complianceAnalyses)
    .where(and(eq(complianceAnalyses.packageId, packageId), ownershipCondition(actor, 'compliance:read', complianceAnalyses.ownerId, complianceAnalyses.ownerGroupId)));
  if (n === 0) throw new AppError('NOT_FOUND', `Package ${packageId} not found`, [], `no compliance:read on package ${packageId}`);
  return { id: pkg.id, name: pkg.name, whole: false, owned };
}

/**
 * The screen of a package's item (History links items there): its requirement's page, or for a heading its place in
 * the package's tree; 404 when the item is missing or its package may not be read.
 */
export async function itemScreen(db: DbOrTx, actor: Actor, itemId: string): Promise<string> {
  const [item] = isUuid(itemId)
    ? await db.select({ packageId: complianceItems.packageId, analysisId: complianceAnalyses.id }).from(complianceItems)
      .leftJoin(complianceAnalyses, eq(complianceAnalyses.itemId, complianceItems.id)).where(eq(complianceItems.id, itemId))
    : [];
  if (!item) throw notFound(`Item ${itemId}`);
  await packageAccess(db, actor, item.packageId);
  return item.analysisId ? `/compliance/analyses/${item.analysisId}` : `/compliance/packages/${item.packageId}#section-${itemId}`;
}

const percent = (part: number, whole: number) => (whole === 0 ? null : Math.round((1000 * part) / whole) / 10);

export function countsOf(byStatus: Map<string, number>): StatusCounts {
  const get = (s: AnalysisStatus) => byStatus.get(s) ?? 0;
  const total = [...byStatus.values()].reduce((sum, n) => sum + n, 0);
  const applicable = total - get('not_applicable');
  return {
    total, not_assessed: get('not_assessed'), compliant: get('compliant'), partially_compliant: get('partially_compliant'),
    non_compliant: get('non_compliant'), not_applicable: get('not_applicable'), applicable,
    percentCompliant: percent(get('compliant'), applicable), percentAssessed: percent(applicable - get('not_assessed'), applicable),
  };
}

/**
 * The compliance score: requirements and additional items counted separately, headings not at all (they have no
 * analysis). percentCompliant = compliant / (total − not applicable); a requirement not yet assessed counts against it.
 */
export async function packageScore(db: DbOrTx, actor: Actor, packageId: string): Promise<PackageScore> {
  const access = await packageAccess(db, actor, packageId);
  const rows = await db.select({ kind: complianceItems.kind, status: complianceAnalyses.status, n: count() }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
    .where(and(
      eq(complianceAnalyses.packageId, packageId), inArray(complianceItems.kind, ['requirement', 'additional']),
      access.whole ? undefined : ownershipCondition(actor, 'compliance:read', complianceAnalyses.ownerId, complianceAnalyses.ownerGroupId),
    ))
    .groupBy(complianceItems.kind, complianceAnalyses.status);
  const byKind = { requirement: new Map<string, number>(), additional: new Map<string, number>() };
  for (const row of rows) if (row.kind !== 'heading') byKind[row.kind].set(row.status, row.n);
  return { packageId, requirements: countsOf(byKind.requirement), additional: countsOf(byKind.additional) };
}

/**
 * Scores of many packages in one query (the Packages list): per package, what the viewer may read — the whole package
 * when they may read the package, otherwise the analyses they or their groups own.
 */
export async function packageScores(db: DbOrTx, actor: Actor, packageIds: readonly string[]): Promise<Map<string, PackageScore>> {
  const scores = new Map<string, PackageScore>();
  if (packageIds.length === 0) return scores;
  const level = requirePermission(actor, 'compliance:read');
  const visible = level === 'all' ? undefined : or(
    ownershipCondition(actor, 'compliance:read', compliancePackages.ownerId, compliancePackages.ownerGroupId),
    ownershipCondition(actor, 'compliance:read', complianceAnalyses.ownerId, complianceAnalyses.ownerGroupId),
  );
  const rows = await db.select({ packageId: complianceAnalyses.packageId, kind: complianceItems.kind, status: complianceAnalyses.status, n: count() })
    .from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
    .innerJoin(compliancePackages, eq(compliancePackages.id, complianceAnalyses.packageId))
    .where(and(inArray(complianceAnalyses.packageId, [...packageIds]), inArray(complianceItems.kind, ['requirement', 'additional']), visible))
    .groupBy(complianceAnalyses.packageId, complianceItems.kind, complianceAnalyses.status);
  const byPackage = new Map<string, { requirement: Map<string, number>; additional: Map<string, number> }>();
  for (const id of packageIds) byPackage.set(id, { requirement: new Map(), additional: new Map() });
  for (const row of rows) if (row.kind !== 'heading') byPackage.get(row.packageId)?.[row.kind].set(row.status, row.n);
  for (const [packageId, byKind] of byPackage) {
    scores.set(packageId, { packageId, requirements: countsOf(byKind.requirement), additional: countsOf(byKind.additional) });
  }
  return scores;
}
