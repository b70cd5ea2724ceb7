import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { groups, users } from './platform';
import { risks } from './risks';

export const thirdParties = pgTable('third_parties', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  type: text('type', { enum: ['vendor', 'partner', 'customer', 'other'] }).notNull().default('vendor'),
  status: text('status', { enum: ['active', 'offboarding', 'terminated'] }).notNull().default('active'),
  /** An http(s) address with a host; none when not known. */
  website: text('website'),
  ownerId: uuid('owner_id').references(() => users.id),
  ownerGroupId: uuid('owner_group_id').references(() => groups.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  check('third_parties_type_check', sql`${t.type} in ('vendor', 'partner', 'customer', 'other')`),
  check('third_parties_status_check', sql`${t.status} in ('active', 'offboarding', 'terminated')`),
  check('third_parties_website_length_check', sql`char_length(${t.website}) <= 2000`),
  index('third_parties_created_idx').on(t.createdAt, t.id),
  index('third_parties_owner_idx').on(t.ownerId),
  index('third_parties_owner_group_idx').on(t.ownerGroupId),
  index('third_parties_status_idx').on(t.status),
]);

/** People to talk to at a third party; they go when the third party goes. */
export const thirdPartyContacts = pgTable('third_party_contacts', {
  id: uuid('id').primaryKey().defaultRandom(),
  thirdPartyId: uuid('third_party_id').notNull().references(() => thirdParties.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  email: text('email'),
  phone: text('phone'),
  role: text('role'),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  index('third_party_contacts_third_party_idx').on(t.thirdPartyId, t.name),
]);

/**
 * Risks linked to a third party. A linked third party cannot be deleted (409); a deleted risk takes its links
 * with it, since the risks module does not know about third parties.
 */
export const thirdPartyRisks = pgTable('third_party_risks', {
  thirdPartyId: uuid('third_party_id').notNull().references(() => thirdParties.id),
  riskId: uuid('risk_id').notNull().references(() => risks.id, { onDelete: 'cascade' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.thirdPartyId, t.riskId] }),
  index('third_party_risks_risk_idx').on(t.riskId),
]);

/**
 * `subProcessorId` processes for `thirdPartyId`. Deleting the third party drops its list of sub-processors;
 * deleting a sub-processor while a third party still names it is refused (409).
 */
export const thirdPartySubProcessors = pgTable('third_party_sub_processors', {
  thirdPartyId: uuid('third_party_id').notNull().references(() => thirdParties.id, { onDelete: 'cascade' }),
  subProcessorId: uuid('sub_processor_id').notNull().references(() => thirdParties.id),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.thirdPartyId, t.subProcessorId] }),
  check('third_party_sub_processors_not_self_check', sql`${t.thirdPartyId} <> ${t.subProcessorId}`),
  index('third_party_sub_processors_sub_idx').on(t.subProcessorId),
]);
