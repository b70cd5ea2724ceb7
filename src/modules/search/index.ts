import { Elysia, t } from 'elysia';
import { apiAuth } from '../../platform/http/api-auth';
import type { AppContext } from '../../platform/http/context';
import { Data } from '../../platform/http/envelopes';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { defineTool } from '../../platform/modules/tools';
import { search, searchKinds, searchReads } from '../../platform/search/search';
import { searchPages } from './pages';
import { SearchHitView, SearchQuery } from './schema';

export const runSearch = (ctx: AppContext, actor: Parameters<typeof search>[1], query: SearchQuery) =>
  search(ctx.db, actor, { q: query.q, limit: query.limit, kinds: query.kinds?.split(',') });

const searchApi = (ctx: AppContext) => {
  const reads = searchReads();
  return new Elysia({ name: 'api:search' }).use(apiAuth(ctx))
    .get('/api/v1/search', async ({ actor, query }) => ({ data: await runSearch(ctx, actor, query) }), {
      scopeAnyOf: reads, query: SearchQuery, response: Data(t.Array(SearchHitView)),
      detail: {
        tags: ['Search'], summary: 'Search the registers you may read (full text and codes), best matches first',
        security: [{ bearerAuth: [] }], 'x-required-scope': reads[0], 'x-required-scopes-any-of': reads,
        description: 'Needs the read scope of at least one register; each register is searched only with its read scope and right (own level included).',
      },
    });
};

/** Search across the registers (the record types their manifests declare searchable): REST, the screens' search box and the assistant tool. */
export const manifest: ModuleManifest = defineModule({
  name: 'search',
  apiTags: {
    Search: 'Full-text and code search across the registers you may read (docs/search.md).',
  },
  plugins: (ctx) => [searchApi(ctx), searchPages(ctx)],
  assistantTools: () => [defineTool({
    name: 'search', title: 'Search records', readOnly: true, input: SearchQuery, needs: { anyOf: searchReads() },
    description: `Full-text search over the ${searchKinds().map((k) => k.label.toLowerCase()).join(', ')} you may read; matches codes such as "AC-2" too. Results: kind, id, title, a snippet with matches between **, rank. Read one with get_record.`,
    run: (ctx, actor, args) => runSearch(ctx, actor, args),
  })],
});
