import { and, asc, eq, ilike, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { complianceAnalyses, complianceItems, complianceTreeViews } from '../../../db/schema';
import { forbidden, notFound } from '../../platform/core/errors';
import { isUuid } from '../../platform/core/uuid';
import { canTouch, levelOf, ownsRecord, type Actor, type Owned } from '../../platform/permissions/permissions';
import { countsOf, MAPPING_KINDS, packageAccess } from './analyses-service';
import { MAPPING_KIND_NAMES, type AnalysisStatus, type MappingKind, type PackageScore, type StatusCounts } from './schema';

/**
 * A package's requirement tree as its screen shows it: every item in file order with its analysis (status, mapping
 * counts), the progress of each heading, the score, the headings the viewer keeps open, and which items the viewer's
 * filters (status, mapping, search) let through. One query for the items and one for the viewer's open headings.
 */

/** The mapping filter: mapped to anything, to nothing, or to at least one record of a kind. */
export const TREE_MAPPED = ['some', 'none', ...MAPPING_KIND_NAMES] as const;
export type TreeMapped = (typeof TREE_MAPPED)[number];

export interface TreeFilters {
  /** Words searched in the code, name and text of each item (a heading that matches brings everything under it). */
  q?: string;
  status?: AnalysisStatus;
  mapped?: TreeMapped;
  /** Read each item's text too (shown under its name); always read when searching, to show why an item matched. */
  text?: boolean;
}

export interface TreeAnalysis {
  id: string;
  status: AnalysisStatus;
  counts: Record<MappingKind, number>;
  canUpdate: boolean;
}

export interface TreeRow {
  itemId: string;
  code: string;
  name: string;
  kind: 'requirement' | 'additional' | 'heading';
  depth: number;
  /** The headings above the item, nearest first (their progress changes with the item's status). */
  headingIds: string[];
  /** The top-level heading whose collapsible section holds the item (null: the item is outside any heading). */
  sectionId: string | null;
  /** The item's text when it was asked for (filters.text or a search), else ''. */
  description: string;
  /** Null when the item is a heading or its analysis is not readable by the viewer. */
  analysis: TreeAnalysis | null;
  /** Let through by the filters (always true without filters). */
  shown: boolean;
}

export interface PackageTreeView {
  packageId: string;
  name: string;
  rows: TreeRow[];
  /** Per heading: the readable requirements and additional items under it, by status. */
  progress: Map<string, StatusCounts>;
  score: PackageScore;
  /** Headings the viewer keeps open (remembered per person and package). */
  open: Set<string>;
  /** Some filter is set: only rows with `shown` are listed, and sections holding one are open. */
  filtered: boolean;
  /** Requirements and additional items let through by the filters. */
  matches: number;
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The one query for a whole tree: every item of the package in file order, its analysis and its mapping counts, whether it matches the search, and its text when asked for. Exported for bench/compliance.ts,
 * which times it alone.
 */
export function treeItemsQuery(db: DbOrTx, packageId: string, q: string, wantText: boolean) {
  // Mapping counts per analysis of this package, one grouped subquery per kind joined once (rather than a correlated
  // count per row and kind: 4 x 287 index probes for the NIST package).
  const counted = MAPPING_KIND_NAMES.map((kind) => {
    const m = MAPPING_KINDS[kind];
    // Each subquery's columns named after its kind: drizzle refers to them unqualified.
    return db.select({ analysisId: sql<string>`${m.analysisColumn}`.as(`${kind}_analysis_id`), n: sql<number>`count(*)::int`.as(`${kind}_n`) }).from(m.table)
      .innerJoin(complianceAnalyses, eq(complianceAnalyses.id, m.analysisColumn))
      .where(eq(complianceAnalyses.packageId, packageId)).groupBy(m.analysisColumn).as(`mapped_${kind}`);
  });
  const [controls, policies, risks, projects] = counted;
  return db.select({
    itemId: complianceItems.id, code: complianceItems.code, name: complianceItems.name, kind: complianceItems.kind, parentCode: complianceItems.parentCode,
    description: wantText ? complianceItems.description : sql<string>`''`,
    found: q
      ? sql<boolean>`coalesce(${or(ilike(complianceItems.code, likePattern(q)), ilike(complianceItems.name, likePattern(q)), ilike(complianceItems.description, likePattern(q)))}, false)`
      : sql<boolean>`true`,
    analysisId: complianceAnalyses.id, status: complianceAnalyses.status,
    ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId,
    controls: sql<number>`coalesce(${controls.n}, 0)`, policies: sql<number>`coalesce(${policies.n}, 0)`,
    risks: sql<number>`coalesce(${risks.n}, 0)`, projects: sql<number>`coalesce(${projects.n}, 0)`,
  }).from(complianceItems)
    .leftJoin(complianceAnalyses, eq(complianceAnalyses.itemId, complianceItems.id))
    .leftJoin(controls, eq(controls.analysisId, complianceAnalyses.id))
    .leftJoin(policies, eq(policies.analysisId, complianceAnalyses.id))
    .leftJoin(risks, eq(risks.analysisId, complianceAnalyses.id))
    .leftJoin(projects, eq(projects.analysisId, complianceAnalyses.id))
    .where(eq(complianceItems.packageId, packageId))
    .orderBy(asc(complianceItems.position));
}

export async function packageTreeView(db: DbOrTx, actor: Actor, packageId: string, filters: TreeFilters = {}): Promise<PackageTreeView> {
  const access = await packageAccess(db, actor, packageId);
  const q = filters.q?.trim() ?? '';
  const wantText = Boolean(filters.text || q);
  const [rows, open] = await Promise.all([
    treeItemsQuery(db, packageId, q, wantText),
    openHeadings(db, actor, packageId),
  ]);

  const byCode = new Map(rows.map((r) => [r.code, r]));
  const updateLevel = levelOf(actor, 'compliance:update');
  const tree: TreeRow[] = rows.map((r) => {
    // Ancestors by parent code (bounded: a package is checked for cycles on import, this only guards the loop).
    const ancestors: typeof rows = [];
    for (let parent = r.parentCode ? byCode.get(r.parentCode) : undefined; parent && ancestors.length < 50; parent = parent.parentCode ? byCode.get(parent.parentCode) : undefined) {
      ancestors.push(parent);
    }
    const root = ancestors.at(-1) ?? r;
    const owned: Owned = { ownerId: r.ownerId, ownerGroupId: r.ownerGroupId };
    const readable = r.analysisId !== null && r.status !== null && (access.whole || canTouch(actor, 'compliance:read', owned));
    return {
      itemId: r.itemId, code: r.code, name: r.name, kind: r.kind, depth: ancestors.length,
      headingIds: ancestors.filter((a) => a.kind === 'heading').map((a) => a.itemId),
      sectionId: root.kind === 'heading' ? root.itemId : null,
      description: r.description,
      analysis: readable ? {
        id: r.analysisId!, status: r.status!,
        counts: { controls: r.controls, policies: r.policies, risks: r.risks, projects: r.projects },
        canUpdate: updateLevel === 'all' || (updateLevel === 'own' && (access.owned || ownsRecord(actor, owned))),
      } : null,
      // A search that finds a heading finds everything under it.
      shown: r.found || ancestors.some((a) => a.kind === 'heading' && a.found),
    };
  });

  // Progress per heading and the score, from the same rows: what the viewer can read, headings never counted.
  const byHeading = new Map<string, Map<string, number>>();
  const byKind = { requirement: new Map<string, number>(), additional: new Map<string, number>() };
  const add = (counts: Map<string, number>, status: string) => counts.set(status, (counts.get(status) ?? 0) + 1);
  for (const row of tree) {
    if (row.kind === 'heading') byHeading.set(row.itemId, byHeading.get(row.itemId) ?? new Map());
    if (!row.analysis || row.kind === 'heading') continue;
    add(byKind[row.kind], row.analysis.status);
    for (const heading of row.headingIds) {
      const counts = byHeading.get(heading) ?? new Map<string, number>();
      byHeading.set(heading, counts);
      add(counts, row.analysis.status);
    }
  }

  const filtered = Boolean(q || filters.status || filters.mapped);
  let matches = 0;
  if (filtered) {
    const lifted = new Set<string>();
    for (const row of tree) {
      if (row.kind === 'heading') continue;
      row.shown = row.shown && passes(row, filters);
      if (!row.shown) continue;
      matches += 1;
      for (const heading of row.headingIds) lifted.add(heading);
    }
    // Headings stay as the context of what they hold; those holding nothing shown go.
    for (const row of tree) if (row.kind === 'heading') row.shown = lifted.has(row.itemId);
  } else {
    matches = tree.filter((row) => row.kind !== 'heading').length;
  }

  return {
    packageId, name: access.name, rows: tree,
    progress: new Map([...byHeading].map(([id, counts]) => [id, countsOf(counts)])),
    score: { packageId, requirements: countsOf(byKind.requirement), additional: countsOf(byKind.additional) },
    open, filtered, matches,
  };
}

/** Whether a requirement or additional item passes the status and mapping filters (an unreadable analysis passes none). */
function passes(row: TreeRow, filters: TreeFilters): boolean {
  if (!filters.status && !filters.mapped) return true;
  const a = row.analysis;
  if (!a) return false;
  if (filters.status && a.status !== filters.status) return false;
  if (!filters.mapped) return true;
  const total = MAPPING_KIND_NAMES.reduce((sum, kind) => sum + a.counts[kind], 0);
  if (filters.mapped === 'some') return total > 0;
  if (filters.mapped === 'none') return total === 0;
  return a.counts[filters.mapped] > 0;
}

/** The headings the actor keeps open in a package's tree. */
async function openHeadings(db: DbOrTx, actor: Actor, packageId: string): Promise<Set<string>> {
  if (!actor.userId) return new Set();
  const [row] = await db.select({ ids: complianceTreeViews.openItemIds }).from(complianceTreeViews)
    .where(and(eq(complianceTreeViews.userId, actor.userId), eq(complianceTreeViews.packageId, packageId)));
  return new Set(row?.ids ?? []);
}

const personOf = (actor: Actor): string => {
  if (!actor.userId) throw forbidden('Only a signed-in person keeps headings open');
  return actor.userId;
};

/**
 * Remembers that the actor opened or collapsed one heading of a package (compliance:read on the package; 404 when the
 * item is not a heading of it). One statement, so two quick toggles of two headings both stick.
 */
export async function rememberHeading(db: DbOrTx, actor: Actor, packageId: string, itemId: string, open: boolean): Promise<void> {
  const userId = personOf(actor);
  await packageAccess(db, actor, packageId);
  const [heading] = isUuid(itemId)
    ? await db.select({ id: complianceItems.id }).from(complianceItems)
      .where(and(eq(complianceItems.id, itemId), eq(complianceItems.packageId, packageId), eq(complianceItems.kind, 'heading')))
    : [];
  if (!heading) throw notFound(`Heading ${itemId}`);
  const without = sql`array_remove(${complianceTreeViews.openItemIds}, ${itemId}::uuid)`;
  await db.insert(complianceTreeViews).values({ userId, packageId, openItemIds: open ? [itemId] : [] }).onConflictDoUpdate({
    target: [complianceTreeViews.userId, complianceTreeViews.packageId],
    set: { openItemIds: open ? sql`array_append(${without}, ${itemId}::uuid)` : without, updatedAt: new Date() },
  });
}

/** Opens or collapses every heading of a package for the actor (Expand all, Collapse all). */
export async function rememberAllHeadings(db: DbOrTx, actor: Actor, packageId: string, open: boolean): Promise<void> {
  const userId = personOf(actor);
  await packageAccess(db, actor, packageId);
  const ids = open
    ? (await db.select({ id: complianceItems.id }).from(complianceItems)
      .where(and(eq(complianceItems.packageId, packageId), eq(complianceItems.kind, 'heading')))).map((r) => r.id)
    : [];
  await db.insert(complianceTreeViews).values({ userId, packageId, openItemIds: ids }).onConflictDoUpdate({
    target: [complianceTreeViews.userId, complianceTreeViews.packageId],
    set: { openItemIds: ids, updatedAt: new Date() },
  });
}
