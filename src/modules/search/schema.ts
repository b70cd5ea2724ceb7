import { t, type Static } from 'elysia';
import { SEARCH_LIMIT } from '../../platform/search/search';

export const SearchQuery = t.Object({
  q: t.String({ minLength: 1, maxLength: 200, description: 'Words (web search syntax: "quoted phrase", or, -word), a code such as AC-2, or part of a title' }),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: SEARCH_LIMIT.max, default: SEARCH_LIMIT.default })),
  kinds: t.Optional(t.String({ maxLength: 300, pattern: '^[A-Za-z]+(,[A-Za-z]+)*$', description: 'Only these kinds, comma-separated: risk, control, policy, requirement, thirdParty, asset, auditPlan, auditFinding, incident, project, businessUnit, evidence' })),
}, { additionalProperties: false });
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchHitView = t.Object({
  kind: t.String(),
  id: t.String(),
  title: t.String(),
  snippet: t.String({ description: 'Text around the matches, each match between **' }),
  rank: t.Number(),
  href: t.String({ description: "Path of the record's screen" }),
});
