import { awarenessPrograms } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { kindEvents } from '../../platform/notifications/declarations';
import { registerType } from '../../platform/records/record-types';
import { programsApi, resultsApi } from './api';
import { awarenessPages } from './pages';
import { awarenessDueDates } from './notifications';
import { programKind, startDueRounds } from './service';

/** Awareness: programs with content and an optional test, assigned to an audience, results per person (docs/awareness.md). */
export const manifest: ModuleManifest<'awareness'> = defineModule({
  name: 'awareness',
  apiTags: {
    Awareness: 'Awareness programs, their tests scored by the service, and results per person.',
  },
  recordTypes: [registerType(programKind, {
    kind: 'awarenessProgram', plural: 'Awareness programs', href: (id) => `/awareness/programs/${id}`, read: true,
  })],
  permissions: permissionArea('awareness'),
  plugins: (ctx) => [programsApi(ctx), resultsApi(ctx), awarenessPages(ctx)],
  nav: [
    { group: 'Governance', key: 'awareness', href: '/awareness/programs', label: 'Awareness programs', needs: 'awareness:read' },
    { group: 'Overview', key: 'awarenessMine', href: '/awareness/my', label: 'My training' },
  ],
  countedTables: ['awareness_programs'],
  events: [kindEvents(programKind)],
  dueDates: awarenessDueDates,
  sweep: (tx) => startDueRounds(tx),
});
