import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './platform';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/**
 * Notification rules (Settings › Notifications): when a record type's event happens, mail these recipients. The record
 * types and their events are declared by the modules' manifests (src/platform/notifications/declarations.ts).
 */
export const notificationRules = pgTable('notification_rules', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** The record type as History stores it ('risk', 'riskTreatment'). */
  recordType: text('record_type').notNull(),
  event: text('event', { enum: ['created', 'changed', 'field_changed', 'status_changed', 'assigned', 'recorded', 'deleted'] }).notNull(),
  /** The field of field_changed, the status value of status_changed, the activity of recorded. */
  field: text('field'),
  value: text('value'),
  notifyOwner: boolean('notify_owner').notNull().default(false),
  notifyOwnerGroup: boolean('notify_owner_group').notNull().default(false),
  userIds: uuid('user_ids').array().notNull().default(sql`'{}'::uuid[]`),
  groupIds: uuid('group_ids').array().notNull().default(sql`'{}'::uuid[]`),
  /** Fixed addresses in the organisation's own mail domains (Settings › Mail). */
  addresses: text('addresses').array().notNull().default(sql`'{}'::text[]`),
  enabled: boolean('enabled').notNull().default(true),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('notification_rules_event_check', sql`${t.event} in ('created', 'changed', 'field_changed', 'status_changed', 'assigned', 'recorded', 'deleted')`),
  index('notification_rules_record_type_idx').on(t.recordType),
]);

/**
 * How far rule mails have been made: History entries up to this Audit Log entry were considered. Audit entries commit in
 * sequence order (the chain lock is held until commit), so everything at or below a committed sequence is final.
 */
export const notificationCursor = pgTable('notification_cursor', {
  name: text('name').primaryKey(),
  auditSeq: bigint('audit_seq', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** A person's own choices: digests and rule mails can be turned off (security alerts cannot). */
export const mailPreferences = pgTable('mail_preferences', {
  userId: uuid('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  digests: boolean('digests').notNull().default(true),
  ruleMails: boolean('rule_mails').notNull().default(true),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** One daily reminder sweep per day (in the configured time zone): claimed once, collected, then sent in batches. */
export const reminderRuns = pgTable('reminder_runs', {
  day: date('day', { mode: 'string' }).primaryKey(),
  /** The previous run's day: milestones (30 and 7 days before, on the day) crossed since then are reminded. */
  since: date('since', { mode: 'string' }),
  /** When the previous run started: records changed since then are reminded of milestones already crossed. */
  sinceAt: timestamp('since_at', { withTimezone: true, mode: 'date' }),
  startedAt: createdAt(),
  finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  recipients: integer('recipients').notNull().default(0),
  items: integer('items').notNull().default(0),
});

/**
 * The ledger of digests: one row per person and day, made when the day is collected with the mail's subject and text;
 * `outbox_id` is set in the same transaction as the digest's outbox row (the text then leaves the ledger). A row without
 * it is still to send, so a crash mid-sweep resumes where it was and no person gets a day twice.
 */
export const reminderDigests = pgTable('reminder_digests', {
  day: date('day', { mode: 'string' }).notNull(),
  userId: uuid('user_id').notNull(),
  items: integer('items').notNull(),
  subject: text('subject'),
  body: text('body'),
  outboxId: bigint('outbox_id', { mode: 'number' }),
  queuedAt: timestamp('queued_at', { withTimezone: true, mode: 'date' }),
}, (t) => [
  primaryKey({ columns: [t.day, t.userId] }),
  index('reminder_digests_pending_idx').on(t.day, t.userId).where(sql`${t.outboxId} is null`),
]);
