import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';

/** The business unit hierarchy: a unit has at most one parent; the service refuses cycles. */
export const businessUnits = pgTable('business_units', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  parentId: uuid('parent_id').references((): AnyPgColumn => businessUnits.id),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  // Names are unique among siblings (ignoring case); top-level units count as siblings of each other.
  uniqueIndex('business_units_sibling_name_idx').on(sql`coalesce(${t.parentId}, '00000000-0000-0000-0000-000000000000'::uuid)`, sql`lower(${t.name})`),
  index('business_units_parent_idx').on(t.parentId),
  index('business_units_created_idx').on(t.createdAt, t.id),
  index('business_units_owner_idx').on(t.ownerId),
  index('business_units_owner_group_idx').on(t.ownerGroupId),
]);

/** The asset catalog. */
export const assets = pgTable('assets', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  businessUnitId: uuid('business_unit_id').references(() => businessUnits.id),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  index('assets_created_idx').on(t.createdAt, t.id),
  index('assets_owner_idx').on(t.ownerId),
  index('assets_owner_group_idx').on(t.ownerGroupId),
  index('assets_business_unit_idx').on(t.businessUnitId),
]);
