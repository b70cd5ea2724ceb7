import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { exceptionsApis } from './api';
import { policyExceptionPages, riskExceptionPages } from './pages';

/** Exceptions of every parent kind: REST and the exceptions registers. */
export const exceptionsModule = (ctx: AppContext) => new Elysia({ name: 'module:exceptions' }).use(exceptionsApis(ctx)).use(riskExceptionPages(ctx)).use(policyExceptionPages(ctx));
