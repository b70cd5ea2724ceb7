import { and, count, desc, eq, ilike, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import {
  analysisRisks, assets, businessUnits, groups, riskBands, thirdPartyRisks, riskClassifications, riskImpactLevels, riskLikelihoodLevels, riskScaleCells, risks, users,
} from '../../../db/schema';
import { conflict, invalid, notFound, type FieldProblem } from '../../platform/errors';
import { recordChange } from '../../platform/history';
import { ownerProblems, ownershipCondition, requireOwnLevelKeepsOwnership } from '../../platform/ownership';
import { orderBy, paging, type Page } from '../../platform/paging';
import { requireOnRecord, requirePermission, type Actor } from '../../platform/permissions';
import {
  auditedCustomFields, deleteCustomFields, loadCustomFields, prepareCustomFields, saveCustomFieldWrite,
} from '../../platform/custom-field-values';
import { exists, referencedBy } from '../../platform/records';
import type { RiskCreate, RiskListQuery, RiskUpdate, RiskView } from './schema';

const inherentLikelihood = alias(riskLikelihoodLevels, 'il');
const inherentImpact = alias(riskImpactLevels, 'ii');
const residualLikelihood = alias(riskLikelihoodLevels, 'rl');
const residualImpact = alias(riskImpactLevels, 'ri');
const inherentCell = alias(riskScaleCells, 'ic');
const residualCell = alias(riskScaleCells, 'rc');

const bandFor = (score: AnyColumn) => sql<string | null>`(
  select json_build_object('name', b.name, 'color', b.color)::text from ${riskBands} b
  where ${score} between b.min_score and b.max_score order by b.min_score limit 1)`;

/** One SELECT yields the full view: names of levels, scores from the matrix, bands, owner and group names. */
function selectRiskViews(db: DbOrTx) {
  return db.select({
    risk: risks,
    classificationName: riskClassifications.name,
    ilName: inherentLikelihood.name,
    iiName: inherentImpact.name,
    rlName: residualLikelihood.name,
    riName: residualImpact.name,
    inherentScore: inherentCell.score,
    residualScore: residualCell.score,
    inherentBand: bandFor(inherentCell.score),
    residualBand: bandFor(residualCell.score),
    ownerName: users.name,
    ownerEmail: users.email,
    ownerGroupName: groups.name,
  }).from(risks)
    .innerJoin(riskClassifications, eq(riskClassifications.id, risks.classificationId))
    .innerJoin(inherentLikelihood, eq(inherentLikelihood.value, risks.inherentLikelihood))
    .innerJoin(inherentImpact, eq(inherentImpact.value, risks.inherentImpact))
    .leftJoin(residualLikelihood, eq(residualLikelihood.value, risks.residualLikelihood))
    .leftJoin(residualImpact, eq(residualImpact.value, risks.residualImpact))
    .leftJoin(inherentCell, and(eq(inherentCell.likelihood, risks.inherentLikelihood), eq(inherentCell.impact, risks.inherentImpact)))
    .leftJoin(residualCell, and(eq(residualCell.likelihood, risks.residualLikelihood), eq(residualCell.impact, risks.residualImpact)))
    .leftJoin(users, eq(users.id, risks.ownerId))
    .leftJoin(groups, eq(groups.id, risks.ownerGroupId));
}

type RiskRow = Awaited<ReturnType<ReturnType<typeof selectRiskViews>['execute']>>[number];

function toView(row: RiskRow): RiskView {
  const r = row.risk;
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    classification: { id: r.classificationId, name: row.classificationName },
    inherentLikelihood: { value: r.inherentLikelihood, name: row.ilName },
    inherentImpact: { value: r.inherentImpact, name: row.iiName },
    inherentScore: row.inherentScore,
    inherentBand: row.inherentBand ? JSON.parse(row.inherentBand) : null,
    residualLikelihood: r.residualLikelihood !== null && row.rlName ? { value: r.residualLikelihood, name: row.rlName } : null,
    residualImpact: r.residualImpact !== null && row.riName ? { value: r.residualImpact, name: row.riName } : null,
    residualScore: row.residualScore,
    residualBand: row.residualBand ? JSON.parse(row.residualBand) : null,
    owner: r.ownerId && row.ownerName ? { id: r.ownerId, name: row.ownerName, email: row.ownerEmail ?? '' } : null,
    ownerGroup: r.ownerGroupId && row.ownerGroupName ? { id: r.ownerGroupId, name: row.ownerGroupName } : null,
    reviewFrequencyMonths: r.reviewFrequencyMonths,
    status: r.status,
    assetId: r.assetId,
    businessUnitId: r.businessUnitId,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

const sortColumns = {
  title: risks.title,
  status: risks.status,
  inherentScore: inherentCell.score,
  residualScore: residualCell.score,
  createdAt: risks.createdAt,
  updatedAt: risks.updatedAt,
};

export function riskFilters(actor: Actor, query: Partial<RiskListQuery>): SQL | undefined {
  return and(
    ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId),
    query.status ? eq(risks.status, query.status) : undefined,
    query.classificationId ? eq(risks.classificationId, query.classificationId) : undefined,
    query.ownerId ? eq(risks.ownerId, query.ownerId) : undefined,
    query.ownerGroupId ? eq(risks.ownerGroupId, query.ownerGroupId) : undefined,
    query.q ? ilike(risks.title, `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
  );
}

/** The page query and the count query of a risk list; exported so the benchmark can time the same SQL directly. */
export function riskListQueries(db: DbOrTx, actor: Actor, query: RiskListQuery) {
  const { pageSize, offset } = paging(query);
  const where = riskFilters(actor, query);
  const order = orderBy(query.sort, sortColumns, [desc(risks.createdAt), desc(risks.id)], risks.id);
  return {
    page: selectRiskViews(db).where(where).orderBy(...order).limit(pageSize).offset(offset),
    total: db.select({ total: count() }).from(risks).where(where),
  };
}

export async function listRisks(db: DbOrTx, actor: Actor, query: RiskListQuery): Promise<Page<RiskView>> {
  const { page, pageSize } = paging(query);
  const queries = riskListQueries(db, actor, query);
  // Named (prepared) statements let PostgreSQL reuse the plan: planning this ten-table join costs more than running it.
  const [rows, [{ total }]] = await Promise.all([
    queries.page.prepare('risk_list_page').execute(),
    queries.total.prepare('risk_list_total').execute(),
  ]);
  const views = rows.map(toView);
  // Custom field values for the whole page in one query.
  const values = await loadCustomFields(db, 'risks', views.map((v) => v.id));
  for (const view of views) view.customFields = values.get(view.id) ?? {};
  return { rows: views, total, page, pageSize };
}

async function loadRisk(db: DbOrTx, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await selectRiskViews(db).where(eq(risks.id, id));
  return row;
}

export async function getRisk(db: DbOrTx, actor: Actor, id: string): Promise<RiskView> {
  const row = await loadRisk(db, id);
  if (!row) throw notFound(`Risk ${id}`);
  requireOnRecord(actor, 'risks:read', row.risk, `Risk ${id}`);
  return { ...toView(row), customFields: (await loadCustomFields(db, 'risks', [id])).get(id) ?? {} };
}

interface Scale {
  likelihood: { value: number; name: string }[];
  impact: { value: number; name: string }[];
}

async function loadScale(db: DbOrTx): Promise<Scale> {
  const [likelihood, impact] = await Promise.all([
    db.select({ value: riskLikelihoodLevels.value, name: riskLikelihoodLevels.name }).from(riskLikelihoodLevels),
    db.select({ value: riskImpactLevels.value, name: riskImpactLevels.name }).from(riskImpactLevels),
  ]);
  return { likelihood, impact };
}

const squash = (s: string) => s.toLowerCase().replace(/[\s_]+/g, '');

/** A level by value (3 or "3") or by name, matched ignoring case, spaces and underscores. */
export function resolveLevel(levels: Scale['likelihood'], ref: number | string): number | undefined {
  if (typeof ref === 'number' || /^\d+$/.test(ref.trim())) {
    const value = Number(ref);
    return levels.find((l) => l.value === value)?.value;
  }
  return levels.find((l) => squash(l.name) === squash(ref))?.value;
}

type StoredRisk = typeof risks.$inferInsert;

/** Checks every business rule at once and returns the columns to store, or throws a 400 listing each problem. */
async function validateRisk(db: DbOrTx, input: RiskCreate, extraProblems: FieldProblem[] = []): Promise<Omit<StoredRisk, 'id'>> {
  const problems: FieldProblem[] = [];
  const scale = await loadScale(db);
  const level = (field: string, levels: Scale['likelihood'], ref: number | string | null | undefined) => {
    if (ref === null || ref === undefined || ref === '') return null;
    const value = resolveLevel(levels, ref);
    if (value === undefined) problems.push({ field, message: `"${ref}" is not a level of the risk scale` });
    return value ?? null;
  };
  const il = level('inherentLikelihood', scale.likelihood, input.inherentLikelihood);
  const ii = level('inherentImpact', scale.impact, input.inherentImpact);
  const rl = level('residualLikelihood', scale.likelihood, input.residualLikelihood);
  const ri = level('residualImpact', scale.impact, input.residualImpact);
  if (il !== null && rl !== null && rl > il) problems.push({ field: 'residualLikelihood', message: 'must not be above the inherent likelihood' });
  if (ii !== null && ri !== null && ri > ii) problems.push({ field: 'residualImpact', message: 'must not be above the inherent impact' });
  if ((rl === null) !== (ri === null)) problems.push({ field: rl === null ? 'residualLikelihood' : 'residualImpact', message: 'residual likelihood and impact are set together' });
  const title = input.title.trim();
  if (!title) problems.push({ field: 'title', message: 'must not be blank' });
  const [classification] = await db.select({ id: riskClassifications.id }).from(riskClassifications)
    .where(eq(riskClassifications.id, input.classificationId));
  if (!classification) problems.push({ field: 'classificationId', message: 'no such risk classification' });
  if (!(await exists(db, assets, assets.id, input.assetId))) problems.push({ field: 'assetId', message: 'no such asset' });
  if (!(await exists(db, businessUnits, businessUnits.id, input.businessUnitId))) problems.push({ field: 'businessUnitId', message: 'no such business unit' });
  const ownerId = input.ownerId ?? null;
  const ownerGroupId = input.ownerGroupId ?? null;
  problems.push(...(await ownerProblems(db, { ownerId, ownerGroupId })), ...extraProblems);
  if (problems.length) throw invalid(problems);
  return {
    title,
    description: input.description ?? '',
    classificationId: input.classificationId,
    inherentLikelihood: il!,
    inherentImpact: ii!,
    residualLikelihood: rl,
    residualImpact: ri,
    ownerId,
    ownerGroupId,
    reviewFrequencyMonths: input.reviewFrequencyMonths ?? 12,
    status: input.status ?? 'open',
    assetId: input.assetId ?? null,
    businessUnitId: input.businessUnitId ?? null,
  };
}

/** The fields History and the Audit Log record for a risk (stored values, not display names). */
const auditFields = (r: typeof risks.$inferSelect) => {
  const { createdAt: _c, updatedAt: _u, createdBy: _b, id: _i, ...fields } = r;
  return fields;
};

export async function createRisk(tx: DbOrTx, actor: Actor, input: RiskCreate): Promise<{ id: string }> {
  const level = requirePermission(actor, 'risks:create');
  const withOwner = input.ownerId === undefined && input.ownerGroupId === undefined && actor.userId
    ? { ...input, ownerId: actor.userId }
    : input;
  const custom = await prepareCustomFields(tx, 'risks', null, input.customFields);
  const values = await validateRisk(tx, withOwner, custom.problems);
  requireOwnLevelKeepsOwnership(actor, 'risks:create', level, { ownerId: values.ownerId ?? null, ownerGroupId: values.ownerGroupId ?? null });
  const [row] = await tx.insert(risks).values({ ...values, createdBy: actor.userId }).returning();
  await saveCustomFieldWrite(tx, custom, row.id);
  await recordChange(tx, actor, {
    module: 'risks', recordType: 'risk', recordId: row.id, action: 'create', before: null, after: { ...auditFields(row), ...auditedCustomFields(custom.next) },
  });
  return { id: row.id };
}

export async function updateRisk(tx: DbOrTx, actor: Actor, id: string, patch: RiskUpdate): Promise<void> {
  const current = await loadRisk(tx, id);
  if (!current) throw notFound(`Risk ${id}`);
  requireOnRecord(actor, 'risks:update', current.risk, `Risk ${id}`);
  const level = requirePermission(actor, 'risks:update');
  const before = current.risk;
  const merged: RiskCreate = {
    title: patch.title ?? before.title,
    description: patch.description ?? before.description,
    classificationId: patch.classificationId ?? before.classificationId,
    inherentLikelihood: patch.inherentLikelihood ?? before.inherentLikelihood,
    inherentImpact: patch.inherentImpact ?? before.inherentImpact,
    residualLikelihood: patch.residualLikelihood !== undefined ? patch.residualLikelihood : before.residualLikelihood,
    residualImpact: patch.residualImpact !== undefined ? patch.residualImpact : before.residualImpact,
    ownerId: patch.ownerId !== undefined ? patch.ownerId : before.ownerId,
    ownerGroupId: patch.ownerGroupId !== undefined ? patch.ownerGroupId : before.ownerGroupId,
    reviewFrequencyMonths: patch.reviewFrequencyMonths ?? before.reviewFrequencyMonths,
    status: patch.status ?? before.status,
    assetId: patch.assetId !== undefined ? patch.assetId : before.assetId,
    businessUnitId: patch.businessUnitId !== undefined ? patch.businessUnitId : before.businessUnitId,
  };
  const custom = await prepareCustomFields(tx, 'risks', id, patch.customFields);
  const values = await validateRisk(tx, merged, custom.problems);
  requireOwnLevelKeepsOwnership(actor, 'risks:update', level, { ownerId: values.ownerId ?? null, ownerGroupId: values.ownerGroupId ?? null });
  const [after] = await tx.update(risks).set({ ...values, updatedAt: new Date() }).where(eq(risks.id, id)).returning();
  await saveCustomFieldWrite(tx, custom, id);
  await recordChange(tx, actor, {
    module: 'risks', recordType: 'risk', recordId: id, action: 'update',
    before: { ...auditFields(before), ...auditedCustomFields(custom.before) }, after: { ...auditFields(after), ...auditedCustomFields(custom.next) },
  });
}

/** Records of other modules that point at a risk; deleting it while any do is a 409 naming them (never orphaned links). */
const RISK_REFERENCES = [
  referencedBy('compliance analyses', analysisRisks, analysisRisks.riskId),
  referencedBy('third parties linking it', thirdPartyRisks, thirdPartyRisks.riskId),
];

async function refuseWhileReferenced(tx: DbOrTx, id: string): Promise<void> {
  const still: string[] = [];
  for (const reference of RISK_REFERENCES) {
    const n = await reference.count(tx, id);
    if (n > 0) still.push(`${n} ${reference.label}`);
  }
  if (still.length) throw conflict(`Risk ${id} is still referenced by ${still.join(', ')}; remove those references first`);
}

export async function deleteRisk(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const current = await loadRisk(tx, id);
  if (!current) throw notFound(`Risk ${id}`);
  requireOnRecord(actor, 'risks:delete', current.risk, `Risk ${id}`);
  await refuseWhileReferenced(tx, id);
  const customFields = (await loadCustomFields(tx, 'risks', [id])).get(id) ?? {};
  await deleteCustomFields(tx, 'risks', id);
  await tx.delete(risks).where(eq(risks.id, id));
  await recordChange(tx, actor, {
    module: 'risks', recordType: 'risk', recordId: id, action: 'delete', before: { ...auditFields(current.risk), ...auditedCustomFields(customFields) }, after: null,
  });
}

export async function countRisks(db: DbOrTx): Promise<number> {
  const [{ total }] = await db.select({ total: count() }).from(risks);
  return total;
}
