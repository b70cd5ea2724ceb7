import { bigint, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './platform';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A person's TOTP second factor (docs/people.md, Two-factor sign-in). `secret` is AES-256-GCM ciphertext when the
 * server has an ENCRYPTION_KEY, otherwise the base32 secret; it is never shown again after enrolment. A row with
 * `confirmed_at` null is an enrolment begun and not yet confirmed by a code: it does not count as enrolled.
 * `last_used_step` is the 30-second step of the last code accepted, so a code cannot be used twice.
 */
export const userTwoFactor = pgTable('user_two_factor', {
  userId: uuid('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  startedAt: at('started_at').notNull().defaultNow(),
  confirmedAt: at('confirmed_at'),
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
});

/** Ten one-time recovery codes per enrolled person; only the SHA-256 of each is kept. */
export const twoFactorRecoveryCodes = pgTable('two_factor_recovery_codes', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  codeHash: text('code_hash').notNull(),
  usedAt: at('used_at'),
}, (t) => [index('two_factor_recovery_codes_user_idx').on(t.userId, t.codeHash)]);

/**
 * A sign-in whose password was right and whose second step (a code, or enrolment when it is required) is still to come.
 * Bound to the browser by an HttpOnly cookie whose SHA-256 is the id; short-lived, with a limited number of tries.
 */
export const pendingSignIns = pgTable('pending_sign_ins', {
  id: text('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** 'code': enter a code; 'enrol': the person must enrol before signing in. */
  step: text('step', { enum: ['code', 'enrol'] }).notNull(),
  email: text('email').notNull(),
  ip: text('ip').notNull().default(''),
  /** The password's login_attempts row, marked a success only when the second step completes. */
  attemptId: bigint('attempt_id', { mode: 'number' }).notNull(),
  next: text('next').notNull().default('/'),
  tries: integer('tries').notNull().default(0),
  createdAt: at('created_at').notNull().defaultNow(),
  expiresAt: at('expires_at').notNull(),
}, (t) => [index('pending_sign_ins_expires_idx').on(t.expiresAt)]);
