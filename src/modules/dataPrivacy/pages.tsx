import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { renderScreen } from '../../platform/http/screen';
import { screenAuth } from '../../platform/http/screen-auth';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { readableChoices, recordType } from '../../platform/records/record-types';
import { valueLabel } from '../../platform/core/value-labels';
import { toCsv } from '../../platform/csv/write';
import type { Actor } from '../../platform/permissions/permissions';
import { registerFileName } from './api';
import { articleThirtyRegister, registerCsvRows } from './register';
import {
  DATA_SUBJECT_CATEGORIES, LEGAL_BASES, PERSONAL_DATA_CATEGORIES, PROCESSING_ROLES, PROCESSING_STATUSES, ProcessingActivityCreate, ProcessingActivityUpdate,
  SPECIAL_CATEGORY_CONDITIONS,
} from './schema';
import { LINKED_TYPES, processingActivityKind } from './service';
import { RegisterPrint, RegisterScreen } from './views';

export const PATH = '/data-privacy/processing-activities';

/** Fields holding one stored key each. */
const LABELLED = new Set(['role', 'status', 'legalBasis', 'specialCategoryCondition']);

export const processingActivityPages = (app: AppContext) => {
  /** The records of a linked type the viewer may pick (read right and level). */
  const readable = (kind: string) => (viewer: Actor) => readableChoices(app.db, viewer, recordType(kind));
  return recordPages(app, processingActivityKind, {
    path: PATH,
    title: 'Processing activities',
    singular: 'Processing activity',
    navKey: 'processing-activities',
    Create: ProcessingActivityCreate,
    Update: ProcessingActivityUpdate,
    statuses: PROCESSING_STATUSES,
    searchLabel: 'Search names',
    filters: [{ name: 'role', label: 'Role', options: PROCESSING_ROLES.map((value) => ({ value, label: valueLabel(value) })) }],
    listActions: () => <a class="button secondary" href="/data-privacy/register">Article 30 register</a>,
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, maxlength: 300 },
      { name: 'role', label: 'Role', kind: 'select', options: PROCESSING_ROLES, hint: 'Controller (Art. 30(1)) or processor (Art. 30(2)); blank gives controller' },
      { name: 'status', label: 'Status', kind: 'select', options: PROCESSING_STATUSES, hint: 'Blank gives draft' },
      { name: 'purposes', label: 'Purposes', kind: 'textarea' },
      { name: 'legalBasis', label: 'Legal basis (Art. 6)', kind: 'select', options: LEGAL_BASES, required: true },
      { name: 'dataSubjectCategories', label: 'Categories of data subjects', kind: 'checkboxes', options: DATA_SUBJECT_CATEGORIES },
      { name: 'personalDataCategories', label: 'Categories of personal data', kind: 'checkboxes', options: PERSONAL_DATA_CATEGORIES,
        hint: 'Racial or ethnic origin through sex life or sexual orientation are special categories (Art. 9(1)): they need the condition below' },
      { name: 'specialCategoryCondition', label: 'Art. 9 condition', kind: 'select', options: SPECIAL_CATEGORY_CONDITIONS,
        hint: 'Required when special categories are processed; blank otherwise' },
      { name: 'recipients', label: 'Recipients', kind: 'textarea', hint: 'Categories of recipients, including those in third countries' },
      { name: 'retention', label: 'Retention', kind: 'textarea', hint: 'Time limits for erasure' },
      { name: 'systemAssetIds', label: 'Systems', kind: 'checkboxes', options: readable(LINKED_TYPES.systemAssetIds), hint: 'Assets you may read' },
      { name: 'processorThirdPartyIds', label: 'Processors', kind: 'checkboxes', options: readable(LINKED_TYPES.processorThirdPartyIds), hint: 'Third parties you may read' },
      { name: 'jointControllers', label: 'Joint controllers', kind: 'textarea' },
      { name: 'securityMeasures', label: 'Technical and organisational measures', kind: 'textarea' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (p) => p.name, link: true, sort: 'name' },
      { header: 'Role', value: (p) => valueLabel(p.role), sort: 'role' },
      { header: 'Legal basis', value: (p) => valueLabel(p.legalBasis), sort: 'legalBasis' },
      { header: 'Status', value: (p) => valueLabel(p.status), sort: 'status' },
      ownerColumn(),
    ],
    messages: { created: 'Processing activity recorded.' },
    // History names stored keys by their labels ("legal_obligation" reads "Legal obligation").
    historyNames: async () => (field, value) => (LABELLED.has(field) && typeof value === 'string' ? valueLabel(value) : undefined),
  });
};

/** The Article 30 register: the screen, the printable page and the CSV download, each as the reader may read it. */
export const registerPages = (app: AppContext) =>
  new Elysia({ name: 'pages:data-privacy:register' })
    .use(screenAuth(app))
    .get('/data-privacy', ({ redirect }) => redirect('/data-privacy/register', 303), { page: 'dataPrivacy:read' })
    .get('/data-privacy/register', async ({ viewer, csrfToken, headers }) => {
      const sections = await articleThirtyRegister(app.db, viewer);
      const actions = (
        <>
          <a class="button secondary" href="/data-privacy/register/print">Printable page</a>
          <a class="button secondary" href="/data-privacy/register.csv">Download CSV</a>
        </>
      );
      return renderScreen(headers, { title: 'Article 30 register', viewer, csrfToken, active: 'article-30-register', actions }, <RegisterScreen sections={sections} />);
    }, { page: 'dataPrivacy:read' })
    .get('/data-privacy/register/print', async ({ viewer }) =>
      <RegisterPrint sections={await articleThirtyRegister(app.db, viewer)} drawnUp={new Date().toISOString().slice(0, 10)} />, { page: 'dataPrivacy:read' })
    .get('/data-privacy/register.csv', async ({ viewer, set }) => {
      const sections = await articleThirtyRegister(app.db, viewer);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="${registerFileName()}"`;
      return toCsv(registerCsvRows(sections));
    }, { page: 'dataPrivacy:read' });
