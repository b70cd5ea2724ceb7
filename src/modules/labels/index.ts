import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { labelsApi } from './api';
import { labelPages } from './pages';

/** Labels: REST and the Settings › Labels screen. */
export const labelsModule = (ctx: AppContext) => new Elysia({ name: 'module:labels' }).use(labelsApi(ctx)).use(labelPages(ctx));
