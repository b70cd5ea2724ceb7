import { and, count, desc, eq, getTableColumns, ilike, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { flatStatement, preparedOnce, selectFlat, withIsoTimestamps, type DbOrTx } from '../../../db/client';
import {
  analysisRisks, assets, businessUnits, exceptions, groups, riskBands, thirdPartyRisks, riskClassifications, riskImpactLevels, riskLikelihoodLevels, riskScaleCells, risks, users,
} from '../../../db/schema';
import { conflict, invalid, notFound, type FieldProblem } from '../../platform/errors';
import { recordChange } from '../../platform/history';
import { ownerProblems, ownershipCondition, requireOwnLevelKeepsOwnership } from '../../platform/ownership';
import { orderBy, paging, type Page } from '../../platform/paging';
import { requireOnRecord, requirePermission, type Actor } from '../../platform/permissions';
import {
  auditedCustomFields, customFieldsColumn, deleteCustomFields, loadCustomFields, prepareCustomFields, saveCustomFieldWrite,
} from '../../platform/custom-field-values';
import { exists, referencedBy } from '../../platform/records';
import { listTotalQuery } from '../../platform/row-counts';
import type { RiskCreate, RiskListQuery, RiskUpdate, RiskView } from './schema';
import { requireReadableLink, type LinkTarget } from '../../platform/links';
import { assetKind } from '../assets/service';
import { businessUnitKind } from '../businessUnits/service';

/**
 * The risk scale and classifications are small, so a page reads them once beside the risks instead of joining them
 * into every row: planning a ten-table join cost more than running it, and more than this one extra query.
 */
interface RiskLookups {
  classifications: Map<string, string>;
  likelihood: Map<number, string>;
  impact: Map<number, string>;
  cells: Map<string, number>;
  bands: { name: string; color: string; minScore: number; maxScore: number }[];
}

/** The scale and classifications in one json text; a prepared statement, since every risk page and read runs it. */
const riskLookupsStatement = preparedOnce((db) => db.select({
  lookups: sql<string>`json_build_object(
    'classifications', (select coalesce(json_agg(json_build_array(id, name)), '[]') from ${riskClassifications}),
    'likelihood', (select coalesce(json_agg(json_build_array(value, name)), '[]') from ${riskLikelihoodLevels}),
    'impact', (select coalesce(json_agg(json_build_array(value, name)), '[]') from ${riskImpactLevels}),
    'cells', (select coalesce(json_agg(json_build_array(likelihood, impact, score)), '[]') from ${riskScaleCells}),
    'bands', (select coalesce(json_agg(json_build_object('name', name, 'color', color, 'minScore', min_score, 'maxScore', max_score)
               order by min_score), '[]') from ${riskBands})
  )::text`,
}).from(sql`(values (1)) as one_row (x)`).prepare('risk_lookups'));

export async function loadRiskLookups(db: DbOrTx): Promise<RiskLookups> {
  const [row] = await riskLookupsStatement(db).execute();
  const raw = JSON.parse(row.lookups) as {
    classifications: [string, string][]; likelihood: [number, string][]; impact: [number, string][];
    cells: [number, number, number][]; bands: RiskLookups['bands'];
  };
  return {
    classifications: new Map(raw.classifications),
    likelihood: new Map(raw.likelihood),
    impact: new Map(raw.impact),
    cells: new Map(raw.cells.map(([l, i, score]) => [`${l}:${i}`, score])),
    bands: raw.bands,
  };
}

/** The risks themselves with their owner's and group's names: three relations, so planning stays trivial. */
function selectRiskRows(db: DbOrTx) {
  return db.select({ risk: risks, ownerName: users.name, ownerEmail: users.email, ownerGroupName: groups.name })
    .from(risks)
    .leftJoin(users, eq(users.id, risks.ownerId))
    .leftJoin(groups, eq(groups.id, risks.ownerGroupId));
}

type RiskRow = Awaited<ReturnType<ReturnType<typeof selectRiskRows>['execute']>>[number];
type RiskPageRow = Awaited<ReturnType<ReturnType<typeof selectRiskPageRows>['execute']>>[number];

const { createdBy: _createdBy, ...riskViewColumns } = getTableColumns(risks);

/**
 * A page of risks as flat rows: the columns a view shows, the owner's and group's names and the custom fields. Flat,
 * because Drizzle maps a nested `{ risk: ... }` selection field by field with more work per value, and a page maps
 * 200 rows of twenty fields.
 */
const riskPageFields = withIsoTimestamps({
  ...riskViewColumns, ownerName: users.name, ownerEmail: users.email, ownerGroupName: groups.name,
  customFields: customFieldsColumn('risks', risks.id),
});

function selectRiskPageRows(db: DbOrTx) {
  return db.select(riskPageFields)
    .from(risks)
    .leftJoin(users, eq(users.id, risks.ownerId))
    .leftJoin(groups, eq(groups.id, risks.ownerGroupId));
}

/** What a view is made of: a risk's shown fields and its owner's and group's names. */
type RiskRecord = Omit<typeof risks.$inferSelect, 'createdBy' | 'createdAt' | 'updatedAt'> & Pick<RiskRow, 'ownerName' | 'ownerEmail' | 'ownerGroupName'> & {
  /** A Date from a single read, ISO text already from a list page (withIsoTimestamps). */
  createdAt: Date | string;
  updatedAt: Date | string;
};

const iso = (value: Date | string) => (typeof value === 'string' ? value : value.toISOString());

const toRecord = ({ risk, ownerName, ownerEmail, ownerGroupName }: RiskRow): RiskRecord => ({ ...risk, ownerName, ownerEmail, ownerGroupName });

/**
 * Turns stored risks into views. The level, score and band objects are built once per request from the lookups and
 * shared by every row that has the same values: a page of 200 risks otherwise allocates thousands of them.
 */
function riskViews(lookups: RiskLookups) {
  const levels = (names: Map<number, string>) => new Map([...names].map(([value, name]) => [value, { value, name }]));
  const likelihood = levels(lookups.likelihood);
  const impact = levels(lookups.impact);
  const bandOf = new Map<number, { name: string; color: string } | null>();
  const band = (score: number | null) => {
    if (score === null) return null;
    if (!bandOf.has(score)) {
      const found = lookups.bands.find((b) => score >= b.minScore && score <= b.maxScore);
      bandOf.set(score, found ? { name: found.name, color: found.color } : null);
    }
    return bandOf.get(score)!;
  };
  const score = (l: number | null, i: number | null) => (l === null || i === null ? null : lookups.cells.get(`${l}:${i}`) ?? null);
  return (r: RiskRecord): RiskView => {
    const inherentScore = score(r.inherentLikelihood, r.inherentImpact);
    const residualScore = score(r.residualLikelihood, r.residualImpact);
    return {
      id: r.id,
      title: r.title,
      description: r.description,
      classification: { id: r.classificationId, name: lookups.classifications.get(r.classificationId) ?? '' },
      inherentLikelihood: likelihood.get(r.inherentLikelihood) ?? { value: r.inherentLikelihood, name: '' },
      inherentImpact: impact.get(r.inherentImpact) ?? { value: r.inherentImpact, name: '' },
      inherentScore,
      inherentBand: band(inherentScore),
      residualLikelihood: r.residualLikelihood === null ? null : likelihood.get(r.residualLikelihood) ?? null,
      residualImpact: r.residualImpact === null ? null : impact.get(r.residualImpact) ?? null,
      residualScore,
      residualBand: band(residualScore),
      owner: r.ownerId && r.ownerName ? { id: r.ownerId, name: r.ownerName, email: r.ownerEmail ?? '' } : null,
      ownerGroup: r.ownerGroupId && r.ownerGroupName ? { id: r.ownerGroupId, name: r.ownerGroupName } : null,
      reviewFrequencyMonths: r.reviewFrequencyMonths,
      status: r.status,
      assetId: r.assetId,
      businessUnitId: r.businessUnitId,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
    };
  };
}

const scoreOf = (likelihood: AnyColumn, impact: AnyColumn) =>
  sql`(select c.score from ${riskScaleCells} c where c.likelihood = ${likelihood} and c.impact = ${impact})`;

const sortColumns = {
  title: risks.title,
  status: risks.status,
  inherentScore: scoreOf(risks.inherentLikelihood, risks.inherentImpact),
  residualScore: scoreOf(risks.residualLikelihood, risks.residualImpact),
  createdAt: risks.createdAt,
  updatedAt: risks.updatedAt,
};

/** A known sort key (`title`, `-inherentScore`, ...) or '' for the default order (newest first). */
const effectiveSort = (sort: string | undefined) => (sort && (sortColumns as Record<string, unknown>)[sort.replace(/^-/, '')] ? sort : '');

const riskOrder = (sort: string | undefined) => orderBy(effectiveSort(sort) || undefined, sortColumns, [desc(risks.createdAt), desc(risks.id)], risks.id);

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

/** The page query and the total query of a risk list; exported so the benchmark can time the same SQL directly. */
export function riskListQueries(db: DbOrTx, actor: Actor, query: RiskListQuery) {
  const { pageSize, offset } = paging(query);
  const where = riskFilters(actor, query);
  return {
    page: selectRiskPageRows(db).where(where).orderBy(...riskOrder(query.sort)).limit(pageSize).offset(offset),
    total: listTotalQuery(db, risks, where),
  };
}

/**
 * The unfiltered page at level all (what an integration reads most) by sort order, built once per handle with the
 * page's limit and offset as placeholders: the same SQL as riskListQueries writes, without building it per request.
 */
const unfilteredPages = new WeakMap<DbOrTx, Map<string, ReturnType<typeof flatStatement<RiskPageRow>>>>();

function unfilteredPage(db: DbOrTx, sort: string | undefined) {
  let bySort = unfilteredPages.get(db);
  if (!bySort) unfilteredPages.set(db, (bySort = new Map()));
  const key = effectiveSort(sort);
  let statement = bySort.get(key);
  if (!statement) {
    const builder = selectRiskPageRows(db).orderBy(...riskOrder(key)).limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
    bySort.set(key, (statement = flatStatement<RiskPageRow>(db, riskPageFields, builder)));
  }
  return statement;
}

export async function listRisks(db: DbOrTx, actor: Actor, query: RiskListQuery): Promise<Page<RiskView>> {
  const { page, pageSize, offset } = paging(query);
  const queries = riskListQueries(db, actor, query);
  const pageRows = riskFilters(actor, query) === undefined
    ? unfilteredPage(db, query.sort).execute({ limit: pageSize, offset })
    : selectFlat<RiskPageRow>(db, riskPageFields, queries.page);
  // Named (prepared) statements: PostgreSQL keeps the plan per connection instead of planning every request.
  const [rows, [{ total }], lookups] = await Promise.all([
    pageRows,
    queries.total.prepare('risk_list_total').execute(),
    loadRiskLookups(db),
  ]);
  const toView = riskViews(lookups);
  const views = rows.map((row) => ({ ...toView(row), customFields: row.customFields ?? {} }));
  return { rows: views, total, page, pageSize };
}

async function loadRisk(db: DbOrTx, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await selectRiskRows(db).where(eq(risks.id, id));
  return row;
}

export async function getRisk(db: DbOrTx, actor: Actor, id: string): Promise<RiskView> {
  const [row, lookups] = await Promise.all([loadRisk(db, id), loadRiskLookups(db)]);
  if (!row) throw notFound(`Risk ${id}`);
  requireOnRecord(actor, 'risks:read', row.risk, `Risk ${id}`);
  return { ...riskViews(lookups)(toRecord(row)), customFields: (await loadCustomFields(db, 'risks', [id])).get(id) ?? {} };
}

export interface Scale {
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

/** Whether a candidate's references exist (and, for links, are readable by the actor): facts the rules need. */
export interface RiskReferences {
  classification: boolean;
  asset: boolean;
  businessUnit: boolean;
}

export interface RiskLevels {
  inherentLikelihood: number | null;
  inherentImpact: number | null;
  residualLikelihood: number | null;
  residualImpact: number | null;
}

/**
 * Every risk rule on a candidate, as problems (all of them, not only the first), with its levels resolved to values.
 * Pure: a single write (validateRisk) gathers the scale and the references from the database, a CSV import from
 * lookups loaded once per run; both call this, so the rules live in one place.
 */
export function riskRuleProblems(
  input: Pick<RiskCreate, 'title' | 'inherentLikelihood' | 'inherentImpact' | 'residualLikelihood' | 'residualImpact'>,
  scale: Scale, references: RiskReferences,
): { problems: FieldProblem[]; levels: RiskLevels } {
  const problems: FieldProblem[] = [];
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
  if (!input.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
  if (!references.classification) problems.push({ field: 'classificationId', message: 'no such risk classification' });
  if (!references.asset) problems.push({ field: 'assetId', message: 'no such asset' });
  if (!references.businessUnit) problems.push({ field: 'businessUnitId', message: 'no such business unit' });
  return { problems, levels: { inherentLikelihood: il, inherentImpact: ii, residualLikelihood: rl, residualImpact: ri } };
}

/** Checks every business rule at once and returns the columns to store, or throws a 400 listing each problem. */
async function validateRisk(db: DbOrTx, input: RiskCreate, extraProblems: FieldProblem[] = []): Promise<Omit<StoredRisk, 'id'>> {
  const [scale, [classification], asset, businessUnit] = await Promise.all([
    loadScale(db),
    db.select({ id: riskClassifications.id }).from(riskClassifications).where(eq(riskClassifications.id, input.classificationId)),
    exists(db, assets, assets.id, input.assetId),
    exists(db, businessUnits, businessUnits.id, input.businessUnitId),
  ]);
  const { problems, levels } = riskRuleProblems(input, scale, { classification: classification !== undefined, asset, businessUnit });
  const ownerId = input.ownerId ?? null;
  const ownerGroupId = input.ownerGroupId ?? null;
  problems.push(...(await ownerProblems(db, { ownerId, ownerGroupId })), ...extraProblems);
  if (problems.length) throw invalid(problems);
  return {
    title: input.title.trim(),
    description: input.description ?? '',
    classificationId: input.classificationId,
    inherentLikelihood: levels.inherentLikelihood!,
    inherentImpact: levels.inherentImpact!,
    residualLikelihood: levels.residualLikelihood,
    residualImpact: levels.residualImpact,
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

/** Risks as the target of links from other records (a third party's linked risks, an analysis's mapped risks). */
export const riskLinkTarget: LinkTarget = { module: 'risks', label: 'Risk', table: risks, titleColumn: risks.title };

export async function createRisk(tx: DbOrTx, actor: Actor, input: RiskCreate): Promise<{ id: string }> {
  const level = requirePermission(actor, 'risks:create');
  const withOwner = input.ownerId === undefined && input.ownerGroupId === undefined && actor.userId
    ? { ...input, ownerId: actor.userId }
    : input;
  const custom = await prepareCustomFields(tx, 'risks', null, input.customFields);
  await requireReadableLink(tx, actor, assetKind, 'assetId', withOwner.assetId);
  await requireReadableLink(tx, actor, businessUnitKind, 'businessUnitId', withOwner.businessUnitId);
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
  await requireReadableLink(tx, actor, assetKind, 'assetId', merged.assetId, before.assetId);
  await requireReadableLink(tx, actor, businessUnitKind, 'businessUnitId', merged.businessUnitId, before.businessUnitId);
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
  referencedBy('exceptions', exceptions, exceptions.riskId),
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
