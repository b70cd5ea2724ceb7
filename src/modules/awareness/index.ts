import { eq, sql } from 'drizzle-orm';
import { awarenessPrograms, awarenessResults, users } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { kindEvents } from '../../platform/notifications/declarations';
import { registerType } from '../../platform/records/record-types';
import { programsApi, resultsApi } from './api';
import { awarenessPages } from './pages';
import { awarenessDueDates } from './notifications';
import { programKind, RESULT_RECORD_TYPE, startDueRounds } from './service';

/** Awareness: programs with content and an optional test, assigned to an audience, results per person (docs/awareness.md). */
export const manifest: ModuleManifest<'awareness'> = defineModule({
  name: 'awareness',
  apiTags: {
    Awareness: 'Awareness programs, their tests scored by the service, and results per person.',
  },
  recordTypes: [registerType(programKind, {
    kind: 'awarenessProgram', plural: 'Awareness programs', href: (id) => `/awareness/programs/${id}`, read: true,
  }), {
    // A person's result in a program, as History and the Audit Log name it (by the person): read as its program is.
    kind: RESULT_RECORD_TYPE, label: 'Awareness result', plural: 'Awareness results', module: 'awareness',
    table: awarenessResults, id: awarenessResults.id, title: sql<string>`coalesce((select ${users.name} from ${users} where ${users.id} = ${awarenessResults.personId}), '(deleted)')`,
    ownerId: awarenessPrograms.ownerId, ownerGroupId: awarenessPrograms.ownerGroupId,
    join: { table: awarenessPrograms, on: eq(awarenessPrograms.id, awarenessResults.programId) },
    href: (id) => `/awareness/results/${id}`,
    links: { programId: 'awarenessProgram' },
  }],
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
