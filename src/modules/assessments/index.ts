import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { requestsApi, templatesApi } from './api';
import { assessmentPages, thirdPartyAssessmentsSection } from './pages';
import { assessPages, assessUploadLimit } from './public-pages';
import { assessmentDueDates, assessmentEvents, assessmentRecordTypes } from './declarations';

/**
 * Assessments: questionnaire templates (versioned), questionnaires sent to one address and answered at /assess/<token>
 * without an account, reviewed and scored here (docs/assessments.md).
 */
export const manifest: ModuleManifest<'assessments'> = defineModule({
  name: 'assessments',
  apiTags: {
    Assessments: 'Questionnaire templates and the questionnaires sent from them: answered at a link without an account, scored, reviewed, turned into findings or risks.',
  },
  recordTypes: assessmentRecordTypes,
  permissions: permissionArea('assessments'),
  plugins: (ctx) => [templatesApi(ctx), requestsApi(ctx), assessmentPages(ctx), assessPages(ctx)],
  uploads: () => [assessUploadLimit],
  nav: [
    { group: 'Assets and vendors', key: 'assessments', href: '/assessments/requests', label: 'Questionnaires', needs: 'assessments:read' },
  ],
  events: assessmentEvents,
  dueDates: assessmentDueDates,
  sections: (type) => (type.kind === 'thirdParty' ? thirdPartyAssessmentsSection : null),
});
