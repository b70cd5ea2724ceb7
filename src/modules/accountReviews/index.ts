import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { accountReviewsApi } from './api';
import { accountReviewPages } from './pages';

/** Account reviews: review programs and their items, over REST and on screens. */
export const accountReviewsModule = (ctx: AppContext) =>
  new Elysia({ name: 'module:accountReviews' }).use(accountReviewsApi(ctx)).use(accountReviewPages(ctx));
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { registerType } from '../../platform/records/record-types';
import { eq, sql } from 'drizzle-orm';
import { accountReviewItems, accountReviewPrograms } from '../../../db/schema';
import { ITEM_RECORD_TYPE, programKind } from './service';
import { accountReviewDueDates, accountReviewEvents } from './notifications';
import { accountReviewReports } from './reports';

export const manifest: ModuleManifest<'accountReviews'> = defineModule({
  name: 'accountReviews',
  apiTags: {
    'Account reviews': 'Review programs and the accounts reviewed in them, with keep, revoke or modify decisions; CSV import of items (docs/account-reviews.md).',
  },
  permissions: permissionArea('accountReviews'),
  plugins: (ctx) => [accountReviewsModule(ctx)],
  nav: [{ group: 'Operations', key: 'accountReviews', href: '/account-reviews', label: 'Account reviews', needs: 'accountReviews:read' }],
  countedTables: ['account_review_programs'],
  recordTypes: [registerType(programKind, { kind: 'accountReviewProgram', plural: 'Account review programs', href: (id) => `/account-reviews/${id}` }), {
    // An account reviewed in a program, as History and the Audit Log name it: read as its program is.
    kind: ITEM_RECORD_TYPE, label: 'Account review item', plural: 'Account review items', module: 'accountReviews',
    table: accountReviewItems, id: accountReviewItems.id, title: sql<string>`(${accountReviewItems.account} || ' on ' || ${accountReviewItems.system})`,
    ownerId: accountReviewPrograms.ownerId, ownerGroupId: accountReviewPrograms.ownerGroupId,
    join: { table: accountReviewPrograms, on: eq(accountReviewPrograms.id, accountReviewItems.programId) },
    href: (id) => `/account-reviews/items/${id}`,
    links: { programId: 'accountReviewProgram' },
  }],
  events: accountReviewEvents,
  dueDates: accountReviewDueDates,
  reports: accountReviewReports,
});
