import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { exceptionsApis } from './api';
import { policyExceptionPages, riskExceptionPages } from './pages';

/** Exceptions of every parent kind: REST and the exceptions registers. */
export const exceptionsModule = (ctx: AppContext) => new Elysia({ name: 'module:exceptions' }).use(exceptionsApis(ctx)).use(riskExceptionPages(ctx)).use(policyExceptionPages(ctx));
import { defineModule } from '../../platform/module';
import { exceptionImports } from './import';
import { exceptionDueDates, exceptionEvents } from './notifications';

/** Exceptions belong to their parent's module: its rights govern them (risks, policies, compliance). */
export const manifest = defineModule({
  name: 'exceptions',
  plugins: (ctx) => [exceptionsModule(ctx)],
  imports: exceptionImports,
  nav: [
    { group: 'Risk', key: 'riskExceptions', href: '/risks/exceptions', label: 'Risk exceptions', needs: 'risks:read' },
    { group: 'Governance', key: 'policyExceptions', href: '/policies/exceptions', label: 'Policy exceptions', needs: 'policies:read' },
  ],
  events: exceptionEvents,
  dueDates: exceptionDueDates,
});
