import { Elysia } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import type { AppContext } from '../../platform/http/context';
import { pageEnvelope } from '../../platform/http/paging';
import { listPoam } from './poam-service';
import { PoamItem, PoamQuery } from './schema';

/** The item shape, for readers of this route's answers (the schema itself lives in ./schema). */
export type { PoamItem } from './schema';

export const poamApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:poam', prefix: '/api/v1/compliance' })
    .use(apiAuth(ctx))
    .get('/poam', async ({ actor, query }) => ({ data: await listPoam(ctx.db, actor, query) }), {
      scope: 'compliance:read', query: PoamQuery, response: pageEnvelope(PoamItem),
      detail: {
        tags: ['Compliance POA&M'],
        summary: 'The POA&M register, read only: open weaknesses from non-compliant analyses, audit findings not closed and failed control tests '
          + '(filters status, severity, source, overdue; each source limited to what you can read, audits and controls need their read scope too)',
      },
    });
