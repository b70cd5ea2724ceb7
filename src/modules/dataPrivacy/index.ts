import { processingActivities } from '../../../db/schema';
import { defineModule } from '../../platform/modules/module';
import { kindEvents } from '../../platform/notifications/declarations';
import { registerType } from '../../platform/records/record-types';
import { processingActivitiesApi, registerApi, TAG } from './api';
import { PATH, processingActivityPages, registerPages } from './pages';
import { processingActivityKind } from './service';

/** Data privacy: records of processing (GDPR Art. 30) and the Article 30 register (docs/data-privacy.md). */
export const manifest = defineModule({
  name: 'dataPrivacy',
  apiTags: {
    [TAG]: 'Records of processing activities (GDPR Art. 30) and the Article 30 register.',
  },
  permissions: 'dataPrivacy',
  // Personal-data records: the assistant endpoint reaches them only while Include privacy records is on.
  privacyRecords: true,
  plugins: (ctx) => [processingActivitiesApi(ctx), registerApi(ctx), processingActivityPages(ctx), registerPages(ctx)],
  nav: [
    { group: 'Privacy', key: 'processing-activities', href: PATH, label: 'Processing activities', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'article-30-register', href: '/data-privacy/register', label: 'Article 30 register', needs: 'dataPrivacy:read' },
  ],
  customFields: true,
  countedTables: ['processing_activities'],
  recordTypes: [registerType(processingActivityKind, {
    kind: 'processingActivity', plural: 'Processing activities', href: (id) => `${PATH}/${id}`,
    evidence: true, search: { body: processingActivities.purposes }, read: true,
  })],
  events: [kindEvents(processingActivityKind, { href: (id) => `${PATH}/${id}` })],
});
