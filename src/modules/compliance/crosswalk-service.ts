import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { analysisControls, complianceAnalyses, complianceItems, compliancePackages, controls } from '../../../db/schema';
import { conflict, invalidField } from '../../platform/core/errors';
import { canTouch, type Actor, type Owned } from '../../platform/permissions/permissions';
import { RESTRICTED_NAME, nameAsSeen } from '../../platform/records/links';
import { mayOnAnalysis, packageAccess, updateAnalysis } from './analyses-service';
import type { Static } from 'elysia';
import type { AnalysisStatus, Crosswalk as CrosswalkSchema, StatusCopyPreview as StatusCopyPreviewSchema } from './schema';

/**
 * The cross-framework view: for two packages, the pairs of requirements (one of each package) that share at least one
 * mapped control, and copying assessed statuses from one package to the other where the same controls apply.
 */

/** Shapes from schema.ts (one schema per shape: routes, OpenAPI and screens). */
export type Crosswalk = Static<typeof CrosswalkSchema>;
export type CrosswalkPair = Crosswalk['pairs'][number];
export type CrosswalkSide = CrosswalkPair['left'];
export type SharedControl = CrosswalkPair['controls'][number];
export type StatusCopyPreview = Static<typeof StatusCopyPreviewSchema>;
export type StatusCopyChange = StatusCopyPreview['changes'][number];
export type StatusCopySkipped = StatusCopyPreview['skipped'][number];

type Side = 'left' | 'right';

interface RawControl { id: string; name: string; ownerId: string | null; ownerGroupId: string | null }

const la = alias(complianceAnalyses, 'la');
const ra = alias(complianceAnalyses, 'ra');
const li = alias(complianceItems, 'li');
const ri = alias(complianceItems, 'ri');
const lc = alias(analysisControls, 'lc');
const rc = alias(analysisControls, 'rc');

/** One statement: every pair of analyses (left package × right package) mapped to a common control, with those controls. */
function selectPairs(db: DbOrTx, leftId: string, rightId: string) {
  return db.select({
    leftId: la.id, leftCode: li.code, leftName: li.name, leftStatus: la.status, leftOwnerId: la.ownerId, leftOwnerGroupId: la.ownerGroupId,
    rightId: ra.id, rightCode: ri.code, rightName: ri.name, rightStatus: ra.status, rightOwnerId: ra.ownerId, rightOwnerGroupId: ra.ownerGroupId,
    controls: sql<RawControl[] | string>`json_agg(json_build_object('id', ${controls.id}, 'name', ${controls.name}, 'ownerId', ${controls.ownerId}, 'ownerGroupId', ${controls.ownerGroupId}) order by ${controls.name}, ${controls.id})`,
  }).from(la)
    .innerJoin(li, eq(li.id, la.itemId))
    .innerJoin(lc, eq(lc.analysisId, la.id))
    .innerJoin(rc, eq(rc.controlId, lc.controlId))
    .innerJoin(ra, and(eq(ra.id, rc.analysisId), eq(ra.packageId, rightId)))
    .innerJoin(ri, eq(ri.id, ra.itemId))
    .innerJoin(controls, eq(controls.id, lc.controlId))
    .where(eq(la.packageId, leftId))
    .groupBy(la.id, li.id, ra.id, ri.id)
    .orderBy(asc(li.position), asc(ri.position));
}

/** The two packages as the reader may see them: 404 for one they cannot read, 400 when both are the same. */
async function accessBoth(db: DbOrTx, actor: Actor, leftId: string, rightId: string) {
  if (leftId === rightId) throw invalidField('right', 'choose a package other than the left one');
  const [left, right] = await Promise.all([packageAccess(db, actor, leftId), packageAccess(db, actor, rightId)]);
  const owners = await db.select({ id: compliancePackages.id, ownerId: compliancePackages.ownerId, ownerGroupId: compliancePackages.ownerGroupId })
    .from(compliancePackages).where(inArray(compliancePackages.id, [left.id, right.id]));
  const owner = (id: string): Owned => owners.find((o) => o.id === id) ?? { ownerId: null, ownerGroupId: null };
  return { left: { ...left, owner: owner(left.id) }, right: { ...right, owner: owner(right.id) } };
}

/**
 * The requirements of two packages that share at least one mapped control, side by side with each one's status: one
 * query for the pairs however large the packages. A pair is listed when the reader may read both analyses; a shared
 * control the reader may not read is shown as "(restricted)", never by name.
 */
export async function crosswalk(db: DbOrTx, actor: Actor, leftId: string, rightId: string): Promise<Crosswalk> {
  return pairsFor(db, actor, await accessBoth(db, actor, leftId, rightId));
}

async function pairsFor(db: DbOrTx, actor: Actor, access: Awaited<ReturnType<typeof accessBoth>>): Promise<Crosswalk> {
  const readable = (side: Side, a: Owned) => access[side].whole || canTouch(actor, 'compliance:read', a);
  const rows = await selectPairs(db, access.left.id, access.right.id);
  const pairs: CrosswalkPair[] = [];
  for (const row of rows) {
    if (!readable('left', { ownerId: row.leftOwnerId, ownerGroupId: row.leftOwnerGroupId })) continue;
    if (!readable('right', { ownerId: row.rightOwnerId, ownerGroupId: row.rightOwnerGroupId })) continue;
    const raw: RawControl[] = typeof row.controls === 'string' ? JSON.parse(row.controls) : row.controls;
    const seen = raw.map((c) => {
      const name = nameAsSeen(actor, 'controls', c, c.name);
      return name === RESTRICTED_NAME ? { id: null, name } : { id: c.id, name };
    });
    pairs.push({
      left: { analysisId: row.leftId, code: row.leftCode, name: row.leftName, status: row.leftStatus },
      right: { analysisId: row.rightId, code: row.rightCode, name: row.rightName, status: row.rightStatus },
      controls: [...seen.filter((c) => c.id !== null), ...seen.filter((c) => c.id === null)],
    });
  }
  return { left: { id: access.left.id, name: access.left.name }, right: { id: access.right.id, name: access.right.name }, pairs };
}

export const otherSide = (side: Side): Side => (side === 'left' ? 'right' : 'left');

/**
 * What copying the statuses of the `from` package onto the other would change. A requirement takes the status of the
 * requirements of the other package it shares controls with when they (those the reader may read) agree on one
 * assessed status; sources not yet assessed say nothing and are ignored; when they disagree the requirement is skipped,
 * as is one the reader may not change. Nothing is written.
 */
export async function previewStatusCopy(db: DbOrTx, actor: Actor, leftId: string, rightId: string, from: Side): Promise<StatusCopyPreview> {
  const access = await accessBoth(db, actor, leftId, rightId);
  const view = await pairsFor(db, actor, access);
  const target = otherSide(from);
  const targets = [...new Set(view.pairs.map((p) => p[target].analysisId))];
  const rows = targets.length === 0 ? [] : await db.select({ id: complianceAnalyses.id, ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId })
    .from(complianceAnalyses).where(inArray(complianceAnalyses.id, targets));
  const owners = new Map(rows.map((r) => [r.id, r]));
  const byTarget = new Map<string, { side: CrosswalkSide; sources: CrosswalkSide[] }>();
  for (const pair of view.pairs) {
    const entry = byTarget.get(pair[target].analysisId) ?? { side: pair[target], sources: [] };
    entry.sources.push(pair[from]);
    byTarget.set(pair[target].analysisId, entry);
  }
  const changes: StatusCopyChange[] = [];
  const skipped: StatusCopySkipped[] = [];
  for (const { side, sources } of byTarget.values()) {
    const assessed = sources.filter((s) => s.status !== 'not_assessed');
    const statuses = [...new Set(assessed.map((s) => s.status))];
    if (statuses.length === 0) continue;
    const base = { analysisId: side.analysisId, code: side.code, name: side.name };
    if (statuses.length > 1) {
      skipped.push({ ...base, reason: `the requirements it shares controls with disagree (${assessed.map((s) => s.code).join(', ')})` });
      continue;
    }
    if (statuses[0] === side.status) continue;
    const owner = owners.get(side.analysisId) ?? { ownerId: null, ownerGroupId: null };
    if (!mayOnAnalysis(actor, 'compliance:update', owner, access[target].owner)) {
      skipped.push({ ...base, reason: 'you may not change this requirement' });
      continue;
    }
    changes.push({ ...base, before: side.status, after: statuses[0], from: assessed.map((s) => s.code) });
  }
  return { ...view, from, changes, skipped };
}

/** What the preview showed, as the Apply form carries it: analysis id, status before, status after. */
export type PreviewedChange = [analysisId: string, before: string, after: string];

export const previewedChanges = (changes: readonly StatusCopyChange[]): PreviewedChange[] =>
  changes.map((c) => [c.analysisId, c.before, c.after]);

const sameChanges = (a: readonly (readonly string[])[], b: readonly (readonly string[])[]) => {
  const key = (list: readonly (readonly string[])[]) => JSON.stringify([...list].map((c) => c.join(' ')).sort());
  return key(a) === key(b);
};

export const CHANGED_SINCE_PREVIEW =
  'The statuses changed since the preview (someone assessed a requirement or changed a mapping): nothing was copied. Review the new preview and apply again.';

/**
 * Applies a reviewed copy in the caller's transaction: the target package's analyses are locked, the preview is worked
 * out again and must equal what the person saw (else 409, nothing written); then each listed analysis is updated
 * through updateAnalysis (its rules, History and Audit Log entry). Returns the number of requirements changed.
 */
export async function applyStatusCopy(
  tx: DbOrTx, actor: Actor, leftId: string, rightId: string, from: Side, previewed: readonly (readonly string[])[],
): Promise<number> {
  const targetId = from === 'left' ? rightId : leftId;
  // No concurrent assessment of the target package between the check and the writes.
  await tx.select({ id: complianceAnalyses.id }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, targetId)).for('update');
  const now = await previewStatusCopy(tx, actor, leftId, rightId, from);
  if (!sameChanges(previewedChanges(now.changes), previewed)) throw conflict(CHANGED_SINCE_PREVIEW);
  if (now.changes.length === 0) throw invalidField('changes', 'there is nothing to copy');
  for (const change of now.changes) await updateAnalysis(tx, actor, change.analysisId, { status: change.after });
  return now.changes.length;
}

/** Reads the Apply form's hidden field; anything malformed is treated as a preview that no longer holds. */
export function readPreviewed(text: string): PreviewedChange[] {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.every((c) => Array.isArray(c) && c.length === 3 && c.every((v) => typeof v === 'string'))) {
      return parsed as PreviewedChange[];
    }
  } catch {
    // fall through
  }
  throw conflict(CHANGED_SINCE_PREVIEW);
}
