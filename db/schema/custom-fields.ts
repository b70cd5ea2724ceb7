import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/**
 * Custom fields: administrators define extra fields per module (Settings › Custom fields, /api/v1/custom-fields);
 * each record of that module may hold one value per field. Values live here rather than in a jsonb column on every
 * register table, so one definition can be counted, renamed or removed in one place.
 */
export const customFieldDefinitions = pgTable('custom_field_definitions', {
  id: uuid('id').primaryKey().defaultRandom(),
  module: text('module').notNull(),
  key: text('key').notNull(),
  label: text('label').notNull(),
  type: text('type', { enum: ['text', 'number', 'date', 'singleSelect', 'multiSelect', 'boolean'] }).notNull(),
  /** The choices of a select field, in display order; empty for other types. */
  options: jsonb('options').$type<string[]>().notNull().default([]),
  required: boolean('required').notNull().default(false),
  position: integer('position').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  uniqueIndex('custom_field_definitions_module_key_unique').on(t.module, t.key),
  check('custom_field_definitions_module_check', sql`${t.module} in ('risks', 'controls', 'policies', 'thirdParties', 'incidents', 'projects', 'evidence', 'dataPrivacy')`),
  check('custom_field_definitions_type_check', sql`${t.type} in ('text', 'number', 'date', 'singleSelect', 'multiSelect', 'boolean')`),
  check('custom_field_definitions_key_check', sql`${t.key} ~ '^[a-z][a-zA-Z0-9_]{0,39}$'`),
  index('custom_field_definitions_module_idx').on(t.module, t.position),
]);

/** One value per definition and record; removing a definition removes its values (the service counts them first). */
export const customFieldValues = pgTable('custom_field_values', {
  definitionId: uuid('definition_id').notNull().references(() => customFieldDefinitions.id, { onDelete: 'cascade' }),
  /** The record's module, so a page of records loads its values with one indexed query. */
  module: text('module').notNull(),
  recordId: uuid('record_id').notNull(),
  value: jsonb('value').notNull(),
}, (t) => [
  primaryKey({ columns: [t.definitionId, t.recordId] }),
  index('custom_field_values_record_idx').on(t.module, t.recordId),
]);
