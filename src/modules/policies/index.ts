import { exceptions, policies, policyApprovals, policyReviews, policyVersions } from '../../../db/schema';
import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { policiesApi } from './api';
import { policyPages, policySettingsPages } from './pages';

/** The Policies module as one plugin: REST, screens and Settings › Policy settings (one `.use` keeps the app type shallow). */
export const policiesModule = (ctx: AppContext) =>
  new Elysia({ name: 'module:policies' }).use(policiesApi(ctx)).use(policyPages(ctx)).use(policySettingsPages(ctx));
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { policyDueSoon } from './dashboard';
import { defineTool } from '../../platform/modules/tools';
import { registerType } from '../../platform/records/record-types';
import { policyImport } from './import';
import { listRecords } from '../../platform/records/records';
import { PolicyListQuery } from './schema';
import { policyKind } from './service';
import { policyDueDates, policyEvents } from './notifications';

export const manifest: ModuleManifest<'policies'> = defineModule({
  name: 'policies',
  apiTags: {
    Policies: 'Policies with Markdown content, immutable published versions, reviews and approvals recorded outside the app; CSV import and batch operations (docs/policies.md).',
  },
  permissions: permissionArea('policies', { review: true }),
  plugins: (ctx) => [policiesModule(ctx)],
  imports: [policyImport],
  nav: [
    { group: 'Governance', key: 'policies', href: '/policies', label: 'Policies', needs: 'policies:read' },
    { group: 'Settings', key: 'policy-settings', href: '/settings/policies', label: 'Policy settings', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['policies'],
  recordTypes: [registerType(policyKind, {
    kind: 'policy', plural: 'Policies', href: (id) => `/policies/${id}`, evidence: true, search: { body: policies.description }, read: true,
    // A policy's History shows its published versions, reviews, approvals and exceptions.
    historyParts: [
      { historyType: 'policyVersion', table: policyVersions, id: policyVersions.id, parentId: policyVersions.policyId },
      { historyType: 'policyReview', table: policyReviews, id: policyReviews.id, parentId: policyReviews.policyId },
      { historyType: 'policyApproval', table: policyApprovals, id: policyApprovals.id, parentId: policyApprovals.policyId },
      { historyType: 'policyException', table: exceptions, id: exceptions.id, parentId: exceptions.policyId },
    ],
  })],
  assistantTools: () => [defineTool({
    name: 'list_policies', title: 'List policies', readOnly: true, input: PolicyListQuery, needs: { allOf: ['policies:read'] },
    description: 'Policies you may read, paged; the filters of GET /api/v1/policies (status, ownerId, q, sort).',
    run: (ctx, actor, args) => listRecords(ctx.db, policyKind, actor, args),
  })],
  events: policyEvents,
  dueDates: policyDueDates,
  dueSoon: policyDueSoon,
});
