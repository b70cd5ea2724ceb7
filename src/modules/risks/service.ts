import { eq, sql, type AnyColumn } from 'drizzle-orm';
import { preparedOnce, type DbOrTx } from '../../../db/client';
import {
  analysisRisks, assets, dpias, businessUnits, exceptions, riskBands, riskClassifications, riskImpactLevels, riskLikelihoodLevels, riskScaleCells,
  risks, thirdPartyRisks,
} from '../../../db/schema';
import { namedRecords, readableNamed, type NamedRecords } from '../../platform/csv/import-type';
import { levelOf } from '../../platform/permissions/permissions';
import type { FieldProblem } from '../../platform/core/errors';
import { requireReadableLink, type LinkTarget } from '../../platform/records/links';
import type { Page } from '../../platform/http/paging';
import type { Actor } from '../../platform/permissions/permissions';
import {
  createRecord, deleteRecord, exists, getRecord, listQueries, listRecords, referencedBy, updateRecord,
  type BatchRules, type ListParams, type RecordKind, type RecordView,
} from '../../platform/records/records';
import { assetKind } from '../assets/service';
import { businessUnitKind, businessUnitOptions } from '../businessUnits/service';
import { RISK_STATUSES, type RiskCreate, type RiskListQuery, type RiskUpdate, type RiskView } from './schema';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { squash } from '../../platform/core/text';

/**
 * Risks on the register kit: one RecordKind (riskKind) serves REST, screens, the CSV import and MCP. What is the
 * risks' own: the rules (riskRuleProblems, over the scale and the records a risk may link to), the scores sorted on in
 * SQL, and the view with levels named, scores and bands (present).
 */

/**
 * The risk scale and classifications are small, so a read loads them once beside the risks instead of joining them
 * into every row: planning a ten-table join cost more than running it, and more than this one extra query.
 */
interface RiskLookups {
  classifications: Map<string, string>;
  likelihood: Map<number, string>;
  impact: Map<number, string>;
  cells: Map<string, number>;
  bands: { name: string; color: string; minScore: number; maxScore: number }[];
}

/** The scale and classifications in one json text; a prepared statement, since every risk page, read and write runs it. */
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

/**
 * Turns the kit's views of stored risks into risk views. The level, score and band objects are built once per read
 * from the lookups and shared by every row that has the same values: a page of 200 risks otherwise allocates
 * thousands of them.
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
  return (r: RecordView<typeof risks>): RiskView => {
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
      owner: r.owner,
      ownerGroup: r.ownerGroup,
      reviewFrequencyMonths: r.reviewFrequencyMonths,
      status: r.status,
      assetId: r.assetId,
      businessUnitId: r.businessUnitId,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      customFields: r.customFields ?? {},
    };
  };
}

const scoreOf = (likelihood: AnyColumn, impact: AnyColumn) =>
  sql`(select c.score from ${riskScaleCells} c where c.likelihood = ${likelihood} and c.impact = ${impact})`;

/** A level filter (the heat map's cells link with them): the level's value. */
const levelIs = (column: AnyColumn, value: string) => (/^\d{1,4}$/.test(value) ? eq(column, Number(value)) : sql`false`);

/** A band filter: the score of the risk's cell falls in the band of this name. */
const bandIs = (likelihood: AnyColumn, impact: AnyColumn, band: string) => sql`exists (select 1 from ${riskScaleCells} c
  join ${riskBands} b on c.score between b.min_score and b.max_score
  where c.likelihood = ${likelihood} and c.impact = ${impact} and b.name = ${band})`;

const LEVEL_FILTERS = { inherentLikelihood: 'likelihood', inherentImpact: 'impact', residualLikelihood: 'likelihood', residualImpact: 'impact' } as const;
const BAND_FILTERS = ['inherentBand', 'residualBand'] as const;

/** Level and band filters must name a level or band of the configured scale (read only when one is given). */
async function riskFilterProblems(db: DbOrTx, query: ListParams): Promise<FieldProblem[]> {
  const given = (name: string) => query[name] !== undefined && query[name] !== '';
  if (!Object.keys(LEVEL_FILTERS).some(given) && !BAND_FILTERS.some(given)) return [];
  const lookups = await loadRiskLookups(db);
  const problems: FieldProblem[] = [];
  for (const [name, axis] of Object.entries(LEVEL_FILTERS)) {
    if (given(name) && !lookups[axis].has(Number(query[name]))) {
      problems.push({ field: name, message: `"${query[name]}" is not ${axis === 'impact' ? 'an' : 'a'} ${axis} level of the risk scale` });
    }
  }
  for (const name of BAND_FILTERS) {
    if (given(name) && !lookups.bands.some((b) => b.name === String(query[name]))) {
      problems.push({ field: name, message: `"${query[name]}" is not an appetite band of the risk scale` });
    }
  }
  return problems;
}

export interface Scale {
  likelihood: { value: number; name: string }[];
  impact: { value: number; name: string }[];
}

const scaleOf = (lookups: RiskLookups): Scale => ({
  likelihood: [...lookups.likelihood].map(([value, name]) => ({ value, name })),
  impact: [...lookups.impact].map(([value, name]) => ({ value, name })),
});


/** A level by value (3 or "3") or by name, matched ignoring case, spaces and underscores. */
export function resolveLevel(levels: Scale['likelihood'], ref: number | string): number | undefined {
  if (typeof ref === 'number' || /^\d+$/.test(ref.trim())) {
    const value = Number(ref);
    return levels.find((l) => l.value === value)?.value;
  }
  return levels.find((l) => squash(l.name) === squash(ref))?.value;
}

export interface RiskLevels {
  inherentLikelihood: number | null;
  inherentImpact: number | null;
  residualLikelihood: number | null;
  residualImpact: number | null;
}

/** Whether a candidate's references exist (and, for links, are readable by the actor): facts the rules need. */
export interface RiskReferences {
  classification: boolean;
  asset: boolean;
  businessUnit: boolean;
}

/**
 * Every risk rule on a candidate, as problems (all of them, not only the first), with its levels resolved to values.
 * Pure: a single write gathers the scale and the references from the database, a batch (REST batch, CSV import) from
 * lookups loaded once; both are riskKind's, and both call this, so the rules live in one place.
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

/** The columns stored for a valid candidate: the title trimmed, levels given by name stored as their values. */
const riskColumns = (c: RiskCreate, scale: Scale) =>
  ({ ...c, title: c.title.trim(), ...riskRuleProblems(c, scale, { classification: true, asset: true, businessUnit: true }).levels });

/** What a batch's rules read once: the scale, the classifications, and the assets and units the actor may read. */
export interface RiskBatchLookups {
  likelihood: Scale['likelihood'];
  impact: Scale['impact'];
  classifications: NamedRecords;
  assets: NamedRecords;
  units: NamedRecords;
}

/** Loaded once per batch (and per CSV import run, whose columns read names through it). */
export async function loadRiskBatchLookups(db: DbOrTx, actor: Actor): Promise<RiskBatchLookups> {
  // Links name only records the actor may read (spec Bearer rule 4), as a single write's requireReadableLink.
  const [likelihood, impact, classes, assetRecords, unitRecords] = await Promise.all([
    db.select({ value: riskLikelihoodLevels.value, name: riskLikelihoodLevels.name }).from(riskLikelihoodLevels),
    db.select({ value: riskImpactLevels.value, name: riskImpactLevels.name }).from(riskImpactLevels),
    db.select({ id: riskClassifications.id, name: riskClassifications.name }).from(riskClassifications),
    readableNamed(db, actor, assetKind),
    readableNamed(db, actor, businessUnitKind),
  ]);
  return { likelihood, impact, classifications: namedRecords(classes), assets: assetRecords, units: unitRecords };
}

/** The risk rules over a batch's lookups. */
function batchRules(l: RiskBatchLookups): BatchRules<typeof risks, RiskCreate> {
  const scale = { likelihood: l.likelihood, impact: l.impact };
  return {
    async check(_db, c, before) {
      // Lookups hold only records the actor may read; a link left as it was is not judged again (requireReadableLink).
      return riskRuleProblems(c, scale, {
        classification: l.classifications.nameOf.has(c.classificationId),
        asset: !c.assetId || c.assetId === before?.assetId || l.assets.nameOf.has(c.assetId),
        businessUnit: !c.businessUnitId || c.businessUnitId === before?.businessUnitId || l.units.nameOf.has(c.businessUnitId),
      }).problems;
    },
    toColumns: (c) => riskColumns(c, scale),
  };
}

export const riskKind: RecordKind<typeof risks, RiskCreate, RiskView> = {
  module: 'risks',
  recordType: 'risk',
  label: 'Risk',
  table: risks,
  titleColumn: risks.title,
  statusColumn: risks.status,
  sortable: {
    title: risks.title,
    // The classification by its name (an inner alias: a report's query may join the classifications itself).
    classification: sql`(select rc.name from ${riskClassifications} rc where rc.id = ${risks.classificationId})`,
    status: inDefinedOrder(risks.status, RISK_STATUSES),
    owner: ownerNameSort,
    inherentScore: scoreOf(risks.inherentLikelihood, risks.inherentImpact),
    residualScore: scoreOf(risks.residualLikelihood, risks.residualImpact),
    createdAt: risks.createdAt,
    updatedAt: risks.updatedAt,
  },
  defaults: { description: '', reviewFrequencyMonths: 12, status: 'open', residualLikelihood: null, residualImpact: null, assetId: null, businessUnitId: null },
  filters: {
    classificationId: (value) => eq(risks.classificationId, value),
    inherentLikelihood: (value) => levelIs(risks.inherentLikelihood, value),
    inherentImpact: (value) => levelIs(risks.inherentImpact, value),
    residualLikelihood: (value) => levelIs(risks.residualLikelihood, value),
    residualImpact: (value) => levelIs(risks.residualImpact, value),
    inherentBand: (value) => bandIs(risks.inherentLikelihood, risks.inherentImpact, value),
    residualBand: (value) => bandIs(risks.residualLikelihood, risks.residualImpact, value),
  },
  filterProblems: riskFilterProblems,
  // Records of other modules that point at a risk; deleting it while any do is a 409 naming them (never orphaned links).
  references: [
    referencedBy({ one: 'requirement', many: 'requirements' }, analysisRisks, analysisRisks.riskId, { kind: 'requirement', id: analysisRisks.analysisId }),
    referencedBy({ one: 'third party linking it', many: 'third parties linking it' }, thirdPartyRisks, thirdPartyRisks.riskId, { kind: 'thirdParty', id: thirdPartyRisks.thirdPartyId }),
    referencedBy({ one: 'exception', many: 'exceptions' }, exceptions, exceptions.riskId),
    // Risks written from a DPIA ("Create a risk from this DPIA") are listed in the DPIA's risk_ids.
    { label: 'DPIAs', one: 'DPIA', count: async (db, id) => (await db.select({ n: sql<number>`count(*)::int` }).from(dpias).where(sql`${id}::uuid = any(${dpias.riskIds})`))[0]?.n ?? 0 },
  ],
  customFields: true,
  async check(db, c, before, actor) {
    await requireReadableLink(db, actor, assetKind, 'assetId', c.assetId, before?.assetId);
    await requireReadableLink(db, actor, businessUnitKind, 'businessUnitId', c.businessUnitId, before?.businessUnitId);
    const [lookups, asset, businessUnit] = await Promise.all([
      loadRiskLookups(db),
      exists(db, assets, assets.id, c.assetId),
      exists(db, businessUnits, businessUnits.id, c.businessUnitId),
    ]);
    return riskRuleProblems(c, scaleOf(lookups), { classification: lookups.classifications.has(c.classificationId), asset, businessUnit }).problems;
  },
  async toColumns(c, _before, db) {
    return riskColumns(c, scaleOf(await loadRiskLookups(db)));
  },
  batchRules: async (db, actor) => batchRules(await loadRiskBatchLookups(db, actor)),
  async present(db) {
    return { view: riskViews(await loadRiskLookups(db)) };
  },
};

/** Risks as the target of links from other records (a third party's linked risks, an analysis's mapped risks). */
export const riskLinkTarget: LinkTarget & Pick<typeof riskKind, 'recordType'> = riskKind;

/* The kit's services for riskKind, under the names other modules and the tests call them by. */

export const listRisks = (db: DbOrTx, actor: Actor, query: RiskListQuery): Promise<Page<RiskView>> => listRecords(db, riskKind, actor, query as ListParams);
export const getRisk = (db: DbOrTx, actor: Actor, id: string): Promise<RiskView> => getRecord(db, riskKind, actor, id);
export const createRisk = (tx: DbOrTx, actor: Actor, input: RiskCreate): Promise<{ id: string }> => createRecord(tx, riskKind, actor, input);
export const updateRisk = async (tx: DbOrTx, actor: Actor, id: string, patch: RiskUpdate): Promise<void> => {
  await updateRecord(tx, riskKind, actor, id, patch);
};
export const deleteRisk = (tx: DbOrTx, actor: Actor, id: string): Promise<void> => deleteRecord(tx, riskKind, actor, id);

/** The page query and the total query of a risk list; exported so the benchmark can time the same SQL directly. */
export const riskListQueries = (db: DbOrTx, actor: Actor, query: RiskListQuery) => listQueries(db, riskKind, actor, query as ListParams);

/** The records a risk links to (its asset and business unit), as the form and the record page name them. */
export const riskLinkKinds = { asset: assetKind, businessUnit: businessUnitKind } as const;

/** Choices of the risk form's asset and business unit: the records the viewer may read (none without the right). */
export const riskLinkOptions = {
  async asset(db: DbOrTx, viewer: Actor): Promise<{ value: string; label: string }[]> {
    return [...(await readableNamed(db, viewer, assetKind)).nameOf].map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label));
  },
  async businessUnit(db: DbOrTx, viewer: Actor): Promise<{ value: string; label: string }[]> {
    return levelOf(viewer, 'businessUnits:read') === null ? [] : businessUnitOptions(db, viewer);
  },
};
