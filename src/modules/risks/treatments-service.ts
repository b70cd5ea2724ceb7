import { and, asc, count, desc, eq, getTableColumns, gte, inArray, lte, sql } from 'drizzle-orm';
import { streamFlat, type DbOrTx } from '../../../db/client';
import {
  controls, riskImpactLevels, riskLikelihoodLevels, riskReviews as reviewsTable, riskTreatments, risks, treatmentControls, users,
} from '../../../db/schema';
import { randomUUID } from 'node:crypto';
import { refusalOf, type BatchResult } from '../../platform/records/batch';
import { AppError, invalid, notFound, type FieldProblem } from '../../platform/core/errors';
import { listHistory, recordChange, recordChanges, type HistoryView } from '../../platform/audit/history';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { paging, type Page } from '../../platform/http/paging';
import { canTouch, requireOnRecord, type Actor, type Permission } from '../../platform/permissions/permissions';
import { readableLinked, requireLinked, unreadableLink } from '../../platform/records/links';
import { controlKind } from '../controls/service';
import { resolveLevel, updateRisk } from './service';
import type { ReviewCreate, RiskReviews, TreatmentCreate, TreatmentUpdate, TreatmentView } from './schema';
import { addMonths, isRealDate } from '../../platform/core/dates';
import { isUuid } from '../../platform/core/uuid';

/**
 * Treatments and reviews belong to a risk: reading them needs risks:read on the risk, changing treatments
 * risks:update, recording a review risks:review (each with the own level judged on the risk's owner and group).
 */



const riskColumns = {
  id: risks.id, ownerId: risks.ownerId, ownerGroupId: risks.ownerGroupId, inherentLikelihood: risks.inherentLikelihood,
  inherentImpact: risks.inherentImpact, residualLikelihood: risks.residualLikelihood, residualImpact: risks.residualImpact,
  reviewFrequencyMonths: risks.reviewFrequencyMonths, createdAt: risks.createdAt,
};

async function loadRiskFor(db: DbOrTx, actor: Actor, riskId: string, permission: Permission) {
  if (!isUuid(riskId)) throw notFound(`Risk ${riskId}`);
  const [risk] = await db.select(riskColumns).from(risks).where(eq(risks.id, riskId));
  if (!risk) throw notFound(`Risk ${riskId}`);
  requireOnRecord(actor, permission, risk, `Risk ${riskId}`);
  return risk;
}

type Risk = Awaited<ReturnType<typeof loadRiskFor>>;
type StoredTreatment = typeof riskTreatments.$inferSelect;

async function loadTreatment(db: DbOrTx, riskId: string, treatmentId: string): Promise<StoredTreatment> {
  const [row] = isUuid(treatmentId)
    ? await db.select().from(riskTreatments).where(and(eq(riskTreatments.id, treatmentId), eq(riskTreatments.riskId, riskId)))
    : [];
  if (!row) throw notFound(`Treatment ${treatmentId} of risk ${riskId}`);
  return row;
}

async function loadScale(db: DbOrTx) {
  const [likelihood, impact] = await Promise.all([
    db.select({ value: riskLikelihoodLevels.value, name: riskLikelihoodLevels.name }).from(riskLikelihoodLevels),
    db.select({ value: riskImpactLevels.value, name: riskImpactLevels.name }).from(riskImpactLevels),
  ]);
  return { likelihood, impact };
}

/** Links with the linked control's ownership, so links the actor cannot see are kept and never shown. */
async function linksOf(db: DbOrTx, treatmentIds: string[]) {
  if (treatmentIds.length === 0) return [];
  return db.select({
    treatmentId: treatmentControls.treatmentId, id: controls.id, name: controls.name, ownerId: controls.ownerId, ownerGroupId: controls.ownerGroupId,
  }).from(treatmentControls).innerJoin(controls, eq(controls.id, treatmentControls.controlId))
    .where(inArray(treatmentControls.treatmentId, treatmentIds)).orderBy(asc(controls.name));
}

interface Candidate {
  type: StoredTreatment['type'];
  status: StoredTreatment['status'];
  title: string;
  description: string;
  dueOn: string | null;
  residualLikelihood: number | string | null;
  residualImpact: number | string | null;
  controlIds: string[];
}

type Scale = Awaited<ReturnType<typeof loadScale>>;

/** The treatment rules on a candidate, as every problem at once, and the columns to store. Pure: single and batch writes share it. */
function treatmentRules(risk: Pick<Risk, 'inherentLikelihood' | 'inherentImpact'>, scale: Scale, c: Candidate) {
  const problems: FieldProblem[] = [];
  const level = (field: string, levels: { value: number; name: string }[], ref: number | string | null) => {
    if (ref === null || ref === '') return null;
    const value = resolveLevel(levels, ref);
    if (value === undefined) problems.push({ field, message: `"${ref}" is not a level of the risk scale` });
    return value ?? null;
  };
  const rl = level('residualLikelihood', scale.likelihood, c.residualLikelihood);
  const ri = level('residualImpact', scale.impact, c.residualImpact);
  const title = c.title.trim();
  if (!title) problems.push({ field: 'title', message: 'must not be blank' });
  if (c.dueOn !== null && !isRealDate(c.dueOn)) problems.push({ field: 'dueOn', message: 'must be a real date written YYYY-MM-DD' });
  const rated = c.residualLikelihood !== null || c.residualImpact !== null;
  if (c.type !== 'mitigate') {
    if (rated) problems.push({ field: 'residualLikelihood', message: 'only a mitigate treatment carries a residual rating' });
    if (c.controlIds.length) problems.push({ field: 'controlIds', message: 'only a mitigate treatment links controls' });
  } else {
    if ((c.residualLikelihood === null) !== (c.residualImpact === null)) {
      problems.push({ field: c.residualLikelihood === null ? 'residualLikelihood' : 'residualImpact', message: 'residual likelihood and impact are set together' });
    }
    if (rl !== null && rl > risk.inherentLikelihood) problems.push({ field: 'residualLikelihood', message: "must not be above the risk's inherent likelihood" });
    if (ri !== null && ri > risk.inherentImpact) problems.push({ field: 'residualImpact', message: "must not be above the risk's inherent impact" });
  }
  return {
    problems,
    values: { type: c.type, status: c.status, title, description: c.description, dueOn: c.dueOn, residualLikelihood: rl, residualImpact: ri },
  };
}

/** Every rule at once: a 400 lists each problem; links to controls need controls:read (403) on readable controls (404). */
async function validateTreatment(tx: DbOrTx, actor: Actor, risk: Risk, c: Candidate, newControlIds: string[]) {
  const { problems, values } = treatmentRules(risk, await loadScale(tx), c);
  if (problems.length) throw invalid(problems);
  for (const id of newControlIds) await requireLinked(tx, actor, controlKind, id, 'controlIds');
  return values;
}

/**
 * An implemented mitigate treatment carrying a residual rating sets the risk's residual rating, through updateRisk so
 * the risk's History shows the change; the last such write wins. Planned treatments and removals leave the risk alone.
 */
async function applyResidual(tx: DbOrTx, actor: Actor, risk: Risk, row: StoredTreatment) {
  if (row.type !== 'mitigate' || row.status !== 'implemented' || row.residualLikelihood === null || row.residualImpact === null) return;
  if (risk.residualLikelihood === row.residualLikelihood && risk.residualImpact === row.residualImpact) return;
  await updateRisk(tx, actor, risk.id, { residualLikelihood: row.residualLikelihood, residualImpact: row.residualImpact });
}

const historyFields = (row: StoredTreatment, controlIds: string[]) => {
  const { id: _i, createdAt: _c, updatedAt: _u, createdBy: _b, ...fields } = row;
  return { ...fields, controlIds: [...controlIds].sort() };
};

export async function createTreatment(tx: DbOrTx, actor: Actor, riskId: string, input: TreatmentCreate): Promise<{ id: string }> {
  const risk = await loadRiskFor(tx, actor, riskId, 'risks:update');
  const controlIds = [...new Set(input.controlIds ?? [])];
  const values = await validateTreatment(tx, actor, risk, {
    type: input.type, status: input.status ?? 'planned', title: input.title, description: input.description ?? '',
    dueOn: input.dueOn ?? null, residualLikelihood: input.residualLikelihood ?? null, residualImpact: input.residualImpact ?? null, controlIds,
  }, controlIds);
  const [row] = await tx.insert(riskTreatments).values({ ...values, riskId, createdBy: actor.userId }).returning();
  if (controlIds.length) await tx.insert(treatmentControls).values(controlIds.map((controlId) => ({ treatmentId: row.id, controlId })));
  await recordChange(tx, actor, {
    module: 'risks', recordType: 'riskTreatment', recordId: row.id, action: 'create', before: null, after: historyFields(row, controlIds),
    details: { riskId },
  });
  await applyResidual(tx, actor, risk, row);
  return { id: row.id };
}

/** One item of a batch create (POST /api/v1/risks/treatments/batch): the risk and the treatment as POST /risks/{id}/treatments takes it. */
export type TreatmentBatchItem = TreatmentCreate & { riskId: string };

/**
 * Adds many treatments in one transaction with the rules of createTreatment (risks:update on each risk, the treatment
 * rules, controls:read and readable controls for links), one result per item: the risks, the scale and the linked
 * controls read once, the treatments and their links inserted together, every one in the Audit Log and History. An
 * implemented mitigate treatment with a residual rating sets its risk's rating, as a single write does.
 */
export async function createTreatments(tx: DbOrTx, actor: Actor, items: TreatmentBatchItem[]): Promise<BatchResult[]> {
  const riskIds = [...new Set(items.map((item) => item.riskId).filter(isUuid))];
  const [riskRows, scale] = await Promise.all([
    riskIds.length ? tx.select(riskColumns).from(risks).where(inArray(risks.id, riskIds)) : Promise.resolve([] as Risk[]),
    loadScale(tx),
  ]);
  const riskById = new Map(riskRows.map((r) => [r.id, r]));
  const linkIds = [...new Set(items.flatMap((item) => item.controlIds ?? []))];
  let readable: Map<string, { id: string; title: string }> | AppError = new Map();
  if (linkIds.length) {
    try {
      readable = await readableLinked(tx, actor, controlKind, linkIds);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      readable = error;
    }
  }
  const results: BatchResult[] = new Array(items.length);
  const accepted: { index: number; risk: Risk; row: typeof riskTreatments.$inferInsert & { id: string }; controlIds: string[] }[] = [];
  items.forEach((item, index) => {
    try {
      const risk = riskById.get(item.riskId);
      if (!risk) throw notFound(`Risk ${item.riskId}`);
      requireOnRecord(actor, 'risks:update', risk, `Risk ${item.riskId}`);
      const controlIds = [...new Set(item.controlIds ?? [])];
      const { problems, values } = treatmentRules(risk, scale, {
        type: item.type, status: item.status ?? 'planned', title: item.title, description: item.description ?? '',
        dueOn: item.dueOn ?? null, residualLikelihood: item.residualLikelihood ?? null, residualImpact: item.residualImpact ?? null, controlIds,
      });
      if (problems.length) throw invalid(problems);
      if (controlIds.length && readable instanceof AppError) throw readable;
      for (const id of controlIds) if (!(readable as Map<string, unknown>).has(id)) throw unreadableLink(controlKind, id, 'controlIds');
      accepted.push({ index, risk, row: { id: randomUUID(), ...values, riskId: risk.id, createdBy: actor.userId }, controlIds });
    } catch (error) {
      results[index] = refusalOf(error);
    }
  });
  if (accepted.length === 0) return results;
  const rows = await tx.insert(riskTreatments).values(accepted.map((a) => a.row)).returning();
  const stored = new Map(rows.map((row) => [row.id, row]));
  const links = accepted.flatMap((a) => a.controlIds.map((controlId) => ({ treatmentId: a.row.id, controlId })));
  if (links.length) await tx.insert(treatmentControls).values(links);
  await recordChanges(tx, actor, accepted.map((a) => ({
    module: 'risks', recordType: 'riskTreatment', recordId: a.row.id, action: 'create', before: null,
    after: historyFields(stored.get(a.row.id)!, a.controlIds), details: { riskId: a.risk.id },
  })));
  for (const a of accepted) {
    // The risk as it now stands: an earlier item of the batch may have set its rating already.
    await applyResidual(tx, actor, a.risk, stored.get(a.row.id)!);
    if (a.row.type === 'mitigate' && a.row.status === 'implemented' && a.row.residualLikelihood != null && a.row.residualImpact != null) {
      a.risk.residualLikelihood = a.row.residualLikelihood;
      a.risk.residualImpact = a.row.residualImpact;
    }
    results[a.index] = { id: a.row.id, changed: true };
  }
  return results;
}

export async function updateTreatment(tx: DbOrTx, actor: Actor, riskId: string, treatmentId: string, patch: TreatmentUpdate): Promise<TreatmentView> {
  const risk = await loadRiskFor(tx, actor, riskId, 'risks:update');
  const before = await loadTreatment(tx, riskId, treatmentId);
  const links = await linksOf(tx, [treatmentId]);
  const storedIds = links.map((l) => l.id);
  // Links to controls the actor cannot read stay as they are: a caller cannot remove what they cannot see.
  const hidden = links.filter((l) => !canTouch(actor, 'controls:read', l)).map((l) => l.id);
  const requested = patch.controlIds ? [...new Set(patch.controlIds)] : null;
  const controlIds = requested ? [...new Set([...requested, ...hidden])] : storedIds;
  const values = await validateTreatment(tx, actor, risk, {
    type: patch.type ?? before.type,
    status: patch.status ?? before.status,
    title: patch.title ?? before.title,
    description: patch.description ?? before.description,
    dueOn: patch.dueOn !== undefined ? patch.dueOn : before.dueOn,
    residualLikelihood: patch.residualLikelihood !== undefined ? patch.residualLikelihood : before.residualLikelihood,
    residualImpact: patch.residualImpact !== undefined ? patch.residualImpact : before.residualImpact,
    controlIds,
  }, (requested ?? []).filter((id) => !storedIds.includes(id)));
  const [after] = await tx.update(riskTreatments).set({ ...values, updatedAt: new Date() }).where(eq(riskTreatments.id, treatmentId)).returning();
  if (requested) {
    const removed = storedIds.filter((id) => !controlIds.includes(id));
    const added = controlIds.filter((id) => !storedIds.includes(id));
    if (removed.length) await tx.delete(treatmentControls).where(and(eq(treatmentControls.treatmentId, treatmentId), inArray(treatmentControls.controlId, removed)));
    if (added.length) await tx.insert(treatmentControls).values(added.map((controlId) => ({ treatmentId, controlId })));
  }
  await recordChange(tx, actor, {
    module: 'risks', recordType: 'riskTreatment', recordId: treatmentId, action: 'update',
    before: historyFields(before, storedIds), after: historyFields(after, controlIds), details: { riskId },
  });
  await applyResidual(tx, actor, risk, after);
  return (await treatmentViews(tx, actor, [after]))[0];
}

export async function deleteTreatment(tx: DbOrTx, actor: Actor, riskId: string, treatmentId: string): Promise<void> {
  await loadRiskFor(tx, actor, riskId, 'risks:update');
  const before = await loadTreatment(tx, riskId, treatmentId);
  const links = await linksOf(tx, [treatmentId]);
  await tx.delete(riskTreatments).where(eq(riskTreatments.id, treatmentId));
  await recordChange(tx, actor, {
    module: 'risks', recordType: 'riskTreatment', recordId: treatmentId, action: 'delete',
    before: historyFields(before, links.map((l) => l.id)), after: null, details: { riskId },
  });
}

async function treatmentViews(db: DbOrTx, actor: Actor, rows: StoredTreatment[]): Promise<TreatmentView[]> {
  const [scale, links] = await Promise.all([loadScale(db), linksOf(db, rows.map((r) => r.id))]);
  const named = (levels: { value: number; name: string }[], value: number | null) =>
    value === null ? null : { value, name: levels.find((l) => l.value === value)?.name ?? String(value) };
  return rows.map((r) => ({
    id: r.id, riskId: r.riskId, type: r.type, status: r.status, title: r.title, description: r.description, dueOn: r.dueOn,
    residualLikelihood: named(scale.likelihood, r.residualLikelihood),
    residualImpact: named(scale.impact, r.residualImpact),
    controls: links.filter((l) => l.treatmentId === r.id && canTouch(actor, 'controls:read', l)).map((l) => ({ id: l.id, name: l.name })),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }));
}

export async function listTreatments(db: DbOrTx, actor: Actor, riskId: string): Promise<TreatmentView[]> {
  await loadRiskFor(db, actor, riskId, 'risks:read');
  const rows = await db.select().from(riskTreatments).where(eq(riskTreatments.riskId, riskId))
    .orderBy(asc(riskTreatments.createdAt), asc(riskTreatments.id));
  return treatmentViews(db, actor, rows);
}

/**
 * Every treatment of the risks the actor may read, a page at a time (GET /api/v1/risks/treatments): for clients that
 * need the treatments of many risks, one request per 200 treatments instead of one per risk.
 */
export async function listAllTreatments(db: DbOrTx, actor: Actor, query: { page?: number; pageSize?: number; riskId?: string }): Promise<Page<TreatmentView>> {
  const { page, pageSize, offset } = paging(query);
  const where = and(
    ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId),
    query.riskId ? eq(riskTreatments.riskId, query.riskId) : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    db.select({ t: riskTreatments }).from(riskTreatments).innerJoin(risks, eq(risks.id, riskTreatments.riskId)).where(where)
      .orderBy(asc(riskTreatments.riskId), asc(riskTreatments.createdAt), asc(riskTreatments.id)).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(riskTreatments).innerJoin(risks, eq(risks.id, riskTreatments.riskId)).where(where),
  ]);
  return { rows: await treatmentViews(db, actor, rows.map((r) => r.t)), total, page, pageSize };
}

/** What the treatment plan narrows to: a status, a type and a range of due dates (a treatment without one is outside any range). */
export interface TreatmentPlanFilters {
  status?: string;
  type?: string;
  dueOnFrom?: string;
  dueOnTo?: string;
}

/**
 * The treatment plan: every treatment of the risks the actor may read, with its risk's title, sorted by that title and
 * the due date (undated last), `pageSize` at a time through one statement (a cursor on PostgreSQL), so a plan of any
 * size is written with memory flat.
 */
export async function* streamTreatmentPlan(db: DbOrTx, actor: Actor, chosen: TreatmentPlanFilters, pageSize = 1000): AsyncGenerator<(TreatmentView & { riskTitle: string })[]> {
  const fields = { ...getTableColumns(riskTreatments), riskTitle: risks.title };
  const where = and(
    ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId),
    chosen.status ? eq(riskTreatments.status, chosen.status as StoredTreatment['status']) : undefined,
    chosen.type ? eq(riskTreatments.type, chosen.type as StoredTreatment['type']) : undefined,
    chosen.dueOnFrom ? gte(riskTreatments.dueOn, chosen.dueOnFrom) : undefined,
    chosen.dueOnTo ? lte(riskTreatments.dueOn, chosen.dueOnTo) : undefined,
  );
  const build = () => db.select(fields).from(riskTreatments).innerJoin(risks, eq(risks.id, riskTreatments.riskId)).where(where)
    .orderBy(asc(risks.title), sql`${riskTreatments.dueOn} asc nulls last`, asc(riskTreatments.id));
  for await (const rows of streamFlat<StoredTreatment & { riskTitle: string }>(db, fields, build, pageSize)) {
    const views = await treatmentViews(db, actor, rows);
    yield views.map((view, i) => ({ ...view, riskTitle: rows[i].riskTitle }));
  }
}

/** One treatment of a risk the actor may read (its page). */
export async function getTreatment(db: DbOrTx, actor: Actor, riskId: string, treatmentId: string): Promise<TreatmentView> {
  await loadRiskFor(db, actor, riskId, 'risks:read');
  return (await treatmentViews(db, actor, [await loadTreatment(db, riskId, treatmentId)]))[0];
}

export async function treatmentHistory(db: DbOrTx, actor: Actor, riskId: string, treatmentId: string): Promise<HistoryView[]> {
  await loadRiskFor(db, actor, riskId, 'risks:read');
  // A removed treatment keeps its History; only the risk must still be readable.
  return listHistory(db, 'riskTreatment', treatmentId);
}

/** Records a review (needs risks:review on the risk); the reviewer defaults to the actor. */
export async function recordRiskReview(tx: DbOrTx, actor: Actor, riskId: string, input: ReviewCreate): Promise<{ id: string }> {
  await loadRiskFor(tx, actor, riskId, 'risks:review');
  const problems: FieldProblem[] = [];
  if (!isRealDate(input.reviewedOn)) problems.push({ field: 'reviewedOn', message: 'must be a real date written YYYY-MM-DD' });
  const reviewerId = input.reviewerId ?? actor.userId;
  if (reviewerId) {
    const [reviewer] = await tx.select({ status: users.status }).from(users).where(eq(users.id, reviewerId));
    if (!reviewer) problems.push({ field: 'reviewerId', message: 'no such user' });
    else if (reviewer.status !== 'active' && input.reviewerId) problems.push({ field: 'reviewerId', message: 'must be an active user' });
  }
  if (problems.length) throw invalid(problems);
  const [row] = await tx.insert(reviewsTable).values({
    riskId, reviewerId, reviewedOn: input.reviewedOn, outcome: input.outcome, notes: input.notes ?? '',
  }).returning();
  const { id, createdAt: _c, ...fields } = row;
  await recordChange(tx, actor, { module: 'risks', recordType: 'riskReview', recordId: id, action: 'create', before: null, after: fields });
  return { id };
}

export async function riskReviews(db: DbOrTx, actor: Actor, riskId: string, today = new Date()): Promise<RiskReviews> {
  const risk = await loadRiskFor(db, actor, riskId, 'risks:read');
  const rows = await db.select({ review: reviewsTable, name: users.name, email: users.email }).from(reviewsTable)
    .leftJoin(users, eq(users.id, reviewsTable.reviewerId))
    .where(eq(reviewsTable.riskId, riskId)).orderBy(desc(reviewsTable.reviewedOn), desc(reviewsTable.createdAt));
  const last = rows[0]?.review.reviewedOn ?? null;
  const nextReviewDue = addMonths(last ?? risk.createdAt.toISOString().slice(0, 10), risk.reviewFrequencyMonths);
  return {
    frequencyMonths: risk.reviewFrequencyMonths,
    lastReviewedOn: last,
    nextReviewDue,
    overdue: nextReviewDue < today.toISOString().slice(0, 10),
    reviews: rows.map(({ review: r, name, email }) => ({
      id: r.id,
      reviewer: r.reviewerId && name ? { id: r.reviewerId, name, email: email ?? '' } : null,
      reviewedOn: r.reviewedOn, outcome: r.outcome, notes: r.notes, createdAt: r.createdAt.toISOString(),
    })),
  };
}
