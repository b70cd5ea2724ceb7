import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { accountReviewsApi } from './api';
import { accountReviewPages } from './pages';

/** Account reviews: review programs and their items, over REST and on screens. */
export const accountReviewsModule = (ctx: AppContext) =>
  new Elysia({ name: 'module:accountReviews' }).use(accountReviewsApi(ctx)).use(accountReviewPages(ctx));
