import { riskClassifications, risks } from '../../../db/schema';
import type { AppContext } from '../../platform/http/context';
import { defineNameList } from '../../platform/name-lists/name-list';
import { nameListApi } from '../../platform/name-lists/name-list-api';
import { nameListPages, nameListSection, type NameListScreenOptions, type NameListState } from '../../platform/name-lists/name-list-screen';
import type { Actor } from '../../platform/permissions/permissions';

/**
 * Risk classifications: a name list (src/platform/name-lists) at /api/v1/risk-classifications and in the
 * Classifications section of Settings › Risk settings. Read with risks:read (or settings:read), changed with
 * Settings rights; risks must always carry one, so one in use is not deleted.
 */
export const riskClassificationList = defineNameList({
  recordType: 'risk_classification',
  label: 'Risk classification',
  plural: 'Risk classifications',
  table: riskClassifications,
  readers: 'risks:read',
  usedBy: {
    table: risks, column: risks.classificationId, one: 'risk', many: 'risks',
    countField: 'riskCount', countDescription: 'How many risks use this classification (such a classification cannot be deleted)',
  },
});

/** Every classification by name, for pickers and filters (a handful of rows, never paged). */
export const classificationOptions = riskClassificationList.options;

export const riskClassificationsApi = (ctx: AppContext) =>
  nameListApi(ctx, riskClassificationList, { prefix: '/api/v1/risk-classifications', tag: 'Risk settings' });

const screenOptions: Omit<NameListScreenOptions, 'render'> = {
  path: '/settings/risks', anchor: 'classifications', heading: 'Classifications', noun: 'classification',
  empty: 'No classifications. Risks need one; add one below.',
};

/** The Classifications section of Risk settings as this viewer sees it. */
export const riskClassificationSection = (ctx: AppContext, viewer: Actor, csrfToken: string, state: NameListState = {}) =>
  nameListSection(ctx, riskClassificationList, screenOptions, viewer, csrfToken, state);

/** The section's forms; a refusal shows the whole Risk settings screen again (`render`). */
export const riskClassificationPages = (ctx: AppContext, render: NonNullable<NameListScreenOptions['render']>) =>
  nameListPages(ctx, riskClassificationList, { ...screenOptions, render });
