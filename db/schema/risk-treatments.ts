import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { controls } from './controls';
import { users } from './platform';
import { riskImpactLevels, riskLikelihoodLevels, risks } from './risks';

/** How a risk is treated; only a mitigate treatment carries a residual rating and linked controls. */
export const riskTreatments = pgTable('risk_treatments', {
  id: uuid('id').primaryKey().defaultRandom(),
  riskId: uuid('risk_id').notNull().references(() => risks.id, { onDelete: 'cascade' }),
  type: text('type', { enum: ['mitigate', 'accept', 'transfer', 'avoid'] }).notNull(),
  status: text('status', { enum: ['planned', 'implemented'] }).notNull().default('planned'),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  dueOn: date('due_on', { mode: 'string' }),
  residualLikelihood: integer('residual_likelihood').references(() => riskLikelihoodLevels.value),
  residualImpact: integer('residual_impact').references(() => riskImpactLevels.value),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('risk_treatments_type_check', sql`${t.type} in ('mitigate', 'accept', 'transfer', 'avoid')`),
  check('risk_treatments_status_check', sql`${t.status} in ('planned', 'implemented')`),
  check('risk_treatments_residual_pair_check', sql`(${t.residualLikelihood} is null) = (${t.residualImpact} is null)`),
  check('risk_treatments_residual_mitigate_check', sql`${t.residualLikelihood} is null or ${t.type} = 'mitigate'`),
  index('risk_treatments_risk_idx').on(t.riskId, t.createdAt),
]);

/** Controls a mitigate treatment relies on. Deleting either side removes the link. */
export const treatmentControls = pgTable('treatment_controls', {
  treatmentId: uuid('treatment_id').notNull().references(() => riskTreatments.id, { onDelete: 'cascade' }),
  controlId: uuid('control_id').notNull().references(() => controls.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.treatmentId, t.controlId] }), index('treatment_controls_control_idx').on(t.controlId)]);

export const riskReviews = pgTable('risk_reviews', {
  id: uuid('id').primaryKey().defaultRandom(),
  riskId: uuid('risk_id').notNull().references(() => risks.id, { onDelete: 'cascade' }),
  reviewerId: uuid('reviewer_id').references(() => users.id),
  reviewedOn: date('reviewed_on', { mode: 'string' }).notNull(),
  outcome: text('outcome', { enum: ['no_change', 'changed', 'escalated'] }).notNull(),
  notes: text('notes').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('risk_reviews_outcome_check', sql`${t.outcome} in ('no_change', 'changed', 'escalated')`),
  index('risk_reviews_risk_idx').on(t.riskId, t.reviewedOn),
]);
