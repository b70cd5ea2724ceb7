import { asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { riskBands, riskImpactLevels, riskLikelihoodLevels, riskScaleCells, risks } from '../../../db/schema';
import { conflict, invalid, type FieldProblem } from '../../platform/core/errors';
import { recordChange } from '../../platform/audit/history';
import { levelOf, requirePermission, type Actor } from '../../platform/permissions/permissions';
import type { RiskScale, RiskScaleView } from './schema';
import { squash } from '../../platform/core/text';

/** Serialises scale replacements across processes; released when the transaction ends. */
const RISK_SCALE_LOCK = 7231101;
const SCALE_RECORD_ID = 'default';
const DEFAULT_BAND_COLOR = '#888888';

/** Classifications (classifications.ts) keep being importable from here. */
export { classificationOptions } from './classifications';

/**
 * The scale is read by anyone who reads risks, and by whoever manages Settings (the Risk
 * settings screen); a token still needs the scope its route declares.
 */
function requireSettingsRead(actor: Actor): void {
  if (levelOf(actor, 'settings:read') === null) requirePermission(actor, 'risks:read');
}

// ---------------------------------------------------------------- scale

async function loadScale(db: DbOrTx): Promise<RiskScaleView> {
  const [likelihood, impact, cells, bands] = await Promise.all([
    db.select({ value: riskLikelihoodLevels.value, name: riskLikelihoodLevels.name, description: riskLikelihoodLevels.description })
      .from(riskLikelihoodLevels).orderBy(asc(riskLikelihoodLevels.value)),
    db.select({ value: riskImpactLevels.value, name: riskImpactLevels.name, description: riskImpactLevels.description })
      .from(riskImpactLevels).orderBy(asc(riskImpactLevels.value)),
    db.select({ likelihood: riskScaleCells.likelihood, impact: riskScaleCells.impact, score: riskScaleCells.score })
      .from(riskScaleCells).orderBy(desc(riskScaleCells.likelihood), asc(riskScaleCells.impact)),
    db.select({ name: riskBands.name, minScore: riskBands.minScore, maxScore: riskBands.maxScore, color: riskBands.color })
      .from(riskBands).orderBy(asc(riskBands.minScore)),
  ]);
  return { likelihood, impact, cells, bands };
}

export async function getRiskScale(db: DbOrTx, actor: Actor): Promise<RiskScaleView> {
  requireSettingsRead(actor);
  return loadScale(db);
}

/** Every rule the scale must satisfy, each reported against the path of the offending item. */
export function scaleProblems(scale: RiskScale): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const axis of ['likelihood', 'impact'] as const) {
    const values = new Map<number, number>();
    const names = new Map<string, number>();
    scale[axis].forEach((level, i) => {
      if (values.has(level.value)) problems.push({ field: `${axis}.${i}.value`, message: `repeats value ${level.value}` });
      else values.set(level.value, i);
      const name = level.name.trim();
      if (!name) problems.push({ field: `${axis}.${i}.name`, message: 'must not be blank' });
      else if (names.has(squash(name))) problems.push({ field: `${axis}.${i}.name`, message: `repeats name "${name}"` });
      else names.set(squash(name), i);
    });
  }
  const likelihoods = new Set(scale.likelihood.map((l) => l.value));
  const impacts = new Set(scale.impact.map((l) => l.value));
  const seenCells = new Set<string>();
  scale.cells.forEach((cell, i) => {
    const key = `${cell.likelihood}x${cell.impact}`;
    if (!likelihoods.has(cell.likelihood)) problems.push({ field: `cells.${i}.likelihood`, message: `${cell.likelihood} is not a likelihood level` });
    if (!impacts.has(cell.impact)) problems.push({ field: `cells.${i}.impact`, message: `${cell.impact} is not an impact level` });
    if (seenCells.has(key)) problems.push({ field: `cells.${i}`, message: `repeats the cell for likelihood ${cell.likelihood} and impact ${cell.impact}` });
    seenCells.add(key);
  });
  for (const l of likelihoods) {
    for (const m of impacts) {
      if (!seenCells.has(`${l}x${m}`)) problems.push({ field: 'cells', message: `no score for likelihood ${l} and impact ${m}` });
    }
  }
  const bandNames = new Set<string>();
  scale.bands.forEach((band, i) => {
    const name = band.name.trim();
    if (!name) problems.push({ field: `bands.${i}.name`, message: 'must not be blank' });
    else if (bandNames.has(squash(name))) problems.push({ field: `bands.${i}.name`, message: `repeats name "${name}"` });
    bandNames.add(squash(name));
    if (band.minScore > band.maxScore) problems.push({ field: `bands.${i}.maxScore`, message: 'must not be below minScore' });
  });
  const ordered = scale.bands.map((band, i) => ({ ...band, i })).filter((b) => b.minScore <= b.maxScore)
    .sort((a, b) => a.minScore - b.minScore);
  for (let k = 1; k < ordered.length; k++) {
    const prev = ordered[k - 1];
    const band = ordered[k];
    if (band.minScore <= prev.maxScore) {
      problems.push({ field: `bands.${band.i}.minScore`, message: `overlaps band "${prev.name.trim()}" (${prev.minScore} to ${prev.maxScore})` });
    }
  }
  return problems;
}

/** How many risks (inherent or residual rating) use each level value on one axis, in one query. */
async function levelUsage(db: DbOrTx, axis: 'likelihood' | 'impact', values: number[]): Promise<Map<number, number>> {
  if (values.length === 0) return new Map();
  const [inherent, residual] = axis === 'likelihood'
    ? [risks.inherentLikelihood, risks.residualLikelihood]
    : [risks.inherentImpact, risks.residualImpact];
  const rows = await selectRows<{ value: number; used: number }>(db, sql`
    select v.lv as value, count(*)::int as used
    from (values ${sql.join(values.map((v) => sql`(${v}::int)`), sql`, `)}) as v(lv)
    join ${risks} on ${inherent} = v.lv or ${residual} = v.lv
    group by v.lv`);
  return new Map(rows.map((r) => [Number(r.value), Number(r.used)]));
}

/**
 * Replaces levels, matrix cells and bands in one transaction. Levels are kept by value, so risks rated on a level
 * that stays keep their rating (and pick up the new score); a level still used by risks cannot be removed.
 */
export async function replaceRiskScale(tx: DbOrTx, actor: Actor, input: RiskScale): Promise<RiskScaleView> {
  requirePermission(actor, 'settings:update');
  const problems = scaleProblems(input);
  if (problems.length) throw invalid(problems);
  await tx.execute(sql`select pg_advisory_xact_lock(${RISK_SCALE_LOCK})`);
  const before = await loadScale(tx);

  const removed = {
    likelihood: before.likelihood.filter((l) => !input.likelihood.some((n) => n.value === l.value)),
    impact: before.impact.filter((l) => !input.impact.some((n) => n.value === l.value)),
  };
  const refusals: string[] = [];
  for (const axis of ['likelihood', 'impact'] as const) {
    const usage = await levelUsage(tx, axis, removed[axis].map((l) => l.value));
    for (const level of removed[axis]) {
      const used = usage.get(level.value);
      if (used) refusals.push(`${axis} level ${level.value} "${level.name}" is used by ${used} risk${used === 1 ? '' : 's'}`);
    }
  }
  if (refusals.length) throw conflict(`Cannot remove levels still in use: ${refusals.join('; ')}`);

  await tx.delete(riskScaleCells);
  await tx.delete(riskBands);
  const tables = { likelihood: riskLikelihoodLevels, impact: riskImpactLevels } as const;
  for (const axis of ['likelihood', 'impact'] as const) {
    const table = tables[axis];
    const removedValues = removed[axis].map((l) => l.value);
    if (removedValues.length) await tx.delete(table).where(inArray(table.value, removedValues));
    // Names are unique; moving kept levels to placeholder names first lets two levels swap names in one replacement.
    const placeholder = `~${crypto.randomUUID()}~`;
    await tx.update(table).set({ name: sql`${placeholder} || ${table.value}::text` });
    await tx.insert(table)
      .values(input[axis].map((l) => ({ value: l.value, name: l.name.trim(), description: l.description?.trim() ?? '' })))
      .onConflictDoUpdate({ target: table.value, set: { name: sql`excluded.name`, description: sql`excluded.description` } });
  }
  await tx.insert(riskScaleCells).values(input.cells.map((c) => ({ likelihood: c.likelihood, impact: c.impact, score: c.score })));
  if (input.bands.length) {
    await tx.insert(riskBands).values(input.bands.map((b) => ({
      name: b.name.trim(), minScore: b.minScore, maxScore: b.maxScore, color: b.color ?? DEFAULT_BAND_COLOR,
    })));
  }
  const after = await loadScale(tx);
  await recordChange(tx, actor, {
    module: 'settings', recordType: 'risk_scale', recordId: SCALE_RECORD_ID, action: 'update', before: { ...before }, after: { ...after },
  });
  return after;
}

export const RISK_SCALE_RECORD = { recordType: 'risk_scale', recordId: SCALE_RECORD_ID } as const;
