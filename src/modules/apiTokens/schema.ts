import { t, type Static } from 'elysia';
import { ALL_PERMISSIONS } from '../../platform/permissions';
import { stringEnum } from '../../platform/schema-helpers';

export const Scope = stringEnum(ALL_PERMISSIONS, { description: '<module>:<right>' });

export const TokenCreate = t.Object({
  name: t.String({ minLength: 1, maxLength: 120, description: 'What uses the token and who owns it' }),
  scopes: t.Array(Scope, { minItems: 1, uniqueItems: true }),
  expiresAt: t.Optional(t.Union([t.String({ format: 'date', description: 'YYYY-MM-DD; blank gets the maximum lifetime' }), t.Null()])),
});
export type TokenCreate = Static<typeof TokenCreate>;

export const TokenStatus = t.Union([t.Literal('Active'), t.Literal('Expired'), t.Literal('Revoked')]);

export const TokenView = t.Object({
  id: t.String(),
  name: t.String(),
  scopes: t.Array(t.String()),
  createdBy: t.Object({ id: t.String(), email: t.String(), name: t.String() }),
  createdAt: t.String(),
  lastUsedAt: t.Union([t.String(), t.Null()]),
  expiresAt: t.Union([t.String(), t.Null()]),
  revokedAt: t.Union([t.String(), t.Null()]),
  status: TokenStatus,
});
export type TokenView = Static<typeof TokenView>;

export const TokenCreated = t.Object({
  data: t.Object({ id: t.String(), secret: t.String({ description: 'Shown once; only its SHA-256 hash is stored' }) }),
});
