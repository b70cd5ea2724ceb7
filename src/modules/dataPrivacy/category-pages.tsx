import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { renderScreen } from '../../platform/http/screen';
import { screenAuth } from '../../platform/http/screen-auth';
import { nameListApi } from '../../platform/name-lists/name-list-api';
import { nameListPages, nameListSection, type NameListScreenOptions, type NameListState, type ScreenRequest } from '../../platform/name-lists/name-list-screen';
import { TAG } from './api';
import { dataSubjectCategoryList, personalDataCategoryList } from './categories';

/** The category lists' REST routes and Settings › Privacy categories (categories.ts says what they hold). */

export const categoryApis = (ctx: AppContext) => [
  nameListApi(ctx, dataSubjectCategoryList, { prefix: '/api/v1/data-privacy/data-subject-categories', tag: TAG }),
  nameListApi(ctx, personalDataCategoryList, { prefix: '/api/v1/data-privacy/personal-data-categories', tag: TAG }),
];

export const CATEGORY_SETTINGS_PATH = '/settings/data-privacy';
const PAGE_TITLE = 'Privacy categories';

const subjectOptions: Omit<NameListScreenOptions, 'render'> = {
  path: CATEGORY_SETTINGS_PATH, anchor: 'data-subject-categories', heading: 'Categories of data subjects', noun: 'category of data subjects', idPrefix: 'f-subjects',
  empty: 'No categories of data subjects. Processing activities name theirs from this list; add one below.',
};
const personalOptions: Omit<NameListScreenOptions, 'render'> = {
  path: CATEGORY_SETTINGS_PATH, anchor: 'personal-data-categories', heading: 'Categories of personal data', noun: 'category of personal data', idPrefix: 'f-personal',
  empty: 'No categories of personal data. Processing activities and assets name theirs from this list; add one below.',
};

/** The Settings screen with both lists; a refusal in one shows it inside that list's section. */
async function categorySettings(ctx: AppContext, request: ScreenRequest, states: { subjects?: NameListState; personal?: NameListState }): Promise<JSX.Element> {
  const { viewer, csrfToken, headers } = request;
  const [subjects, personal] = await Promise.all([
    nameListSection(ctx, dataSubjectCategoryList, subjectOptions, viewer, csrfToken, states.subjects),
    nameListSection(ctx, personalDataCategoryList, personalOptions, viewer, csrfToken, states.personal),
  ]);
  return renderScreen(headers, { title: PAGE_TITLE, viewer, csrfToken, active: 'privacy-categories' },
    <>
      <p class="muted">
        The categories records of processing (GDPR Art. 30(1)(c)) and assets' data-map fields choose from. Renaming a category
        keeps every record that names it; a category in use cannot be deleted. Racial or ethnic origin, political opinions,
        religious or philosophical beliefs, trade union membership, genetic, biometric and health data and sex life or sexual
        orientation are the special categories of Art. 9(1) whatever they are renamed to: processing them needs an Art. 9(2) condition.
      </p>
      {subjects}
      {personal}
    </>);
}

/** Settings › Privacy categories: the screen (settings:read) and the forms of both lists. */
export const categoryPages = (ctx: AppContext) => {
  const screen = (state: { subjects?: NameListState; personal?: NameListState }) => (request: ScreenRequest) => categorySettings(ctx, request, state);
  return new Elysia({ name: 'pages:data-privacy:categories' })
    .use(screenAuth(ctx))
    .get(CATEGORY_SETTINGS_PATH, ({ viewer, csrfToken, headers, query }) => {
      const done = typeof query.done === 'string' ? query.done : undefined;
      return categorySettings(ctx, { viewer, csrfToken, headers }, { subjects: { done }, personal: { done } });
    }, { page: 'settings:read' })
    .use(nameListPages(ctx, dataSubjectCategoryList, { ...subjectOptions, render: (request, state) => screen({ subjects: state })(request) }))
    .use(nameListPages(ctx, personalDataCategoryList, { ...personalOptions, render: (request, state) => screen({ personal: state })(request) }));
};
