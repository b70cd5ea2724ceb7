import { t, type Static } from 'elysia';
import { exactly } from '../../platform/http/envelopes';
import { PageQuery, pageEnvelope } from '../../platform/http/paging';
import { ALL_PERMISSIONS } from '../../platform/permissions/permissions';
import { stringEnum } from '../../platform/http/schema-helpers';
import { once } from '../../platform/core/once';

/** A token's scopes name the installed permission areas, so the shape is made once the modules are installed. */
export const tokenCreateSchema = once(() => t.Object({
  name: t.String({ minLength: 1, maxLength: 120, description: 'What uses the token and who owns it (up to 120 characters)' }),
  scopes: t.Array(stringEnum(ALL_PERMISSIONS, { description: '<module>:<right>' }), { minItems: 1, uniqueItems: true, description: 'At least one; none may exceed your own rights' }),
  expiresAt: t.Optional(t.Union([
    t.String({ format: 'date', description: 'YYYY-MM-DD; the token works through that day (UTC)' }),
    t.Literal(''),
    t.Null(),
  ], { description: 'Blank gets the maximum lifetime (365 days unless changed); when the maximum is 0, blank never expires' })),
}));
export type TokenCreate = Static<ReturnType<typeof tokenCreateSchema>>;

export const TokenStatus = t.Union([t.Literal('Active'), t.Literal('Expired'), t.Literal('Revoked')]);

export const TokenView = t.Object({
  id: t.String(),
  name: t.String(),
  scopes: t.Array(t.String()),
  createdBy: t.Object({ id: t.String(), email: t.String(), name: t.String() }),
  createdAt: t.String(),
  lastUsedAt: t.Union([t.String(), t.Null()], { description: 'Refreshed at most once a minute' }),
  expiresAt: t.Union([t.String(), t.Null()], { description: 'The instant the token stops working; null: never' }),
  revokedAt: t.Union([t.String(), t.Null()]),
  status: TokenStatus,
});
export type TokenView = Static<typeof TokenView>;

export const TokenListQuery = PageQuery;
export type TokenListQuery = Static<typeof TokenListQuery>;
export const TokenPage = pageEnvelope(TokenView);

export const TokenCreated = exactly(t.Object({
  data: t.Object({ id: t.String(), secret: t.String({ description: 'Begins with aat_; shown once, only its SHA-256 hash is stored' }) }),
}, { description: 'Created' }));
