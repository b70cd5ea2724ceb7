import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { customFieldsApi } from './api';
import { customFieldPages } from './pages';

/** Custom fields as one plugin: REST under /api/v1/custom-fields and Settings › Custom fields. */
export const customFieldsModule = (ctx: AppContext) =>
  new Elysia({ name: 'module:customFields' }).use(customFieldsApi(ctx)).use(customFieldPages(ctx));
