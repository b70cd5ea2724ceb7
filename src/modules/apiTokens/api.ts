import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Data, IdParam } from '../../platform/http/envelopes';
import { tokenCreateSchema, TokenCreated, TokenListQuery, TokenPage, TokenView } from './schema';
import { createToken, listTokensPage, revokeToken } from './service';

const tags = ['API tokens'];

export const apiTokensApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:apiTokens', prefix: '/api/v1/api-tokens' })
    .use(apiAuth(ctx))
    .get('', async ({ actor, query }) => ({ data: await listTokensPage(ctx.db, actor, query) }), {
      scope: 'apiTokens:read', query: TokenListQuery, response: TokenPage,
      detail: { tags, summary: 'List API tokens (every token at level all, otherwise your own)' },
    })
    .post('', async ({ actor, body, set }) => {
      const { id, secret } = await runWrite(ctx, (tx) => createToken(tx, actor, body));
      set.status = 201;
      return { data: { id, secret } };
    }, {
      scope: 'apiTokens:create', body: tokenCreateSchema(), response: { 201: TokenCreated },
      detail: { tags, summary: 'Create an API token acting as you; the secret is returned once. Every administrator is alerted by email' },
    })
    .post('/:id/revoke', async ({ actor, params }) => ({ data: await runWrite(ctx, (tx) => revokeToken(tx, actor, params.id)) }), {
      scope: 'apiTokens:update', params: IdParam, response: Data(TokenView),
      detail: { tags, summary: "Revoke an API token (another user's needs apiTokens:update at level all); it stops working at once" },
    });
