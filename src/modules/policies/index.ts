import { policies } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { policiesApi } from './api';
import { policyPages, policySettingsPages } from './pages';

/** The Policies module as one plugin: REST, screens and Settings › Policy settings (one `.use` keeps the app type shallow). */
export const policiesModule = (ctx: AppContext) =>
  new Elysia({ name: 'module:policies' }).use(policiesApi(ctx)).use(policyPages(ctx)).use(policySettingsPages(ctx));
import { defineModule } from '../../platform/module';
import { policyImport } from './import';
import { listRecords, type ListParams } from '../../platform/records';
import { PolicyListQuery } from './schema';
import { policyKind } from './service';
import { policyDueDates, policyEvents } from './notifications';

export const manifest = defineModule({
  name: 'policies',
  searchSources: [registerSearch({ kind: 'policy', label: 'Policies', module: 'policies', table: policies, title: policies.title, body: policies.description, href: (id) => `/policies/${id}` })],
  permissions: 'policies',
  plugins: (ctx) => [policiesModule(ctx)],
  imports: [policyImport],
  nav: [
    { group: 'Governance', key: 'policies', href: '/policies', label: 'Policies', needs: 'policies:read' },
    { group: 'Settings', key: 'policy-settings', href: '/settings/policies', label: 'Policy settings', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['policies'],
  assistantTools: [{
    name: 'list_policies', title: 'List policies', readOnly: true, input: PolicyListQuery,
    description: 'Policies you may read, paged; the filters of GET /api/v1/policies (status, ownerId, q, sort).',
    run: (ctx, actor, args) => listRecords(ctx.db, policyKind, actor, args as ListParams),
  }],
  events: policyEvents,
  dueDates: policyDueDates,
});
