import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';

export const controls = pgTable('controls', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  type: text('type', { enum: ['policy', 'process', 'technical', 'physical', 'other'] }).notNull().default('process'),
  status: text('status', { enum: ['planned', 'active', 'retired'] }).notNull().default('active'),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  /** Testing schedule: a test is due this many months after the last one (none: not tested on a schedule). */
  testFrequencyMonths: integer('test_frequency_months'),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('controls_type_check', sql`${t.type} in ('policy', 'process', 'technical', 'physical', 'other')`),
  check('controls_status_check', sql`${t.status} in ('planned', 'active', 'retired')`),
  check('controls_test_frequency_check', sql`${t.testFrequencyMonths} between 1 and 120`),
  index('controls_created_idx').on(t.createdAt, t.id),
  index('controls_owner_idx').on(t.ownerId),
  index('controls_owner_group_idx').on(t.ownerGroupId),
  index('controls_status_idx').on(t.status),
]);

export const controlTests = pgTable('control_tests', {
  id: uuid('id').primaryKey().defaultRandom(),
  controlId: uuid('control_id').notNull().references(() => controls.id, { onDelete: 'cascade' }),
  testedOn: date('tested_on', { mode: 'string' }).notNull(),
  result: text('result', { enum: ['pass', 'fail', 'partial'] }).notNull(),
  notes: text('notes').notNull().default(''),
  testerId: uuid('tester_id').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('control_tests_result_check', sql`${t.result} in ('pass', 'fail', 'partial')`),
  index('control_tests_control_idx').on(t.controlId, t.testedOn),
]);

/**
 * Scheduled controls (not retired, with a test frequency) counted per owner, owner group and the day their next test
 * falls due (null: never tested, due today), kept by the database (migration 0050, statement triggers on `controls`),
 * never written by a service: the Dashboard counts what is due from it (docs/dashboard.md, Cost).
 */
export const controlTestDueDays = pgTable('control_test_due_days', {
  ownerId: uuid('owner_id'),
  ownerGroupId: uuid('owner_group_id'),
  dueOn: date('due_on', { mode: 'string' }),
  n: integer('n').notNull(),
}, (t) => [
  unique('control_test_due_days_key').on(t.ownerId, t.ownerGroupId, t.dueOn).nullsNotDistinct(),
]);
