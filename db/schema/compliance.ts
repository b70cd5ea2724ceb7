import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { controls } from './controls';
import { policies } from './policies';
import { groups, users } from './platform';
import { projects } from './projects';
import { risks } from './risks';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** One framework (a tree of headings, requirements and additional items). Owned like every register record. */
export const compliancePackages = pgTable('compliance_packages', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  standard: text('standard').notNull().default(''),
  version: text('version').notNull().default(''),
  description: text('description').notNull().default(''),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdBy: uuid('created_by').references(() => users.id),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('compliance_packages_created_idx').on(t.createdAt, t.id),
  index('compliance_packages_owner_idx').on(t.ownerId),
  index('compliance_packages_owner_group_idx').on(t.ownerGroupId),
]);

/** Items keep their file order (position) and their parent by code, so export reproduces the import exactly. */
export const complianceItems = pgTable('compliance_items', {
  id: uuid('id').primaryKey().defaultRandom(),
  packageId: uuid('package_id').notNull().references(() => compliancePackages.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
  code: text('code').notNull(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  parentCode: text('parent_code'),
  kind: text('kind', { enum: ['requirement', 'additional', 'heading'] }).notNull().default('requirement'),
}, (t) => [
  uniqueIndex('compliance_items_package_code_key').on(t.packageId, t.code),
  index('compliance_items_package_position_idx').on(t.packageId, t.position),
  check('compliance_items_kind_check', sql`${t.kind} in ('requirement', 'additional', 'heading')`),
  check('compliance_items_code_length_check', sql`char_length(${t.code}) between 1 and 100`),
  check('compliance_items_name_length_check', sql`char_length(${t.name}) between 1 and 300`),
]);

/** One analysis per requirement and per additional item (headings have none), created with the package. */
export const complianceAnalyses = pgTable('compliance_analyses', {
  id: uuid('id').primaryKey().defaultRandom(),
  packageId: uuid('package_id').notNull().references(() => compliancePackages.id, { onDelete: 'cascade' }),
  itemId: uuid('item_id').notNull().references(() => complianceItems.id, { onDelete: 'cascade' }),
  status: text('status', { enum: ['not_assessed', 'compliant', 'partially_compliant', 'non_compliant', 'not_applicable'] })
    .notNull().default('not_assessed'),
  notes: text('notes').notNull().default(''),
  assessorId: uuid('assessor_id').references(() => users.id),
  assessedAt: timestamp('assessed_at', { withTimezone: true, mode: 'date' }),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  uniqueIndex('compliance_analyses_item_key').on(t.itemId),
  index('compliance_analyses_package_idx').on(t.packageId, t.status),
  index('compliance_analyses_owner_idx').on(t.ownerId),
  index('compliance_analyses_owner_group_idx').on(t.ownerGroupId),
  check('compliance_analyses_status_check', sql`${t.status} in ('not_assessed', 'compliant', 'partially_compliant', 'non_compliant', 'not_applicable')`),
]);

/** Requirement mappings: what addresses an analysis. Deleting a mapped control, policy, risk or project is refused (409). */
export const analysisControls = pgTable('compliance_analysis_controls', {
  analysisId: uuid('analysis_id').notNull().references(() => complianceAnalyses.id, { onDelete: 'cascade' }),
  controlId: uuid('control_id').notNull().references(() => controls.id),
}, (t) => [primaryKey({ columns: [t.analysisId, t.controlId] }), index('compliance_analysis_controls_control_idx').on(t.controlId)]);

export const analysisPolicies = pgTable('compliance_analysis_policies', {
  analysisId: uuid('analysis_id').notNull().references(() => complianceAnalyses.id, { onDelete: 'cascade' }),
  policyId: uuid('policy_id').notNull().references(() => policies.id),
}, (t) => [primaryKey({ columns: [t.analysisId, t.policyId] }), index('compliance_analysis_policies_policy_idx').on(t.policyId)]);

export const analysisRisks = pgTable('compliance_analysis_risks', {
  analysisId: uuid('analysis_id').notNull().references(() => complianceAnalyses.id, { onDelete: 'cascade' }),
  riskId: uuid('risk_id').notNull().references(() => risks.id),
}, (t) => [primaryKey({ columns: [t.analysisId, t.riskId] }), index('compliance_analysis_risks_risk_idx').on(t.riskId)]);

export const analysisProjects = pgTable('compliance_analysis_projects', {
  analysisId: uuid('analysis_id').notNull().references(() => complianceAnalyses.id, { onDelete: 'cascade' }),
  projectId: uuid('project_id').notNull().references(() => projects.id),
}, (t) => [primaryKey({ columns: [t.analysisId, t.projectId] }), index('compliance_analysis_projects_project_idx').on(t.projectId)]);

/**
 * Which headings of a package's tree a person keeps open (the screen's collapsed state, per person and package).
 * A screen preference, not a record: no History, no Audit Log entry. Headings not listed are shown collapsed.
 */
export const complianceTreeViews = pgTable('compliance_tree_views', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  packageId: uuid('package_id').notNull().references(() => compliancePackages.id, { onDelete: 'cascade' }),
  openItemIds: uuid('open_item_ids').array().notNull().default(sql`'{}'::uuid[]`),
  updatedAt: updatedAt(),
}, (t) => [primaryKey({ columns: [t.userId, t.packageId] }), index('compliance_tree_views_package_idx').on(t.packageId)]);
