import { sql } from 'drizzle-orm';
import { boolean, check, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './platform';

/**
 * Scheduled reports (Reports › Schedules): a report of the Report Center with its filters, mailed as a CSV attachment
 * to people and groups of the organisation, daily, weekly on a weekday or monthly on a day, at the notifications hour.
 * Each recipient gets the rows they may read. `last_period` is the period last sent ("2026-11-27", "2026-W48",
 * "2026-11"): the sweep claims a period by moving it, so a period is mailed once whatever the number of instances.
 */
export const reportSchedules = pgTable('report_schedules', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  reportKey: text('report_key').notNull(),
  /** The report's filters by name, only chosen ones. */
  filters: jsonb('filters').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  frequency: text('frequency', { enum: ['daily', 'weekly', 'monthly'] }).notNull(),
  /** ISO weekday of a weekly schedule: 1 Monday … 7 Sunday. */
  weekday: integer('weekday'),
  /** Day of the month of a monthly schedule, 1 to 31 (the month's last day in shorter months). */
  monthDay: integer('month_day'),
  userIds: uuid('user_ids').array().notNull().default(sql`'{}'::uuid[]`),
  groupIds: uuid('group_ids').array().notNull().default(sql`'{}'::uuid[]`),
  paused: boolean('paused').notNull().default(false),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  lastPeriod: text('last_period'),
  lastRunAt: timestamp('last_run_at', { withTimezone: true, mode: 'date' }),
  /** The last run's outcome in words ("Sent to 3 people"). */
  lastOutcome: text('last_outcome'),
  /** Recipients the last run skipped and why (no right to the report, deactivated, no address). */
  skipped: jsonb('skipped').$type<{ name: string; reason: string }[]>().notNull().default(sql`'[]'::jsonb`),
}, (t) => [
  check('report_schedules_frequency_check', sql`${t.frequency} in ('daily', 'weekly', 'monthly')`),
  check('report_schedules_weekday_check', sql`${t.weekday} is null or ${t.weekday} between 1 and 7`),
  check('report_schedules_month_day_check', sql`${t.monthDay} is null or ${t.monthDay} between 1 and 31`),
]);
