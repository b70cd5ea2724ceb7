import { sql } from 'drizzle-orm';
import { bigint, check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';
import { thirdParties } from './third-parties';

export type StoredQuestionKind = 'yesno' | 'single' | 'multiple' | 'text' | 'number' | 'date' | 'file';

/** One choice of a yes/no, single or multiple choice question, with the share of the question's weight it earns. */
export interface StoredChoice {
  value: string;
  label: string;
  /** 0 to 100: the percent of the question's weight this answer earns. */
  score: number;
}

/** A question of a template version (stored as JSON in the version; answers point at it by `key`). */
export interface StoredAssessmentQuestion {
  key: string;
  text: string;
  hint?: string;
  kind: StoredQuestionKind;
  required: boolean;
  /** How much the question counts in the score; 0 leaves it out. */
  weight: number;
  choices?: StoredChoice[];
  /** Shown (and asked) only when the earlier question `question` has the answer `equals` (for multiple choice: among the chosen). */
  showWhen?: { question: string; equals: string } | null;
}

export interface StoredSection {
  title: string;
  description?: string;
  questions: StoredAssessmentQuestion[];
}

/** An answer as stored: yes/no and single choice the chosen value, multiple the chosen values, text, number, date; files by their id. */
export type StoredAnswer = string | number | string[] | null;

export interface StoredReview {
  /** The reviewer's score of the answer, 0 to 100 percent of the weight; unset keeps the score from the template. */
  score?: number | null;
  comment?: string;
}

/** A questionnaire template: its current version's number; each version's content lives in assessment_template_versions. */
export const assessmentTemplates = pgTable('assessment_templates', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  /** Shipped templates carry a key (vendor-security, dpia-screening); templates written here have none. */
  shippedKey: text('shipped_key'),
  version: integer('version').notNull().default(1),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  uniqueIndex('assessment_templates_shipped_key_uq').on(t.shippedKey),
  index('assessment_templates_created_idx').on(t.createdAt, t.id),
  index('assessment_templates_owner_idx').on(t.ownerId),
]);

/** Every version of a template, never changed once written: a sent request keeps the version it was sent with. */
export const assessmentTemplateVersions = pgTable('assessment_template_versions', {
  id: uuid('id').primaryKey().defaultRandom(),
  templateId: uuid('template_id').notNull().references(() => assessmentTemplates.id),
  version: integer('version').notNull(),
  title: text('title').notNull(),
  sections: jsonb('sections').$type<StoredSection[]>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [uniqueIndex('assessment_template_versions_uq').on(t.templateId, t.version)]);

export const ASSESSMENT_REQUEST_STATUSES = ['sent', 'in_progress', 'submitted', 'returned', 'accepted', 'revoked'] as const;

/** A questionnaire sent to one address; the link's secret is stored as its SHA-256 only. */
export const assessmentRequests = pgTable('assessment_requests', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  templateId: uuid('template_id').notNull().references(() => assessmentTemplates.id),
  templateVersionId: uuid('template_version_id').notNull().references(() => assessmentTemplateVersions.id),
  thirdPartyId: uuid('third_party_id').references(() => thirdParties.id),
  respondentName: text('respondent_name').notNull().default(''),
  respondentEmail: text('respondent_email').notNull(),
  dueOn: date('due_on', { mode: 'string' }).notNull(),
  status: text('status', { enum: ASSESSMENT_REQUEST_STATUSES }).notNull().default('sent'),
  secretHash: text('secret_hash').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  answers: jsonb('answers').$type<Record<string, StoredAnswer>>().notNull().default(sql`'{}'::jsonb`),
  review: jsonb('review').$type<Record<string, StoredReview>>().notNull().default(sql`'{}'::jsonb`),
  /** Raised by every write of the respondent: two tabs saving or submitting at once, one wins. */
  revision: integer('revision').notNull().default(0),
  score: integer('score'),
  submittedAt: timestamp('submitted_at', { withTimezone: true, mode: 'date' }),
  reviewedAt: timestamp('reviewed_at', { withTimezone: true, mode: 'date' }),
  reviewerId: uuid('reviewer_id').references(() => users.id),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('assessment_requests_status_check', sql`${t.status} in ('sent', 'in_progress', 'submitted', 'returned', 'accepted', 'revoked')`),
  check('assessment_requests_score_check', sql`${t.score} between 0 and 100`),
  uniqueIndex('assessment_requests_secret_uq').on(t.secretHash),
  index('assessment_requests_created_idx').on(t.createdAt, t.id),
  index('assessment_requests_third_party_idx').on(t.thirdPartyId, t.createdAt),
  index('assessment_requests_owner_idx').on(t.ownerId),
  index('assessment_requests_owner_group_idx').on(t.ownerGroupId),
]);

/** A file answer: stored through the storage interface, sealed by its SHA-256, linked to the request's third party. */
export const assessmentFiles = pgTable('assessment_files', {
  id: uuid('id').primaryKey().defaultRandom(),
  requestId: uuid('request_id').notNull().references(() => assessmentRequests.id),
  questionKey: text('question_key').notNull(),
  thirdPartyId: uuid('third_party_id').references(() => thirdParties.id),
  name: text('name').notNull(),
  storageKey: text('storage_key').notNull(),
  size: bigint('size', { mode: 'number' }).notNull(),
  sha256: text('sha256').notNull(),
  contentType: text('content_type').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [index('assessment_files_request_idx').on(t.requestId), index('assessment_files_third_party_idx').on(t.thirdPartyId)]);
