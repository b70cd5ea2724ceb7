import { eq, sql, type SQL } from 'drizzle-orm';
import { alias, type PgColumn, type PgSelect } from 'drizzle-orm/pg-core';
import { groups, users } from '../../../db/schema';
import { riskBands, riskClassifications, riskImpactLevels, riskLikelihoodLevels, riskScaleCells, risks } from '../../../db/schema/risks';
import { labelledInSql } from '../../platform/reports/declarations';
import { RISK_STATUSES } from './schema';

/**
 * The risk register's export cells as PostgreSQL writes them, for the report of the whole register (100,000 risks
 * stream within 2x of COPY only when no view is made per row): each is what its column's `value` gives from the risk's
 * view (pages.tsx), and tests/reports compare the two on the same risks.
 */

const inherentLikelihood = alias(riskLikelihoodLevels, 'inherent_likelihood_level');
const inherentImpact = alias(riskImpactLevels, 'inherent_impact_level');
const residualLikelihood = alias(riskLikelihoodLevels, 'residual_likelihood_level');
const residualImpact = alias(riskImpactLevels, 'residual_impact_level');
const inherentCell = alias(riskScaleCells, 'inherent_cell');
const residualCell = alias(riskScaleCells, 'residual_cell');
const inherentBand = alias(riskBands, 'inherent_band');
const residualBand = alias(riskBands, 'residual_band');

/** The lookup tables the cells read: the classification, each rating's levels, its cell of the scale and that cell's band (bands never overlap). */
export const riskCellJoins = (query: PgSelect): PgSelect => query
  .leftJoin(riskClassifications, eq(riskClassifications.id, risks.classificationId))
  .leftJoin(inherentLikelihood, eq(inherentLikelihood.value, risks.inherentLikelihood))
  .leftJoin(inherentImpact, eq(inherentImpact.value, risks.inherentImpact))
  .leftJoin(inherentCell, sql`${inherentCell.likelihood} = ${risks.inherentLikelihood} and ${inherentCell.impact} = ${risks.inherentImpact}`)
  .leftJoin(inherentBand, sql`${inherentCell.score} between ${inherentBand.minScore} and ${inherentBand.maxScore}`)
  .leftJoin(residualLikelihood, eq(residualLikelihood.value, risks.residualLikelihood))
  .leftJoin(residualImpact, eq(residualImpact.value, risks.residualImpact))
  .leftJoin(residualCell, sql`${residualCell.likelihood} = ${risks.residualLikelihood} and ${residualCell.impact} = ${risks.residualImpact}`)
  .leftJoin(residualBand, sql`${residualCell.score} between ${residualBand.minScore} and ${residualBand.maxScore}`);

/** "3 – Possible", or '' when not rated. */
const levelText = (level: { value: PgColumn; name: PgColumn }): SQL => sql`coalesce(${level.value} || ' – ' || ${level.name}, '')`;

export const riskCells = {
  title: risks.title,
  classification: sql`coalesce(${riskClassifications.name}, '')`,
  inherent: [levelText(inherentLikelihood), levelText(inherentImpact), inherentCell.score, sql`coalesce(${inherentBand.name}, '')`],
  residual: [levelText(residualLikelihood), levelText(residualImpact), residualCell.score, sql`coalesce(${residualBand.name}, '')`],
  owner: sql`coalesce(${users.name}, ${groups.name})`,
  ownerGroup: groups.name,
  status: labelledInSql(risks.status, RISK_STATUSES),
  reviewFrequencyMonths: risks.reviewFrequencyMonths,
  updatedDay: sql`to_char(${risks.updatedAt} at time zone 'UTC', 'YYYY-MM-DD')`,
};
