import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
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
]);

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
]);
