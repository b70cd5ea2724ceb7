import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { policiesApi } from './api';
import { policyPages, policySettingsPages } from './pages';

/** The Policies module as one plugin: REST, screens and Settings › Policy settings (one `.use` keeps the app type shallow). */
export const policiesModule = (ctx: AppContext) =>
  new Elysia({ name: 'module:policies' }).use(policiesApi(ctx)).use(policyPages(ctx)).use(policySettingsPages(ctx));
