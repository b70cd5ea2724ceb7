import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { recordApi } from '../../platform/records/record-api';
import {
  AuditPlanCreate, AuditPlanListQuery, AuditPlanUpdate, AuditPlanView, FindingCreate, FindingListQuery, FindingUpdate, FindingView,
} from './schema';
import { auditPlanKind, findingKind } from './service';

/** Audit plans at /audits and their findings at /audits/findings (the router matches that static path before /audits/:id). */
export const auditsApi = (ctx: AppContext) =>
  new Elysia({ name: 'api:audits' })
    .use(recordApi(ctx, auditPlanKind, {
      path: '/audits', tag: 'Audits', plural: 'audit plans',
      Create: AuditPlanCreate, Update: AuditPlanUpdate, View: AuditPlanView, ListQuery: AuditPlanListQuery,
    }))
    .use(recordApi(ctx, findingKind, {
      path: '/audits/findings', tag: 'Audits', plural: 'audit findings',
      Create: FindingCreate, Update: FindingUpdate, View: FindingView, ListQuery: FindingListQuery,
    }));
