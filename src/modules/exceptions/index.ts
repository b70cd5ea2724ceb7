import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { exceptionsApis } from './api';
import { policyExceptionPages, riskExceptionPages } from './pages';

/** Exceptions of every parent kind: REST and the exceptions registers. */
export const exceptionsModule = (ctx: AppContext) => new Elysia({ name: 'module:exceptions' }).use(exceptionsApis(ctx)).use(riskExceptionPages(ctx)).use(policyExceptionPages(ctx));
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { exceptionDueSoon } from './dashboard';
import { exceptions } from '../../../db/schema';
import type { RecordTypeDeclaration } from '../../platform/records/record-types';
import { exceptionImports } from './import';
import { EXCEPTION_PARENTS, type ExceptionParent } from './parents';
import { exceptionsToDecide } from './service';
import { exceptionDueDates, exceptionEvents } from './notifications';
import { exceptionReports } from './reports';

/**
 * Exceptions of each parent kind, as record types: read with the parent's module right. (Their own level also
 * follows the parent's owner, which one owner pair cannot say: names of exceptions elsewhere use the exception's own.)
 */
const exceptionType = (parent: ExceptionParent): RecordTypeDeclaration => {
  const noun = parent.type === 'compliance' ? 'Compliance' : parent.label;
  return {
    kind: parent.recordType, label: `${noun} exception`, plural: `${noun} exceptions`, module: parent.module,
    table: exceptions, id: exceptions.id, title: exceptions.title, ownerId: exceptions.ownerId, ownerGroupId: exceptions.ownerGroupId,
    // Risk and policy exceptions have pages of their own; a compliance exception is shown on its requirement's page.
    href: (id) => (parent.type === 'compliance' ? '/compliance/packages' : `${parent.path}/${id}`),
    openItems: { key: 'exceptionsToDecide', list: (ctx, actor) => exceptionsToDecide(ctx.db, parent, actor) },
  };
};

/** Exceptions belong to their parent's module: its rights govern them (risks, policies, compliance). */
export const manifest: ModuleManifest = defineModule({
  name: 'exceptions',
  apiTags: {
    'Risk exceptions': 'Exceptions to risks: requested, then approved or rejected by their approver, until they expire (docs/exceptions.md).',
    'Policy exceptions': 'Exceptions to policies: requested, then approved or rejected by their approver, until they expire (docs/exceptions.md).',
    'Requirement exceptions': 'Exceptions to compliance requirements (on their analyses): requested, then approved or rejected, until they expire (docs/exceptions.md).',
    'Compliance exceptions': 'CSV import of requirement exceptions, each row naming its package and requirement code; they arrive as requested.',
  },
  plugins: (ctx) => [exceptionsModule(ctx)],
  imports: exceptionImports,
  recordTypes: EXCEPTION_PARENTS.map(exceptionType),
  nav: [
    { group: 'Risk', key: 'riskExceptions', href: '/risks/exceptions', label: 'Risk exceptions', needs: 'risks:read' },
    { group: 'Governance', key: 'policyExceptions', href: '/policies/exceptions', label: 'Policy exceptions', needs: 'policies:read' },
  ],
  events: exceptionEvents,
  dueDates: exceptionDueDates,
  dueSoon: exceptionDueSoon,
  reports: exceptionReports,
});
