import { dpias, processingActivities } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { kindEvents } from '../../platform/notifications/declarations';
import { registerType } from '../../platform/records/record-types';
import { dpiasApi, processingActivitiesApi, registerApi, TAG } from './api';
import { dpiaKind } from './dpia-service';
import { DPIA_PATH, dpiaPages, PATH, processingActivityPages, registerPages } from './pages';
import { processingActivityKind } from './service';

/** Data privacy: records of processing (GDPR Art. 30), the Article 30 register and DPIAs (Art. 35) (docs/data-privacy.md). */
export const manifest: ModuleManifest<'dataPrivacy'> = defineModule({
  name: 'dataPrivacy',
  apiTags: {
    [TAG]: 'Records of processing activities (GDPR Art. 30), the Article 30 register and DPIAs (Art. 35).',
  },
  permissions: permissionArea('dataPrivacy', { review: true }),
  // Personal-data records: the assistant endpoint reaches them only while Include privacy records is on.
  privacyRecords: true,
  plugins: (ctx) => [processingActivitiesApi(ctx), registerApi(ctx), dpiasApi(ctx), processingActivityPages(ctx), registerPages(ctx), dpiaPages(ctx)],
  nav: [
    { group: 'Privacy', key: 'processing-activities', href: PATH, label: 'Processing activities', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'dpias', href: DPIA_PATH, label: 'DPIAs', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'article-30-register', href: '/data-privacy/register', label: 'Article 30 register', needs: 'dataPrivacy:read' },
  ],
  customFields: true,
  countedTables: ['processing_activities', 'dpias'],
  recordTypes: [registerType(processingActivityKind, {
    kind: 'processingActivity', plural: 'Processing activities', href: (id) => `${PATH}/${id}`,
    evidence: true, search: { body: processingActivities.purposes }, read: true,
  }), registerType(dpiaKind, {
    kind: 'dpia', plural: 'DPIAs', href: (id) => `${DPIA_PATH}/${id}`,
    evidence: true, search: { body: dpias.description }, read: true,
  })],
  events: [kindEvents(processingActivityKind), kindEvents(dpiaKind)],
});
