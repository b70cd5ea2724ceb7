import { Elysia, t, type Static } from 'elysia';
import { apiAuth } from '../../platform/api-auth';
import type { AppContext } from '../../platform/context';
import { PageQuery, pageEnvelope } from '../../platform/paging';
import { stringEnum } from '../../platform/schema-helpers';
import { listPoam } from './poam-service';

export const POAM_SOURCES = ['compliance', 'audit', 'controlTest'] as const;
export type PoamSource = (typeof POAM_SOURCES)[number];
export const POAM_SEVERITIES = ['high', 'medium', 'low'] as const;
export type PoamSeverity = (typeof POAM_SEVERITIES)[number];
export const POAM_STATUSES = ['open', 'in_remediation'] as const;

export const PoamItem = t.Object({
  id: t.String({ description: '<source>:<sourceId>' }),
  source: stringEnum(POAM_SOURCES),
  sourceId: t.String({ description: 'The analysis, audit finding or control test' }),
  title: t.String(),
  reference: t.String({ description: 'The package, audit plan or control' }),
  weakness: t.String({ description: 'What is wrong: the analysis status, "audit finding", or the failed test' }),
  severity: stringEnum(POAM_SEVERITIES),
  status: stringEnum(POAM_STATUSES),
  dueDate: t.Union([t.String(), t.Null()]),
  overdue: t.Boolean({ description: 'dueDate is before today (UTC)' }),
  owner: t.Union([t.String(), t.Null()]),
  link: t.String({ description: 'Screen address of the source record' }),
});
export type PoamItem = Static<typeof PoamItem>;

export const PoamQuery = t.Object({
  ...PageQuery.properties,
  status: t.Optional(stringEnum(POAM_STATUSES)),
  severity: t.Optional(stringEnum(POAM_SEVERITIES)),
  source: t.Optional(stringEnum(POAM_SOURCES)),
  overdue: t.Optional(stringEnum(['true', 'false'] as const)),
});
export type PoamQuery = Static<typeof PoamQuery>;

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
