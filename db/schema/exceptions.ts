import { sql } from 'drizzle-orm';
import { check, date, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { complianceAnalyses } from './compliance';
import { groups, users } from './platform';
import { policies } from './policies';
import { risks } from './risks';

/**
 * Exceptions of every parent kind in one table. Each parent kind has its own nullable foreign-key column (deleting
 * the parent deletes its exceptions) and a check tying that column to parent_type; a new parent kind adds a
 * column and a check here and one entry in src/modules/exceptions/parents.ts.
 */
export const exceptions = pgTable('exceptions', {
  id: uuid('id').primaryKey().defaultRandom(),
  parentType: text('parent_type').notNull(),
  riskId: uuid('risk_id').references(() => risks.id, { onDelete: 'cascade' }),
  policyId: uuid('policy_id').references(() => policies.id, { onDelete: 'cascade' }),
  /** A compliance exception belongs to the analysis of one requirement (its package follows from it). */
  complianceAnalysisId: uuid('compliance_analysis_id').references(() => complianceAnalyses.id, { onDelete: 'cascade' }),
  title: text('title').notNull(),
  description: text('description').notNull(),
  status: text('status', { enum: ['requested', 'approved', 'rejected'] }).notNull().default('requested'),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  /** Named when requested; replaced by whoever decides. */
  approverId: uuid('approver_id').references(() => users.id),
  expiresAt: date('expires_at', { mode: 'string' }).notNull(),
  decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
  decisionNote: text('decision_note').notNull().default(''),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('exceptions_status_check', sql`${t.status} in ('requested', 'approved', 'rejected')`),
  check('exceptions_risk_parent_check', sql`(${t.parentType} = 'risk') = (${t.riskId} is not null)`),
  check('exceptions_policy_parent_check', sql`(${t.parentType} = 'policy') = (${t.policyId} is not null)`),
  check('exceptions_compliance_parent_check', sql`(${t.parentType} = 'compliance') = (${t.complianceAnalysisId} is not null)`),
  index('exceptions_risk_idx').on(t.riskId),
  index('exceptions_policy_idx').on(t.policyId),
  index('exceptions_compliance_analysis_idx').on(t.complianceAnalysisId),
  index('exceptions_parent_created_idx').on(t.parentType, t.createdAt, t.id),
  index('exceptions_owner_idx').on(t.ownerId),
  index('exceptions_owner_group_idx').on(t.ownerGroupId),
  index('exceptions_expires_idx').on(t.expiresAt),
]);
