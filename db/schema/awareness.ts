import { sql } from 'drizzle-orm';
import { check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';

/** One question of a program's test: the choices and which of them are right (never sent to the person taking it). */
export interface StoredQuestion {
  text: string;
  kind: 'single' | 'multiple';
  choices: string[];
  /** Indexes into `choices` of the right answers: exactly one for `single`, one or more for `multiple`. */
  correct: number[];
}

/** An awareness program: content to read and an optional test, assigned to an audience of groups and people (owned record). */
export const awarenessPrograms = pgTable('awareness_programs', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  content: text('content').notNull().default(''),
  contentUrl: text('content_url'),
  status: text('status', { enum: ['draft', 'published'] }).notNull().default('draft'),
  audienceGroupIds: uuid('audience_group_ids').array().notNull().default(sql`'{}'::uuid[]`),
  audienceUserIds: uuid('audience_user_ids').array().notNull().default(sql`'{}'::uuid[]`),
  startsOn: date('starts_on', { mode: 'string' }),
  endsOn: date('ends_on', { mode: 'string' }),
  passMark: integer('pass_mark').notNull().default(80),
  /** Every how many months the program runs again (null: once); its period moves on and everyone takes it again. */
  recurrenceMonths: integer('recurrence_months'),
  questions: jsonb('questions').$type<StoredQuestion[]>().notNull().default(sql`'[]'::jsonb`),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('awareness_programs_status_check', sql`${t.status} in ('draft', 'published')`),
  check('awareness_programs_pass_mark_check', sql`${t.passMark} between 0 and 100`),
  check('awareness_programs_recurrence_check', sql`${t.recurrenceMonths} is null or ${t.recurrenceMonths} between 1 and 60`),
  index('awareness_programs_created_idx').on(t.createdAt, t.id),
  index('awareness_programs_owner_idx').on(t.ownerId),
  index('awareness_programs_owner_group_idx').on(t.ownerGroupId),
  index('awareness_programs_status_idx').on(t.status),
]);

/** One person's result in one program: assigned when the program is published, then started, passed or failed. */
export const awarenessResults = pgTable('awareness_results', {
  id: uuid('id').primaryKey().defaultRandom(),
  programId: uuid('program_id').notNull().references(() => awarenessPrograms.id),
  personId: uuid('person_id').notNull().references(() => users.id),
  status: text('status', { enum: ['assigned', 'started', 'passed', 'failed'] }).notNull().default('assigned'),
  score: integer('score'),
  attempts: integer('attempts').notNull().default(0),
  /** The choices of the last attempt, question by question: only the person themself reads them. */
  answers: jsonb('answers').$type<number[][]>(),
  assignedAt: timestamp('assigned_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
  completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('awareness_results_status_check', sql`${t.status} in ('assigned', 'started', 'passed', 'failed')`),
  uniqueIndex('awareness_results_person_uq').on(t.programId, t.personId),
  index('awareness_results_person_idx').on(t.personId),
]);
