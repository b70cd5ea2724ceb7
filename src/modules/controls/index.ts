import { controls } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { controlsApi } from './api';
import { controlImport } from './import';
import { controlPages } from './pages';
import { listRecords, type ListParams } from '../../platform/records';
import { ControlListQuery } from './schema';
import { controlKind } from './service';
import { controlDueDates, controlEvents } from './notifications';

/** Controls and their tests. */
export const manifest = defineModule({
  name: 'controls',
  searchSources: [registerSearch({ kind: 'control', label: 'Controls', module: 'controls', table: controls, title: controls.name, body: controls.description, href: (id) => `/controls/${id}` })],
  permissions: 'controls',
  plugins: (ctx) => [controlsApi(ctx), controlPages(ctx)],
  imports: [controlImport],
  nav: [{ group: 'Compliance', key: 'controls', href: '/controls', label: 'Controls', needs: 'controls:read' }],
  customFields: true,
  countedTables: ['controls'],
  assistantTools: [{
    name: 'list_controls', title: 'List controls', readOnly: true, input: ControlListQuery,
    description: 'Controls you may read, paged; the filters of GET /api/v1/controls (status, type, ownerId, q, sort).',
    run: (ctx, actor, args) => listRecords(ctx.db, controlKind, actor, args as ListParams),
  }],
  events: controlEvents,
  dueDates: controlDueDates,
});
