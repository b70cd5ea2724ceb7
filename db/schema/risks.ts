import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { assets, businessUnits } from './assets';
import { groups, users } from './platform';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const riskClassifications = pgTable('risk_classifications', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  createdAt: createdAt(),
});

export const riskLikelihoodLevels = pgTable('risk_likelihood_levels', {
  value: integer('value').primaryKey(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
});

export const riskImpactLevels = pgTable('risk_impact_levels', {
  value: integer('value').primaryKey(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
});

export const riskScaleCells = pgTable('risk_scale_cells', {
  likelihood: integer('likelihood').notNull().references(() => riskLikelihoodLevels.value, { onDelete: 'cascade' }),
  impact: integer('impact').notNull().references(() => riskImpactLevels.value, { onDelete: 'cascade' }),
  score: integer('score').notNull(),
}, (t) => [primaryKey({ columns: [t.likelihood, t.impact] })]);

export const riskBands = pgTable('risk_bands', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  minScore: integer('min_score').notNull(),
  maxScore: integer('max_score').notNull(),
  color: text('color').notNull().default('#888888'),
}, (t) => [check('risk_bands_range_check', sql`${t.minScore} <= ${t.maxScore}`)]);

export const risks = pgTable('risks', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  classificationId: uuid('classification_id').notNull().references(() => riskClassifications.id),
  inherentLikelihood: integer('inherent_likelihood').notNull().references(() => riskLikelihoodLevels.value),
  inherentImpact: integer('inherent_impact').notNull().references(() => riskImpactLevels.value),
  residualLikelihood: integer('residual_likelihood').references(() => riskLikelihoodLevels.value),
  residualImpact: integer('residual_impact').references(() => riskImpactLevels.value),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  reviewFrequencyMonths: integer('review_frequency_months').notNull().default(12),
  status: text('status', { enum: ['open', 'closed', 'archived'] }).notNull().default('open'),
  assetId: uuid('asset_id').references(() => assets.id),
  businessUnitId: uuid('business_unit_id').references(() => businessUnits.id),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('risks_review_frequency_check', sql`${t.reviewFrequencyMonths} between 1 and 120`),
  check('risks_status_check', sql`${t.status} in ('open', 'closed', 'archived')`),
  index('risks_created_idx').on(t.createdAt, t.id),
  index('risks_owner_idx').on(t.ownerId),
  index('risks_owner_group_idx').on(t.ownerGroupId),
  index('risks_status_idx').on(t.status),
  index('risks_classification_idx').on(t.classificationId),
  index('risks_asset_idx').on(t.assetId),
  index('risks_business_unit_idx').on(t.businessUnitId),
]);

/**
 * Derived from History by the database (migration 0050, trigger `history_risk_open_spans`), never written by a service:
 * each stretch of time a risk was open with its ratings then, `toAt` null while History shows no later change. Posture
 * at a past date reads it for a reader at level own (docs/dashboard.md).
 */
export const riskOpenSpans = pgTable('risk_open_spans', {
  riskId: text('risk_id').notNull(),
  fromAt: timestamp('from_at', { withTimezone: true, mode: 'date' }).notNull(),
  toAt: timestamp('to_at', { withTimezone: true, mode: 'date' }),
  inherentLikelihood: integer('inherent_likelihood'),
  inherentImpact: integer('inherent_impact'),
  residualLikelihood: integer('residual_likelihood'),
  residualImpact: integer('residual_impact'),
}, (t) => [
  index('risk_open_spans_risk_idx').on(t.riskId),
]);

/**
 * The open spans summed per UTC day and ratings (+1 where a span starts, -1 where it ends; a rating not set is 0), kept
 * by the same trigger: open risks per band at a day's end are the sums up to it, for a reader at level all.
 */
export const riskOpenDayDeltas = pgTable('risk_open_day_deltas', {
  day: date('day', { mode: 'string' }).notNull(),
  inherentLikelihood: integer('inherent_likelihood').notNull(),
  inherentImpact: integer('inherent_impact').notNull(),
  residualLikelihood: integer('residual_likelihood').notNull(),
  residualImpact: integer('residual_impact').notNull(),
  delta: integer('delta').notNull(),
}, (t) => [
  primaryKey({ name: 'risk_open_day_deltas_pk', columns: [t.day, t.inherentLikelihood, t.inherentImpact, t.residualLikelihood, t.residualImpact] }),
]);

/**
 * Open risks counted per owner, owner group and ratings, kept by the database (migration 0050, statement triggers on
 * `risks`), never written by a service: the Dashboard's heat map and bands read these counts, filtered by the viewer's
 * own/all level on the owner columns, instead of counting every risk (docs/dashboard.md, Cost).
 */
export const riskOpenCells = pgTable('risk_open_cells', {
  ownerId: uuid('owner_id'),
  ownerGroupId: uuid('owner_group_id'),
  inherentLikelihood: integer('inherent_likelihood').notNull(),
  inherentImpact: integer('inherent_impact').notNull(),
  residualLikelihood: integer('residual_likelihood'),
  residualImpact: integer('residual_impact'),
  n: integer('n').notNull(),
}, (t) => [
  unique('risk_open_cells_key').on(t.ownerId, t.ownerGroupId, t.inherentLikelihood, t.inherentImpact, t.residualLikelihood, t.residualImpact).nullsNotDistinct(),
]);

/** Open risks counted per owner, owner group and the day their next review falls due, kept like riskOpenCells. */
export const riskReviewDueDays = pgTable('risk_review_due_days', {
  ownerId: uuid('owner_id'),
  ownerGroupId: uuid('owner_group_id'),
  dueOn: date('due_on', { mode: 'string' }).notNull(),
  n: integer('n').notNull(),
}, (t) => [
  unique('risk_review_due_days_key').on(t.ownerId, t.ownerGroupId, t.dueOn).nullsNotDistinct(),
]);
