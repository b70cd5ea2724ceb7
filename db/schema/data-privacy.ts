import { sql } from 'drizzle-orm';
import { boolean, check, date, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { assets } from './assets';
import { thirdParties } from './third-parties';
import { groups, users } from './platform';

/**
 * Records of processing (GDPR Art. 30): one row per processing activity. The lists (purposes, categories, links to
 * assets and third parties) are arrays on the row, so the register kit writes, diffs (History) and reads them with
 * the record; the ids in `system_asset_ids` and `processor_third_party_ids` are checked by the module's service on
 * every change (docs/data-privacy.md).
 */
export const processingActivities = pgTable('processing_activities', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  role: text('role', { enum: ['controller', 'processor'] }).notNull().default('controller'),
  status: text('status', { enum: ['draft', 'active', 'retired'] }).notNull().default('draft'),
  purposes: text('purposes').notNull().default(''),
  legalBasis: text('legal_basis').notNull(),
  specialCategoryCondition: text('special_category_condition'),
  dataSubjectCategories: text('data_subject_categories').array().notNull().default(sql`'{}'::text[]`),
  personalDataCategories: text('personal_data_categories').array().notNull().default(sql`'{}'::text[]`),
  recipients: text('recipients').notNull().default(''),
  retention: text('retention').notNull().default(''),
  systemAssetIds: uuid('system_asset_ids').array().notNull().default(sql`'{}'::uuid[]`),
  processorThirdPartyIds: uuid('processor_third_party_ids').array().notNull().default(sql`'{}'::uuid[]`),
  jointControllers: text('joint_controllers').notNull().default(''),
  securityMeasures: text('security_measures').notNull().default(''),
  /** The technical and organisational measures (Art. 32) as controls: checked like the other links (migration 0051). */
  controlIds: uuid('control_ids').array().notNull().default(sql`'{}'::uuid[]`),
  /** Labels of Settings › Labels. */
  labelIds: uuid('label_ids').array().notNull().default(sql`'{}'::uuid[]`),
  /** When the record is next to be reviewed; a review recorded (processing_activity_reviews) sets it. */
  nextReviewOn: date('next_review_on', { mode: 'string' }),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('processing_activities_role_check', sql`${t.role} in ('controller', 'processor')`),
  check('processing_activities_status_check', sql`${t.status} in ('draft', 'active', 'retired')`),
  check('processing_activities_legal_basis_check', sql`${t.legalBasis} in ('consent', 'contract', 'legal_obligation', 'vital_interests', 'public_task', 'legitimate_interests')`),
  index('processing_activities_created_idx').on(t.createdAt, t.id),
  index('processing_activities_owner_idx').on(t.ownerId),
  index('processing_activities_owner_group_idx').on(t.ownerGroupId),
  index('processing_activities_role_idx').on(t.role, t.name),
  index('processing_activities_status_idx').on(t.status),
  index('processing_activities_subject_categories_idx').using('gin', t.dataSubjectCategories),
  index('processing_activities_data_categories_idx').using('gin', t.personalDataCategories),
  index('processing_activities_control_ids_idx').using('gin', t.controlIds),
  index('processing_activities_label_ids_idx').using('gin', t.labelIds),
  index('processing_activities_next_review_idx').on(t.nextReviewOn),
]);

/**
 * Periodic reviews of a processing activity, decided with dataPrivacy:review: the day, the reviewer, the outcome (no
 * change, or changes needed with a note) and the next review day it set on the activity.
 */
export const processingActivityReviews = pgTable('processing_activity_reviews', {
  id: uuid('id').primaryKey().defaultRandom(),
  processingActivityId: uuid('processing_activity_id').notNull().references(() => processingActivities.id, { onDelete: 'cascade' }),
  reviewedOn: date('reviewed_on', { mode: 'string' }).notNull(),
  reviewerId: uuid('reviewer_id').references(() => users.id),
  outcome: text('outcome', { enum: ['no_change', 'changes_needed'] }).notNull(),
  notes: text('notes').notNull().default(''),
  nextReviewOn: date('next_review_on', { mode: 'string' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('processing_activity_reviews_outcome_check', sql`${t.outcome} in ('no_change', 'changes_needed')`),
  check('processing_activity_reviews_next_check', sql`${t.nextReviewOn} is null or ${t.nextReviewOn} > ${t.reviewedOn}`),
  index('processing_activity_reviews_activity_idx').on(t.processingActivityId, t.reviewedOn),
]);

/**
 * The categories of data subjects and of personal data processing activities (and assets' data-map fields) name:
 * lists an administrator edits under Settings (the name list kit). Records store an entry's `key`, made from its name
 * when it is added and never changed after, so renaming an entry leaves every record as it was; the migration seeds
 * the keys of the fixed lists the module used before.
 */
export const privacyDataSubjectCategories = pgTable('privacy_data_subject_categories', {
  id: uuid('id').primaryKey().defaultRandom(),
  key: text('key').notNull().unique(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const privacyPersonalDataCategories = pgTable('privacy_personal_data_categories', {
  id: uuid('id').primaryKey().defaultRandom(),
  key: text('key').notNull().unique(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Data protection impact assessments (GDPR Art. 35), each about one processing activity. `criteria_met` holds the
 * EDPB screening criteria that apply (WP248 rev.01); whether a DPIA is required is derived from them (two or more) unless
 * the assessor overrides it with a reason. A signed-off DPIA is read-only until reopened (`dataPrivacy:review`).
 * `risk_ids` are the risks written from it ("Create a risk from this DPIA"); a risk so linked cannot be deleted.
 */
export const dpias = pgTable('dpias', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  processingActivityId: uuid('processing_activity_id').notNull().references(() => processingActivities.id),
  criteriaMet: text('criteria_met').array().notNull().default(sql`'{}'::text[]`),
  requiredOverride: text('required_override', { enum: ['required', 'not_required'] }),
  overrideReason: text('override_reason').notNull().default(''),
  description: text('description').notNull().default(''),
  necessityAndProportionality: text('necessity_and_proportionality').notNull().default(''),
  risksToDataSubjects: text('risks_to_data_subjects').notNull().default(''),
  measures: text('measures').notNull().default(''),
  residualRisk: text('residual_risk', { enum: ['low', 'medium', 'high'] }),
  residualJudgement: text('residual_judgement').notNull().default(''),
  dpoAdvice: text('dpo_advice').notNull().default(''),
  status: text('status', { enum: ['draft', 'signed_off'] }).notNull().default('draft'),
  signedOffById: uuid('signed_off_by_id').references(() => users.id),
  signedOffAt: timestamp('signed_off_at', { withTimezone: true, mode: 'date' }),
  riskIds: uuid('risk_ids').array().notNull().default(sql`'{}'::uuid[]`),
  labelIds: uuid('label_ids').array().notNull().default(sql`'{}'::uuid[]`),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('dpias_required_override_check', sql`${t.requiredOverride} in ('required', 'not_required')`),
  check('dpias_residual_risk_check', sql`${t.residualRisk} in ('low', 'medium', 'high')`),
  check('dpias_status_check', sql`${t.status} in ('draft', 'signed_off')`),
  index('dpias_created_idx').on(t.createdAt, t.id),
  index('dpias_owner_idx').on(t.ownerId),
  index('dpias_owner_group_idx').on(t.ownerGroupId),
  index('dpias_processing_activity_idx').on(t.processingActivityId),
  index('dpias_status_idx').on(t.status),
  index('dpias_label_ids_idx').using('gin', t.labelIds),
]);

/**
 * Transfer impact assessments, kept on a third party (the importer): the laws of the destination assessed, the risk
 * found, the supplementary measures and the conclusion, with the date and the next review (reminders).
 */
export const transferImpactAssessments = pgTable('transfer_impact_assessments', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  thirdPartyId: uuid('third_party_id').notNull().references(() => thirdParties.id),
  lawsAssessed: text('laws_assessed').notNull().default(''),
  riskFound: text('risk_found', { enum: ['low', 'medium', 'high'] }).notNull(),
  supplementaryMeasures: text('supplementary_measures').notNull().default(''),
  conclusion: text('conclusion', { enum: ['proceed', 'proceed_with_measures', 'do_not_proceed'] }).notNull(),
  assessedOn: date('assessed_on', { mode: 'string' }).notNull(),
  nextReviewOn: date('next_review_on', { mode: 'string' }),
  labelIds: uuid('label_ids').array().notNull().default(sql`'{}'::uuid[]`),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('transfer_impact_assessments_risk_check', sql`${t.riskFound} in ('low', 'medium', 'high')`),
  check('transfer_impact_assessments_conclusion_check', sql`${t.conclusion} in ('proceed', 'proceed_with_measures', 'do_not_proceed')`),
  check('transfer_impact_assessments_review_check', sql`${t.nextReviewOn} is null or ${t.nextReviewOn} > ${t.assessedOn}`),
  index('transfer_impact_assessments_created_idx').on(t.createdAt, t.id),
  index('transfer_impact_assessments_owner_idx').on(t.ownerId),
  index('transfer_impact_assessments_owner_group_idx').on(t.ownerGroupId),
  index('transfer_impact_assessments_third_party_idx').on(t.thirdPartyId),
  index('transfer_impact_assessments_next_review_idx').on(t.nextReviewOn),
  index('transfer_impact_assessments_label_ids_idx').using('gin', t.labelIds),
]);

/**
 * Transfers of personal data outside the EEA (GDPR Chapter V), each of one processing activity: the destination
 * country (ISO 3166-1 alpha-2), the recipient (a third party), the safeguard (adequacy decision, SCCs with their
 * module, BCRs, or an Art. 49 derogation with its ground) and the transfer impact assessment relied on.
 */
export const privacyTransfers = pgTable('privacy_transfers', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  processingActivityId: uuid('processing_activity_id').notNull().references(() => processingActivities.id),
  destinationCountry: text('destination_country').notNull(),
  recipientThirdPartyId: uuid('recipient_third_party_id').notNull().references(() => thirdParties.id),
  safeguard: text('safeguard', { enum: ['adequacy_decision', 'sccs', 'bcrs', 'derogation'] }).notNull(),
  sccModule: integer('scc_module'),
  derogation: text('derogation'),
  transferImpactAssessmentId: uuid('transfer_impact_assessment_id').references(() => transferImpactAssessments.id),
  notes: text('notes').notNull().default(''),
  labelIds: uuid('label_ids').array().notNull().default(sql`'{}'::uuid[]`),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('privacy_transfers_country_check', sql`${t.destinationCountry} ~ '^[A-Z]{2}$'`),
  check('privacy_transfers_safeguard_check', sql`${t.safeguard} in ('adequacy_decision', 'sccs', 'bcrs', 'derogation')`),
  check('privacy_transfers_scc_module_check', sql`(${t.safeguard} = 'sccs') = (${t.sccModule} is not null) and (${t.sccModule} is null or ${t.sccModule} between 1 and 4)`),
  check('privacy_transfers_derogation_check', sql`(${t.safeguard} = 'derogation') = (${t.derogation} is not null)`),
  index('privacy_transfers_created_idx').on(t.createdAt, t.id),
  index('privacy_transfers_owner_idx').on(t.ownerId),
  index('privacy_transfers_owner_group_idx').on(t.ownerGroupId),
  index('privacy_transfers_activity_idx').on(t.processingActivityId),
  index('privacy_transfers_recipient_idx').on(t.recipientThirdPartyId),
  index('privacy_transfers_tia_idx').on(t.transferImpactAssessmentId),
  index('privacy_transfers_label_ids_idx').using('gin', t.labelIds),
]);

/** Data-map fields of an asset, kept by data privacy (one row per asset that has them; docs/data-privacy.md). */
export const assetDataMaps = pgTable('asset_data_maps', {
  assetId: uuid('asset_id').primaryKey().references(() => assets.id, { onDelete: 'cascade' }),
  personalDataHeld: boolean('personal_data_held').notNull().default(false),
  dataCategories: text('data_categories').array().notNull().default(sql`'{}'::text[]`),
  locationCountry: text('location_country'),
  retention: text('retention').notNull().default(''),
  hosting: text('hosting', { enum: ['on_premises', 'private_cloud', 'public_cloud', 'saas'] }),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('asset_data_maps_country_check', sql`${t.locationCountry} ~ '^[A-Z]{2}$'`),
  check('asset_data_maps_hosting_check', sql`${t.hosting} in ('on_premises', 'private_cloud', 'public_cloud', 'saas')`),
  index('asset_data_maps_data_categories_idx').using('gin', t.dataCategories),
]);

/** The data processing agreement with a third party (Art. 28(3)), kept by data privacy: one row per third party that has one. */
export const thirdPartyDpas = pgTable('third_party_dpas', {
  thirdPartyId: uuid('third_party_id').primaryKey().references(() => thirdParties.id, { onDelete: 'cascade' }),
  signedOn: date('signed_on', { mode: 'string' }),
  version: text('version').notNull().default(''),
  subProcessorCountries: text('sub_processor_countries').array().notNull().default(sql`'{}'::text[]`),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** One asked field of a Data Liaison questionnaire and what the person asked answered about it. */
export interface QuestionnaireAnswer {
  /** The processing activity's field (a key of QUESTIONNAIRE_FIELDS in the module's schema). */
  field: string;
  /** The field's value when the answer was given, as stored (a legal basis by its key). */
  current: string;
  /** The value proposed, or null where the person confirmed the current one. */
  proposed: string | null;
  comment: string;
  /** A proposal's decision by the privacy officer; null where nothing was proposed. */
  decision: 'pending' | 'accepted' | 'rejected' | null;
  decidedById: string | null;
  decidedAt: string | null;
  reason: string;
}

/**
 * Data Liaison questionnaires: a privacy officer asks an internal business owner (`recipient_id`, a user) about fields
 * of one processing activity; the answers propose changes the officer accepts (written to the processing activity
 * through its service) or rejects, one by one. Owned by the officer who sent it (own/all level); the recipient reads and
 * answers it without data privacy rights (docs/data-privacy.md).
 */
export const privacyQuestionnaires = pgTable('privacy_questionnaires', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  processingActivityId: uuid('processing_activity_id').notNull().references(() => processingActivities.id),
  recipientId: uuid('recipient_id').notNull().references(() => users.id),
  message: text('message').notNull().default(''),
  fields: text('fields').array().notNull(),
  dueOn: date('due_on', { mode: 'string' }),
  status: text('status', { enum: ['sent', 'answered', 'closed'] }).notNull().default('sent'),
  answers: jsonb('answers').$type<QuestionnaireAnswer[]>().notNull().default(sql`'[]'::jsonb`),
  answeredAt: timestamp('answered_at', { withTimezone: true, mode: 'date' }),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('privacy_questionnaires_status_check', sql`${t.status} in ('sent', 'answered', 'closed')`),
  check('privacy_questionnaires_fields_check', sql`cardinality(${t.fields}) > 0`),
  index('privacy_questionnaires_created_idx').on(t.createdAt, t.id),
  index('privacy_questionnaires_owner_idx').on(t.ownerId),
  index('privacy_questionnaires_owner_group_idx').on(t.ownerGroupId),
  index('privacy_questionnaires_recipient_idx').on(t.recipientId, t.status),
  index('privacy_questionnaires_activity_idx').on(t.processingActivityId),
]);
