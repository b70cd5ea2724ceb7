import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { assets } from './assets';
import { groups, users } from './platform';
import { thirdParties } from './third-parties';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** The incident classification list administrators manage (empty on a new installation). */
export const incidentClassifications = pgTable('incident_classifications', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  createdAt: createdAt(),
});

export const incidents = pgTable('incidents', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  classificationId: uuid('classification_id').references(() => incidentClassifications.id),
  openedAt: date('opened_at', { mode: 'string' }).notNull(),
  assetId: uuid('asset_id').references(() => assets.id),
  thirdPartyId: uuid('third_party_id').references(() => thirdParties.id),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  status: text('status', { enum: ['open', 'closed'] }).notNull().default('open'),
  resolution: text('resolution').notNull().default(''),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('incidents_status_check', sql`${t.status} in ('open', 'closed')`),
  // The service refuses this with a field problem first; the constraint keeps every other writer honest too.
  check('incidents_closed_resolution_check', sql`${t.status} <> 'closed' or btrim(${t.resolution}) <> ''`),
  index('incidents_created_idx').on(t.createdAt, t.id),
  index('incidents_owner_idx').on(t.ownerId),
  index('incidents_owner_group_idx').on(t.ownerGroupId),
  index('incidents_status_idx').on(t.status),
  index('incidents_classification_idx').on(t.classificationId),
  index('incidents_asset_idx').on(t.assetId),
  index('incidents_third_party_idx').on(t.thirdPartyId),
]);

/** Personal-data-breach details: at most one per incident. */
export const incidentBreaches = pgTable('incident_breaches', {
  incidentId: uuid('incident_id').primaryKey().references(() => incidents.id, { onDelete: 'cascade' }),
  categories: text('categories').array().notNull().default(sql`'{}'::text[]`),
  approximateSubjects: integer('approximate_subjects'),
  detectedAt: date('detected_at', { mode: 'string' }),
  reportedAt: date('reported_at', { mode: 'string' }),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [check('incident_breaches_subjects_check', sql`${t.approximateSubjects} >= 0`)]);

export const incidentBreachNotifications = pgTable('incident_breach_notifications', {
  id: uuid('id').primaryKey().defaultRandom(),
  incidentId: uuid('incident_id').notNull().references(() => incidentBreaches.incidentId, { onDelete: 'cascade' }),
  recipient: text('recipient', { enum: ['authority', 'subjects'] }).notNull(),
  notifiedOn: date('notified_on', { mode: 'string' }).notNull(),
  reference: text('reference').notNull().default(''),
  createdAt: createdAt(),
}, (t) => [
  check('incident_breach_notifications_recipient_check', sql`${t.recipient} in ('authority', 'subjects')`),
  index('incident_breach_notifications_incident_idx').on(t.incidentId, t.notifiedOn),
]);
