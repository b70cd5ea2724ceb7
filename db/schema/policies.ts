import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';

/**
 * A policy: its draft content (Markdown, edited through PUT /policies/:id/content) and, once published, its status
 * and the number of its current version. Publishing copies the draft into an immutable policy_versions row.
 */
export const policies = pgTable('policies', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  /** The draft: what the next publication will carry. */
  content: text('content').notNull().default(''),
  reviewFrequencyMonths: integer('review_frequency_months').notNull().default(12),
  /** draft until the first publication; published from then on (publishing is the only way to change it). */
  status: text('status', { enum: ['draft', 'published'] }).notNull().default('draft'),
  currentVersion: integer('current_version'),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('policies_status_check', sql`${t.status} in ('draft', 'published')`),
  check('policies_review_frequency_check', sql`${t.reviewFrequencyMonths} between 1 and 120`),
  index('policies_created_idx').on(t.createdAt, t.id),
  index('policies_owner_idx').on(t.ownerId),
  index('policies_owner_group_idx').on(t.ownerGroupId),
  index('policies_status_idx').on(t.status),
]);

/**
 * Immutable: a trigger (migration policies_guards) refuses UPDATE and DELETE. The foreign key restricts deleting a
 * policy that has been published, so published text is never lost.
 */
export const policyVersions = pgTable('policy_versions', {
  id: uuid('id').primaryKey().defaultRandom(),
  policyId: uuid('policy_id').notNull().references(() => policies.id, { onDelete: 'restrict' }),
  version: integer('version').notNull(),
  content: text('content').notNull(),
  publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  publishedBy: uuid('published_by').references(() => users.id),
}, (t) => [
  unique('policy_versions_policy_version_unique').on(t.policyId, t.version),
  check('policy_versions_version_check', sql`${t.version} >= 1`),
]);

export const policyReviews = pgTable('policy_reviews', {
  id: uuid('id').primaryKey().defaultRandom(),
  policyId: uuid('policy_id').notNull().references(() => policies.id, { onDelete: 'cascade' }),
  reviewerId: uuid('reviewer_id').references(() => users.id),
  reviewedOn: date('reviewed_on', { mode: 'string' }).notNull(),
  outcome: text('outcome', { enum: ['no_changes', 'changes_required'] }).notNull(),
  notes: text('notes').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('policy_reviews_outcome_check', sql`${t.outcome} in ('no_changes', 'changes_required')`),
  index('policy_reviews_policy_idx').on(t.policyId, t.reviewedOn),
]);

/** An approval given outside the app (on paper, by e-mail), recorded here; only while the setting allows it. */
export const policyApprovals = pgTable('policy_approvals', {
  id: uuid('id').primaryKey().defaultRandom(),
  policyId: uuid('policy_id').notNull().references(() => policies.id, { onDelete: 'cascade' }),
  versionId: uuid('version_id').notNull().references(() => policyVersions.id, { onDelete: 'restrict' }),
  approverName: text('approver_name').notNull(),
  approvedOn: date('approved_on', { mode: 'string' }).notNull(),
  recordedBy: uuid('recorded_by').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  index('policy_approvals_policy_idx').on(t.policyId),
]);
