import { sql } from 'drizzle-orm';
import { check, date, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { controls } from './controls';
import { groups, users } from './platform';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const auditPlans = pgTable('audit_plans', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  scope: text('scope').notNull().default(''),
  periodStart: date('period_start', { mode: 'string' }),
  periodEnd: date('period_end', { mode: 'string' }),
  status: text('status', { enum: ['planned', 'in_progress', 'completed'] }).notNull().default('planned'),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  check('audit_plans_status_check', sql`${t.status} in ('planned', 'in_progress', 'completed')`),
  check('audit_plans_period_check', sql`${t.periodEnd} >= ${t.periodStart}`),
  index('audit_plans_created_idx').on(t.createdAt, t.id),
  index('audit_plans_owner_idx').on(t.ownerId),
  index('audit_plans_owner_group_idx').on(t.ownerGroupId),
  index('audit_plans_status_idx').on(t.status),
]);

export const auditFindings = pgTable('audit_findings', {
  id: uuid('id').primaryKey().defaultRandom(),
  // No cascade: a plan with findings cannot be deleted (409 naming them).
  auditPlanId: uuid('audit_plan_id').notNull().references(() => auditPlans.id),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  status: text('status', { enum: ['open', 'in_remediation', 'closed'] }).notNull().default('open'),
  deadline: date('deadline', { mode: 'string' }),
  controlId: uuid('control_id').references(() => controls.id),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  check('audit_findings_status_check', sql`${t.status} in ('open', 'in_remediation', 'closed')`),
  index('audit_findings_created_idx').on(t.createdAt, t.id),
  index('audit_findings_plan_idx').on(t.auditPlanId),
  index('audit_findings_control_idx').on(t.controlId),
  index('audit_findings_owner_idx').on(t.ownerId),
  index('audit_findings_owner_group_idx').on(t.ownerGroupId),
  index('audit_findings_status_idx').on(t.status),
]);
