import { dpias, privacyQuestionnaires, privacyTransfers, processingActivities, processingActivityReviews, transferImpactAssessments } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { kindEvents, ownedRecordEvents } from '../../platform/notifications/declarations';
import { registerType } from '../../platform/records/record-types';
import { dataMapApi, dpiasApi, processingActivitiesApi, registerApi, TAG, tiasApi, transfersApi } from './api';
import { assetPrivacySection, dataMapPages, thirdPartyPrivacySections } from './data-map-pages';
import { tiaPages, transferPages } from './transfer-pages';
import { TIA_PATH, tiaDueDates, tiaKind, TRANSFER_PATH, transferKind } from './transfer-service';
import { dpiaKind } from './dpia-service';
import { DPIA_PATH, dpiaPages, PATH, processingActivityPages, registerPages } from './pages';
import { processingActivityKind } from './service';
import {
  processingActivityDueSoon, processingActivityReviewDueDates, processingActivityReviewEvents, REVIEW_TYPE,
} from './review-service';
import { controlProcessingActivities } from './control-links';
import { questionnairesApi } from './questionnaire-api';
import { questionnairePages } from './questionnaire-pages';
import {
  getQuestionnaire, MY_QUESTIONNAIRES_PATH, QUESTIONNAIRE_PATH, QUESTIONNAIRE_TYPE, questionnaireDueDates, questionnairesWaitingOn,
} from './questionnaire-service';
import { CATEGORY_SETTINGS_PATH, categoryApis, categoryPages } from './category-pages';
import { dataPrivacyReports } from './reports';

/** Data privacy: records of processing (GDPR Art. 30), the Article 30 register and DPIAs (Art. 35) (docs/data-privacy.md). */
export const manifest: ModuleManifest<'dataPrivacy'> = defineModule({
  name: 'dataPrivacy',
  apiTags: {
    [TAG]: 'Records of processing activities (GDPR Art. 30), the Article 30 register, DPIAs (Art. 35), transfers outside the EEA and transfer impact assessments.',
  },
  permissions: permissionArea('dataPrivacy', { review: true }),
  // Personal-data records: the assistant endpoint reaches them only while Include privacy records is on.
  privacyRecords: true,
  plugins: (ctx) => [
    processingActivitiesApi(ctx), registerApi(ctx), dpiasApi(ctx), transfersApi(ctx), tiasApi(ctx), dataMapApi(ctx), dataMapPages(ctx),
    processingActivityPages(ctx), registerPages(ctx), dpiaPages(ctx), transferPages(ctx), tiaPages(ctx), questionnairesApi(ctx), questionnairePages(ctx),
    // The category lists of Settings › Privacy categories (REST and screen).
    ...categoryApis(ctx), categoryPages(ctx),
  ],
  nav: [
    { group: 'Privacy', key: 'processing-activities', href: PATH, label: 'Processing activities', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'dpias', href: DPIA_PATH, label: 'DPIAs', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'transfers', href: TRANSFER_PATH, label: 'Transfers', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'transfer-impact-assessments', href: TIA_PATH, label: 'Transfer impact assessments', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'breaches', href: '/data-privacy/breaches', label: 'Breaches', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'article-30-register', href: '/data-privacy/register', label: 'Article 30 register', needs: 'dataPrivacy:read' },
    { group: 'Privacy', key: 'privacy-questionnaires', href: QUESTIONNAIRE_PATH, label: 'Liaison questionnaires', needs: 'dataPrivacy:read' },
    // The person asked holds no data privacy right: their questionnaires are listed for every signed-in person. The
    // screen is "My privacy questionnaires"; the entry is shorter so it stays on one line at desktop width.
    { group: 'Overview', key: 'my-privacy-questionnaires', href: MY_QUESTIONNAIRES_PATH, label: 'My questionnaires' },
    { group: 'Settings', key: 'privacy-categories', href: CATEGORY_SETTINGS_PATH, label: 'Privacy categories', needs: 'settings:read' },
  ],
  customFields: true,
  countedTables: ['processing_activities', 'dpias', 'privacy_transfers', 'transfer_impact_assessments'],
  recordTypes: [registerType(processingActivityKind, {
    kind: 'processingActivity', plural: 'Processing activities', href: (id) => `${PATH}/${id}`,
    evidence: true, search: { body: processingActivities.purposes }, read: true,
    // Its periodic reviews are shown in its History.
    historyParts: [{ historyType: REVIEW_TYPE, table: processingActivityReviews, id: processingActivityReviews.id, parentId: processingActivityReviews.processingActivityId }],
  }), registerType(dpiaKind, {
    kind: 'dpia', plural: 'DPIAs', href: (id) => `${DPIA_PATH}/${id}`,
    evidence: true, search: { body: dpias.description }, read: true,
  }), registerType(transferKind, {
    kind: 'transfer', plural: 'Transfers', href: (id) => `${TRANSFER_PATH}/${id}`, evidence: true, read: true,
    search: { body: privacyTransfers.notes },
  }), registerType(tiaKind, {
    kind: 'transferImpactAssessment', plural: 'Transfer impact assessments', href: (id) => `${TIA_PATH}/${id}`, evidence: true, read: true,
    search: { body: transferImpactAssessments.lawsAssessed },
  }), {
    // Declared without a register kind: the person asked reads it without the module's right, which the kit does not know.
    kind: QUESTIONNAIRE_TYPE, label: 'Privacy questionnaire', plural: 'Privacy questionnaires', module: 'dataPrivacy',
    table: privacyQuestionnaires, id: privacyQuestionnaires.id, title: privacyQuestionnaires.title,
    ownerId: privacyQuestionnaires.ownerId, ownerGroupId: privacyQuestionnaires.ownerGroupId,
    href: (id) => `${QUESTIONNAIRE_PATH}/${id}`,
    search: { body: privacyQuestionnaires.message },
    // The assistant reaches questionnaires only with dataPrivacy:read, so never while privacy records are left out.
    read: (ctx, actor, id) => getQuestionnaire(ctx.db, actor, id, 'officer'),
    openItems: { key: 'privacyQuestionnaires', list: (ctx, actor) => questionnairesWaitingOn(ctx.db, actor) },
  }],
  // Data privacy's sections on other records' pages, to data privacy readers only: an asset's data-map fields; a third
  // party's DPA fields and transfer impact assessments.
  sections: (type) => {
    // A control's page lists the processing activities naming it among their technical and organisational measures.
    if (type.kind === 'control') return controlProcessingActivities(type);
    if (type.kind === 'asset') return (ctx, id, viewer, csrfToken) => assetPrivacySection(ctx, id, viewer, csrfToken);
    if (type.kind !== 'thirdParty') return null;
    return thirdPartyPrivacySections(type);
  },
  dueDates: [...tiaDueDates, ...questionnaireDueDates, ...processingActivityReviewDueDates],
  dueSoon: processingActivityDueSoon,
  // The Article 30 register in the Report Center (its own page and CSV stay at /data-privacy/register).
  reports: dataPrivacyReports,
  // The specification leaves data-map and DPA fields out of CSV import: the asset and third-party imports refuse them by name.
  importRefusals: [
    { area: 'assets', columns: ['personal_data_held', 'data_categories', 'location_country', 'location', 'retention', 'hosting'],
      reason: 'data-map fields are privacy records kept by Data privacy, never imported; set them in the asset\'s Privacy section (dataPrivacy:update)' },
    { area: 'third-parties', columns: ['dpa_signed_on', 'dpa_version', 'sub_processor_locations', 'sub_processor_countries'],
      reason: 'DPA fields are privacy records kept by Data privacy, never imported; set them in the third party\'s Privacy section (dataPrivacy:update)' },
  ],
  events: [kindEvents(processingActivityKind, {
    activities: [{ key: 'review', label: 'Review recorded', recordType: REVIEW_TYPE, parentField: 'processingActivityId' }],
  }), processingActivityReviewEvents, kindEvents(dpiaKind), kindEvents(transferKind), kindEvents(tiaKind), ownedRecordEvents({
    recordType: QUESTIONNAIRE_TYPE, label: 'Privacy questionnaire', module: 'dataPrivacy', table: privacyQuestionnaires,
    titleColumn: privacyQuestionnaires.title, statusColumn: privacyQuestionnaires.status,
    labels: { recipientId: 'Person asked', fields: 'Fields asked about', dueOn: 'Answers due on', ownerId: 'Sent by', answeredAt: 'Answered at' },
    people: ['recipientId'], links: { processingActivityId: 'processingActivity' },
    activities: [
      { key: 'questionnaireAnswered', label: 'Questionnaire answered', actions: ['answered'] },
      { key: 'proposalDecided', label: 'Proposal accepted or rejected', actions: ['proposal.accepted', 'proposal.rejected'] },
    ],
  })],
});
