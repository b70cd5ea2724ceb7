import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';
import { thirdParties } from './third-parties';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** Evidence and vendor reports (a vendor report names its third party). Status is derived from the dates, never stored. */
export const evidence = pgTable('evidence', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  kind: text('kind', { enum: ['evidence', 'vendor_report'] }).notNull().default('evidence'),
  thirdPartyId: uuid('third_party_id').references(() => thirdParties.id),
  collectedOn: date('collected_on', { mode: 'string' }).notNull(),
  validUntil: date('valid_until', { mode: 'string' }),
  locked: boolean('locked').notNull().default(false),
  lockedAt: timestamp('locked_at', { withTimezone: true, mode: 'date' }),
  lockedBy: uuid('locked_by').references(() => users.id),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('evidence_kind_check', sql`${t.kind} in ('evidence', 'vendor_report')`),
  check('evidence_vendor_report_check', sql`${t.kind} <> 'vendor_report' or ${t.thirdPartyId} is not null`),
  check('evidence_valid_until_check', sql`${t.validUntil} is null or ${t.validUntil} >= ${t.collectedOn}`),
  index('evidence_created_idx').on(t.createdAt, t.id),
  index('evidence_owner_idx').on(t.ownerId),
  index('evidence_owner_group_idx').on(t.ownerGroupId),
  index('evidence_valid_until_idx').on(t.validUntil),
  index('evidence_third_party_idx').on(t.thirdPartyId),
]);

/** What a piece of evidence proves: a record of another module, by type and id (checked readable when linked). */
export const evidenceLinks = pgTable('evidence_links', {
  evidenceId: uuid('evidence_id').notNull().references(() => evidence.id, { onDelete: 'cascade' }),
  recordType: text('record_type').notNull(),
  recordId: uuid('record_id').notNull(),
  createdAt: createdAt(),
}, (t) => [
  primaryKey({ columns: [t.evidenceId, t.recordType, t.recordId] }),
  index('evidence_links_record_idx').on(t.recordType, t.recordId),
]);

/**
 * A stored file: the storage key is made by the server; sha256 and crc32 are of the bytes as stored (the CRC lets the
 * auditor package write each zip entry's header before its bytes, so the package streams in flat memory).
 */
export const evidenceFiles = pgTable('evidence_files', {
  id: uuid('id').primaryKey().defaultRandom(),
  evidenceId: uuid('evidence_id').notNull().references(() => evidence.id),
  name: text('name').notNull(),
  storageKey: text('storage_key').notNull(),
  size: bigint('size', { mode: 'number' }).notNull(),
  sha256: text('sha256').notNull(),
  crc32: bigint('crc32', { mode: 'number' }).notNull(),
  contentType: text('content_type').notNull(),
  uploadedBy: uuid('uploaded_by').references(() => users.id),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex('evidence_files_storage_key').on(t.storageKey),
  index('evidence_files_evidence_idx').on(t.evidenceId, t.createdAt),
  check('evidence_files_sha256_check', sql`${t.sha256} ~ '^[0-9a-f]{64}$'`),
]);

/** Runs of Verify files: progress while running, every mismatch or missing file when done. One runs at a time. */
export const evidenceVerifyRuns = pgTable('evidence_verify_runs', {
  id: uuid('id').primaryKey().defaultRandom(),
  status: text('status', { enum: ['running', 'finished', 'interrupted'] }).notNull().default('running'),
  startedBy: uuid('started_by').references(() => users.id),
  startedAt: createdAt(),
  /** Refreshed as the run progresses; a running run silent for minutes was interrupted (its process stopped). */
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  total: integer('total').notNull().default(0),
  checked: integer('checked').notNull().default(0),
  /** [{ evidenceId, evidenceTitle, fileId, fileName, problem }] */
  problems: text('problems').notNull().default('[]'),
}, (t) => [
  check('evidence_verify_runs_status_check', sql`${t.status} in ('running', 'finished', 'interrupted')`),
  uniqueIndex('evidence_verify_runs_one_running').on(t.status).where(sql`${t.status} = 'running'`),
]);

/**
 * Browser upload links an assistant asks for (request_upload_link): the secret is stored as its SHA-256 only; valid 15
 * minutes for up to 10 files, each slot used once; uploads act as the user who asked.
 */
export const evidenceUploadLinks = pgTable('evidence_upload_links', {
  id: uuid('id').primaryKey().defaultRandom(),
  secretHash: text('secret_hash').notNull(),
  userId: uuid('user_id').notNull().references(() => users.id),
  tokenId: uuid('token_id'),
  recordType: text('record_type').notNull(),
  recordId: uuid('record_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  filesUsed: integer('files_used').notNull().default(0),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('evidence_upload_links_secret_key').on(t.secretHash)]);
