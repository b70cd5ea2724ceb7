/**
 * The people directory of the REST API: integrations learn the ids that records take as `ownerId` and
 * `ownerGroupId`, as the screens' owner pickers show them (docs/people.md, "Finding people from the API").
 */
import { and, asc, count, eq, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import { Elysia, t, type Static } from 'elysia';
import type { DbOrTx } from '../../../db/client';
import { groups, users } from '../../../db/schema';
import { apiAuth } from '../../platform/http/api-auth';
import type { AppContext } from '../../platform/http/context';
import { PageQuery, pageEnvelope, paging, type Page } from '../../platform/http/paging';
import { ALL_PERMISSIONS, type Permission } from '../../platform/permissions/permissions';
import { once } from '../../platform/core/once';
import { normaliseUserName } from './user-names';

/** Whoever may set an owner on some record (a create or update right), or read Settings, may look people up. */
/** Whoever may set an owner: settings:read or any create or update right but a token's (made once the modules are installed). */
const ownerSetters = once((): Permission[] => ['settings:read', ...ALL_PERMISSIONS.filter((p) => /:(create|update)$/.test(p) && !p.startsWith('apiTokens:'))]);

export const PersonQuery = t.Object({
  ...PageQuery.properties,
  email: t.Optional(t.String({ maxLength: 254, description: 'Exactly this sign-in address (any case): the one person, or no rows' })),
  q: t.Optional(t.String({ maxLength: 200, description: 'Part of the name or address' })),
}, { additionalProperties: false });
export const GroupQuery = t.Object({
  ...PageQuery.properties,
  q: t.Optional(t.String({ maxLength: 200, description: 'Part of the name' })),
}, { additionalProperties: false });

export const PersonView = t.Object({ id: t.String({ format: 'uuid' }), name: t.String(), email: t.String() }, { additionalProperties: false });
export const GroupView = t.Object({ id: t.String({ format: 'uuid' }), name: t.String() }, { additionalProperties: false });

const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Active accounts only: an owner must be one, so nothing else is offered (and nothing is said about the others). */
export async function listPeople(db: DbOrTx, query: Static<typeof PersonQuery>): Promise<Page<Static<typeof PersonView>>> {
  const { page, pageSize, offset } = paging(query);
  const where: SQL | undefined = and(
    eq(users.status, 'active'), isNull(users.deprovisionedAt),
    query.email ? sql`lower(${users.email}) = lower(${normaliseUserName(query.email)})` : undefined,
    query.q ? or(ilike(users.name, contains(query.q)), ilike(users.email, contains(query.q))) : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(where).orderBy(asc(users.name), asc(users.id)).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(users).where(where),
  ]);
  return { rows, total, page, pageSize };
}

export async function listGroupsPage(db: DbOrTx, query: Static<typeof GroupQuery>): Promise<Page<Static<typeof GroupView>>> {
  const { page, pageSize, offset } = paging(query);
  const where = query.q ? ilike(groups.name, contains(query.q)) : undefined;
  const [rows, [{ total }]] = await Promise.all([
    db.select({ id: groups.id, name: groups.name }).from(groups).where(where).orderBy(asc(groups.name), asc(groups.id)).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(groups).where(where),
  ]);
  return { rows, total, page, pageSize };
}

const tags = ['People'];
const detail = (summary: string, description: string) => ({
  tags, summary, description, security: [{ bearerAuth: [] }], 'x-required-scope': ownerSetters()[0], 'x-required-scopes-any-of': ownerSetters(),
});

export const peopleApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:people', prefix: '/api/v1/people' })
    .use(apiAuth(ctx))
    .get('', async ({ query }) => ({ data: await listPeople(ctx.db, query) }), {
      scopeAnyOf: ownerSetters(), query: PersonQuery, response: pageEnvelope(PersonView),
      detail: detail('Active people, by name: the ids records take as ownerId',
        'Read only. Needs settings:read or any create or update scope (whoever may set an owner). `email` finds one person by sign-in address. '
        + 'Only active accounts are listed, as only they may own records.'),
    })
    .get('/groups', async ({ query }) => ({ data: await listGroupsPage(ctx.db, query) }), {
      scopeAnyOf: ownerSetters(), query: GroupQuery, response: pageEnvelope(GroupView),
      detail: detail('Groups, by name: the ids records take as ownerGroupId', 'Read only. Needs settings:read or any create or update scope.'),
    });
