import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * OpenID Connect sign-ins under way (docs/sign-in.md): one row per authorization request, keyed by the SHA-256 of its
 * `state`, holding the nonce and PKCE verifier the callback needs. The callback deletes the row as it reads it, so a
 * state works once; rows of abandoned sign-ins are removed once expired.
 */
export const oidcSignIns = pgTable('oidc_sign_ins', {
  id: text('id').primaryKey(),
  nonce: text('nonce').notNull(),
  codeVerifier: text('code_verifier').notNull(),
  /** Where to go after sign-in (a path on this site). */
  next: text('next').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
}, (t) => [index('oidc_sign_ins_expires_idx').on(t.expiresAt)]);
