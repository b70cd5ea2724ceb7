import { sql } from 'drizzle-orm';
import { check, date, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';

/** A review program: one campaign of checking who holds which account on which system (owned record). */
export const accountReviewPrograms = pgTable('account_review_programs', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  status: text('status', { enum: ['open', 'closed'] }).notNull().default('open'),
  dueOn: date('due_on', { mode: 'string' }),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('account_review_programs_status_check', sql`${t.status} in ('open', 'closed')`),
  index('account_review_programs_created_idx').on(t.createdAt, t.id),
  index('account_review_programs_owner_idx').on(t.ownerId),
  index('account_review_programs_owner_group_idx').on(t.ownerGroupId),
  index('account_review_programs_status_idx').on(t.status),
]);

/** One account on one system to be reviewed within a program; blank decision until someone decides. */
export const accountReviewItems = pgTable('account_review_items', {
  id: uuid('id').primaryKey().defaultRandom(),
  programId: uuid('program_id').notNull().references(() => accountReviewPrograms.id),
  account: text('account').notNull(),
  system: text('system').notNull(),
  /** The person responsible for the account (an active user when set). */
  ownerId: uuid('owner_id').references(() => users.id),
  decision: text('decision', { enum: ['keep', 'revoke', 'modify'] }),
  reviewerId: uuid('reviewer_id').references(() => users.id),
  reviewedAt: timestamp('reviewed_at', { withTimezone: true, mode: 'date' }),
  notes: text('notes').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('account_review_items_decision_check', sql`${t.decision} is null or ${t.decision} in ('keep', 'revoke', 'modify')`),
  // An account on a system is reviewed once per program; the import relies on this to match rows.
  uniqueIndex('account_review_items_account_uq').on(t.programId, t.system, t.account),
  index('account_review_items_program_idx').on(t.programId, t.createdAt, t.id),
  index('account_review_items_owner_idx').on(t.ownerId),
]);
