import { sql } from 'drizzle-orm';
import { check, date, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';

export const projects = pgTable('projects', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  status: text('status', { enum: ['planned', 'in_progress', 'completed'] }).notNull().default('planned'),
  deadline: date('deadline', { mode: 'string' }),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('projects_status_check', sql`${t.status} in ('planned', 'in_progress', 'completed')`),
  index('projects_created_idx').on(t.createdAt, t.id),
  index('projects_owner_idx').on(t.ownerId),
  index('projects_owner_group_idx').on(t.ownerGroupId),
  index('projects_status_idx').on(t.status),
  index('projects_deadline_idx').on(t.deadline),
]);
