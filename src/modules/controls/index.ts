import { eq, sql } from 'drizzle-orm';
import { controls, controlTests } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { controlDueSoon } from './dashboard';
import { defineTool } from '../../platform/modules/tools';
import { registerType } from '../../platform/records/record-types';
import { controlsApi } from './api';
import { controlImport } from './import';
import { controlPages } from './pages';
import { getRecord, listRecords } from '../../platform/records/records';
import { ControlListQuery } from './schema';
import { controlKind, controlTesting, controlTestsDue } from './service';
import { controlDueDates, controlEvents } from './notifications';
import { controlReports } from './reports';
import { controlSections } from './linked-sections';

/** Controls and their tests. */
export const manifest: ModuleManifest<'controls'> = defineModule({
  name: 'controls',
  apiTags: {
    Controls: 'Controls with type, status, owner and testing schedule, and their tests; CSV import and batch operations.',
  },
  permissions: permissionArea('controls'),
  plugins: (ctx) => [controlsApi(ctx), controlPages(ctx)],
  imports: [controlImport],
  nav: [{ group: 'Compliance', key: 'controls', href: '/controls', label: 'Controls', needs: 'controls:read' }],
  customFields: true,
  countedTables: ['controls'],
  sections: controlSections,
  recordTypes: [
    registerType(controlKind, {
      kind: 'control', plural: 'Controls', href: (id) => `/controls/${id}`, evidence: true, search: { body: controls.description },
      read: async (ctx, actor, id) => ({ ...(await getRecord(ctx.db, controlKind, actor, id)), testing: await controlTesting(ctx.db, actor, id) }),
      openItems: { key: 'controlTestsDue', list: (ctx, actor) => controlTestsDue(ctx.db, actor) },
    }),
    {
      // A test is part of its control: its owner is the control's, and it is shown on the control's page.
      kind: 'controlTest', label: 'Control test', plural: 'Control tests', module: 'controls',
      table: controlTests, id: controlTests.id, title: sql<string>`${controls.name} || ' — test of ' || ${controlTests.testedOn}::text`,
      ownerId: controls.ownerId, ownerGroupId: controls.ownerGroupId, join: { table: controls, on: eq(controls.id, controlTests.controlId) },
      parent: { kind: 'control', id: controlTests.controlId }, href: (_id, controlId) => `/controls/${controlId}`, evidence: true,
    },
  ],
  assistantTools: () => [defineTool({
    name: 'list_controls', title: 'List controls', readOnly: true, input: ControlListQuery, needs: { allOf: ['controls:read'] },
    description: 'Controls you may read, paged; the filters of GET /api/v1/controls (status, type, ownerId, q, sort).',
    run: (ctx, actor, args) => listRecords(ctx.db, controlKind, actor, args),
  })],
  events: controlEvents,
  dueDates: controlDueDates,
  dueSoon: controlDueSoon,
  reports: controlReports,
});
