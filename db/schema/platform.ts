import { sql } from 'drizzle-orm';
import {
  bigint, bigserial, boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull(),
  /**
   * The address's confusable skeleton (Unicode TS #39, src/modules/people/user-names.ts): two addresses with the same
   * skeleton look alike (`admin@exаmple.com` with a Cyrillic а), so a new one is refused when it matches another's.
   */
  emailSkeleton: text('email_skeleton'),
  name: text('name').notNull(),
  passwordHash: text('password_hash'),
  status: text('status', { enum: ['active', 'deactivated'] }).notNull().default('active'),
  /** Set by SCIM provisioning: the identity provider's own id and the parts of the person's name it sends. */
  externalId: text('external_id'),
  givenName: text('given_name'),
  familyName: text('family_name'),
  /**
   * A SCIM DELETE: the user is deactivated and no longer a SCIM resource, but the row stays (the Audit Log, History
   * and records name it). Provisioning the same userName again brings the account back.
   */
  deprovisionedAt: timestamp('deprovisioned_at', { withTimezone: true, mode: 'date' }),
  /** An administrator who may still sign in with a password while only single sign-on is allowed (docs/sign-in.md). */
  breakGlass: boolean('break_glass').notNull().default(false),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  uniqueIndex('users_email_key').on(sql`lower(${t.email})`),
  index('users_email_skeleton_idx').on(t.emailSkeleton),
  index('users_external_id_idx').on(t.externalId),
  check('users_status_check', sql`${t.status} in ('active', 'deactivated')`),
]);

export const groups = pgTable('groups', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  /** The identity provider's id of a group provisioned through SCIM. */
  externalId: text('external_id'),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const groupMembers = pgTable('group_members', {
  groupId: uuid('group_id').notNull().references(() => groups.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index('group_members_user_idx').on(t.userId)]);

export const roles = pgTable('roles', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  builtIn: boolean('built_in').notNull().default(false),
  createdAt: createdAt(),
});

export const rolePermissions = pgTable('role_permissions', {
  roleId: uuid('role_id').notNull().references(() => roles.id, { onDelete: 'cascade' }),
  permission: text('permission').notNull(),
  level: text('level', { enum: ['own', 'all'] }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.roleId, t.permission] }),
  check('role_permissions_level_check', sql`${t.level} in ('own', 'all')`),
]);

export const groupRoles = pgTable('group_roles', {
  groupId: uuid('group_id').notNull().references(() => groups.id, { onDelete: 'cascade' }),
  roleId: uuid('role_id').notNull().references(() => roles.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.groupId, t.roleId] })]);

export const sessions = pgTable('sessions', {
  id: text('id').primaryKey(), // SHA-256 of the cookie secret; the secret itself is never stored
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  csrfToken: text('csrf_token').notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  /** Last request seen on the session (moved on at most once a minute), for the idle timeout on Settings › Sessions. */
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** How the person signed in: 'password' (a password here or the directory's) or 'oidc' (single sign-on). */
  signedInWith: text('signed_in_with', { enum: ['password', 'oidc'] }).notNull().default('password'),
}, (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)]);

export const loginAttempts = pgTable('login_attempts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  email: text('email').notNull(),
  ip: text('ip').notNull().default(''),
  succeeded: boolean('succeeded').notNull(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [index('login_attempts_email_at_idx').on(t.email, t.at), index('login_attempts_ip_at_idx').on(t.ip, t.at)]);

/**
 * When the background sweep last ran (sweep.ts): an instance sweeps only when it can move `last_run_at` on by most of an
 * interval, so several instances sweep once per interval between them. `runs` counts the sweeps.
 */
export const sweepRuns = pgTable('sweep_runs', {
  name: text('name').primaryKey(),
  lastRunAt: timestamp('last_run_at', { withTimezone: true, mode: 'date' }).notNull(),
  runs: bigint('runs', { mode: 'number' }).notNull().default(0),
});

/**
 * Refused requests per client address and window (docs/refusals.md): the shared count that limits a client across
 * every instance. Rows of ended windows are removed by the sweep.
 */
export const clientRefusals = pgTable('client_refusals', {
  client: text('client').notNull(),
  windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
  windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
  count: integer('count').notNull(),
}, (t) => [primaryKey({ columns: [t.client, t.windowStart] }), index('client_refusals_window_end_idx').on(t.windowEnd)]);

/**
 * Identical refusals folded per window: the first is an Audit Log entry (`first_seq`), the rest only count here; the
 * sweep writes one summary entry with the count once the window has ended, and removes the row.
 */
export const refusalWindows = pgTable('refusal_windows', {
  fingerprint: text('fingerprint').notNull(),
  windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
  windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
  count: integer('count').notNull(),
  firstSeq: bigint('first_seq', { mode: 'number' }),
  /** What the summary entry repeats: the refusal's actor, module, action and details. */
  event: jsonb('event').notNull(),
}, (t) => [primaryKey({ columns: [t.fingerprint, t.windowStart] }), index('refusal_windows_window_end_idx').on(t.windowEnd)]);

export const apiTokens = pgTable('api_tokens', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  scopes: text('scopes').array().notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdBy: uuid('created_by').notNull().references(() => users.id),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  revokedBy: uuid('revoked_by').references(() => users.id),
}, (t) => [index('api_tokens_created_by_idx').on(t.createdBy)]);

/** One-use links an administrator makes for a person to set a new password; only the secret's SHA-256 is kept. */
export const passwordResets = pgTable('password_resets', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
}, (t) => [index('password_resets_user_idx').on(t.userId)]);

/** Bearer tokens of the SCIM provisioning address (Settings › Provisioning); they do not work on the REST API. */
export const scimTokens = pgTable('scim_tokens', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdBy: uuid('created_by').notNull().references(() => users.id),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  revokedBy: uuid('revoked_by').references(() => users.id),
});

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Hash-chained, append-only. `seq` is assigned under an advisory lock so the chain stays linear;
 * the unique index on prev_hash makes a fork impossible even if the lock were bypassed.
 * A trigger (migration 0001) refuses UPDATE, TRUNCATE and DELETE except pruning entries older than a year.
 */
export const auditLog = pgTable('audit_log', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  at: timestamp('at', { withTimezone: true, mode: 'string', precision: 3 }).notNull(),
  actorKind: text('actor_kind').notNull(),
  actorUserId: uuid('actor_user_id'),
  actorTokenId: uuid('actor_token_id'),
  via: text('via').notNull(),
  module: text('module').notNull(),
  action: text('action').notNull(),
  recordType: text('record_type'),
  recordId: text('record_id'),
  details: jsonb('details').notNull(),
  prevHash: text('prev_hash').notNull(),
  hash: text('hash').notNull(),
}, (t) => [
  uniqueIndex('audit_log_prev_hash_key').on(t.prevHash),
  uniqueIndex('audit_log_hash_key').on(t.hash),
  index('audit_log_record_idx').on(t.recordType, t.recordId),
  // The Audit Log screen filtered by record: its newest entries and their count from this index alone (docs/audit-log.md).
  index('audit_log_record_seq_idx').on(t.recordId, t.seq),
]);

export const history = pgTable('history', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  recordType: text('record_type').notNull(),
  recordId: text('record_id').notNull(),
  action: text('action').notNull(),
  actorUserId: uuid('actor_user_id'),
  actorTokenId: uuid('actor_token_id'),
  via: text('via').notNull(),
  source: text('source'),
  changes: jsonb('changes').notNull(),
  auditSeq: bigint('audit_seq', { mode: 'number' }),
}, (t) => [
  // A record's History in order; posture at a past date reads each record's last change before a moment from it, ties
  // of one transaction's time broken by id (docs/dashboard.md).
  index('history_record_idx').on(t.recordType, t.recordId, t.at, t.id),
  // A record type's History up to a moment, and its first entry (posture at a past date).
  index('history_type_at_idx').on(t.recordType, t.at),
  // History is sealed by its audit entry: the Audit Log screen and audit:verify --history look it up by audit_seq.
  index('history_audit_seq_idx').on(t.auditSeq),
  // Entries naming a record in their changes (a removed part's parent, a mapped record): the GIN index over every action
  // but create and update (history-format.ts, historyWithParts) keeps the far more numerous writes out of it.
  index('history_mentions_idx').using('gin', sql`${t.changes} jsonb_path_ops`).where(sql`${t.action} NOT IN ('create', 'update')`),
]);

export const outbox = pgTable('outbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').notNull(),
  recipients: text('recipients').array().notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  createdAt: createdAt(),
  sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  /** Retries wait longer after each failure (mail.ts); null: send at the next pass. */
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
  /** Addresses the SMTP server refused while accepting the others (shown on the Outbox screen). */
  rejected: text('rejected').array(),
  /** Files sent with the message (a scheduled report's CSV): name, content type and the content in base64. */
  attachments: jsonb('attachments').$type<{ filename: string; contentType: string; content: string }[]>(),
}, (t) => [index('outbox_unsent_idx').on(t.id).where(sql`${t.sentAt} is null`)]);

/** Which reference data sets were applied once, so a restart never re-adds what an administrator removed. */
export const referenceSeeds = pgTable('reference_seeds', {
  key: text('key').primaryKey(),
  appliedAt: timestamp('applied_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Exact row counts of the register tables without scanning them: statement-level triggers append one signed delta
 * per writing statement (never updating a shared row, so writers do not queue on it), and the sweep folds each
 * table's deltas into one row. The count is the sum of a table's deltas (src/platform/records/row-counts.ts).
 */
export const rowCounts = pgTable('row_counts', {
  tableName: text('table_name').notNull(),
  delta: bigint('delta', { mode: 'number' }).notNull(),
}, (t) => [index('row_counts_table_idx').on(t.tableName)]);
