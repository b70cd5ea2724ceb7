import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { exampleOwnership, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';

/** Controller (Art. 30(1)) or processor (Art. 30(2)) of the processing. */
export const PROCESSING_ROLES = ['controller', 'processor'] as const;
export const PROCESSING_STATUSES = ['draft', 'active', 'retired'] as const;

/** The six lawful bases of GDPR Art. 6(1)(a)-(f), in the Article's order. */
export const LEGAL_BASES = ['consent', 'contract', 'legal_obligation', 'vital_interests', 'public_task', 'legitimate_interests'] as const;

/** The conditions of Art. 9(2)(a)-(j) under which special categories of personal data may be processed. */
export const SPECIAL_CATEGORY_CONDITIONS = [
  'explicit_consent', 'employment_and_social_security', 'vital_interests_incapable', 'not_for_profit_body', 'made_public_by_subject',
  'legal_claims', 'substantial_public_interest', 'health_or_social_care', 'public_health', 'archiving_research_statistics',
] as const;

/** Categories of data subjects (fixed list; docs/data-privacy.md). */
export const DATA_SUBJECT_CATEGORIES = [
  'employees', 'job_applicants', 'contractors', 'customers', 'prospects', 'supplier_contacts', 'website_visitors',
  'patients', 'students', 'children', 'members', 'citizens',
] as const;

/** The special categories of Art. 9(1): processing any of them needs an Art. 9(2) condition. */
export const SPECIAL_DATA_CATEGORIES = [
  'racial_or_ethnic_origin', 'political_opinions', 'religious_or_philosophical_beliefs', 'trade_union_membership',
  'genetic_data', 'biometric_data', 'health_data', 'sex_life_or_sexual_orientation',
] as const;

/** Categories of personal data (fixed list): the ordinary ones, then the special categories of Art. 9(1). */
export const PERSONAL_DATA_CATEGORIES = [
  'identification', 'contact_details', 'financial', 'employment', 'education', 'location', 'online_identifiers',
  'communications', 'images_and_recordings', ...SPECIAL_DATA_CATEGORIES,
] as const;

export const isSpecialCategory = (category: string) => (SPECIAL_DATA_CATEGORIES as readonly string[]).includes(category);

const processingFields = {
  name: t.String({ minLength: 1, maxLength: 300, description: 'The name of the processing activity' }),
  role: t.Optional(stringEnum(PROCESSING_ROLES, { description: 'controller (Art. 30(1)) or processor (Art. 30(2)); blank gives controller' })),
  status: t.Optional(stringEnum(PROCESSING_STATUSES, { description: 'Blank gives draft' })),
  purposes: t.Optional(t.String({ maxLength: 20_000, description: 'The purposes of the processing' })),
  legalBasis: stringEnum(LEGAL_BASES, { description: 'The lawful basis of Art. 6(1): consent, contract, legal_obligation, vital_interests, public_task or legitimate_interests' }),
  specialCategoryCondition: t.Optional(t.Union([stringEnum(SPECIAL_CATEGORY_CONDITIONS), t.Null()], {
    description: 'The Art. 9(2) condition; required when a special category of personal data is processed, blank otherwise',
  })),
  dataSubjectCategories: t.Optional(t.Array(stringEnum(DATA_SUBJECT_CATEGORIES), { maxItems: DATA_SUBJECT_CATEGORIES.length, uniqueItems: true })),
  personalDataCategories: t.Optional(t.Array(stringEnum(PERSONAL_DATA_CATEGORIES), { maxItems: PERSONAL_DATA_CATEGORIES.length, uniqueItems: true })),
  recipients: t.Optional(t.String({ maxLength: 20_000, description: 'Categories of recipients, including those in third countries' })),
  retention: t.Optional(t.String({ maxLength: 5_000, description: 'Time limits for erasure of the categories of data' })),
  systemAssetIds: t.Optional(t.Array(Uuid, { maxItems: 200, uniqueItems: true, description: 'Assets (systems) the processing runs on; each must be an asset you may read' })),
  processorThirdPartyIds: t.Optional(t.Array(Uuid, { maxItems: 200, uniqueItems: true, description: 'Third parties processing on your behalf; each must be a third party you may read' })),
  jointControllers: t.Optional(t.String({ maxLength: 5_000, description: 'Joint controllers and their contact details' })),
  securityMeasures: t.Optional(t.String({ maxLength: 20_000, description: 'A general description of the technical and organisational security measures (Art. 32(1))' })),
};
export const { Create: ProcessingActivityCreate, Update: ProcessingActivityUpdate } = recordInputs(processingFields, { customFields: true });
export type ProcessingActivityCreate = Static<typeof ProcessingActivityCreate>;
export type ProcessingActivityUpdate = Static<typeof ProcessingActivityUpdate>;

export const ProcessingActivityView = recordView({
  name: t.String(),
  role: stringEnum(PROCESSING_ROLES),
  status: stringEnum(PROCESSING_STATUSES),
  purposes: t.String(),
  legalBasis: stringEnum(LEGAL_BASES),
  specialCategoryCondition: t.Union([stringEnum(SPECIAL_CATEGORY_CONDITIONS), t.Null()]),
  dataSubjectCategories: t.Array(t.String()),
  personalDataCategories: t.Array(t.String()),
  recipients: t.String(),
  retention: t.String(),
  systemAssetIds: t.Array(t.String()),
  processorThirdPartyIds: t.Array(t.String()),
  jointControllers: t.String(),
  securityMeasures: t.String(),
}, { customFields: true });
export type ProcessingActivityView = Static<typeof ProcessingActivityView>;

export const PROCESSING_SORTS = ['name', 'role', 'status', 'legalBasis', 'createdAt', 'updatedAt'] as const;
export const ProcessingActivityListQuery = recordListQuery(PROCESSING_SORTS, PROCESSING_STATUSES, {
  role: t.Optional(stringEnum(PROCESSING_ROLES)),
});

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const processingActivityExamples = {
  create: {
    name: 'Payroll', role: 'controller', status: 'active', purposes: 'Paying salaries and meeting tax and social security duties',
    legalBasis: 'legal_obligation', specialCategoryCondition: 'employment_and_social_security',
    dataSubjectCategories: ['employees'], personalDataCategories: ['identification', 'financial', 'health_data'],
    recipients: 'Tax authority; pension fund', retention: '10 years after the end of employment',
    systemAssetIds: ['3f2a9c1e-7b4d-4e6a-9c2f-1d8e5b7a3c40'], processorThirdPartyIds: ['6c1d8e2f-4a7b-4c9e-8d3f-2b5a7e9c1d62'],
    jointControllers: '', securityMeasures: 'Encryption at rest; access limited to the payroll team; quarterly access reviews',
  } satisfies ProcessingActivityCreate,
  row: {
    id: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13', name: 'Payroll', role: 'controller', status: 'active',
    purposes: 'Paying salaries and meeting tax and social security duties', legalBasis: 'legal_obligation',
    specialCategoryCondition: 'employment_and_social_security', dataSubjectCategories: ['employees'],
    personalDataCategories: ['identification', 'financial', 'health_data'], recipients: 'Tax authority; pension fund',
    retention: '10 years after the end of employment', systemAssetIds: ['3f2a9c1e-7b4d-4e6a-9c2f-1d8e5b7a3c40'],
    processorThirdPartyIds: ['6c1d8e2f-4a7b-4c9e-8d3f-2b5a7e9c1d62'], jointControllers: '',
    securityMeasures: 'Encryption at rest; access limited to the payroll team; quarterly access reviews', ...exampleOwnership, customFields: {},
  } satisfies ProcessingActivityView,
};

const RegisterEntryView = t.Object({
  id: t.String(), name: t.String(), role: t.String(), status: t.String(), purposes: t.String(), legalBasis: t.String(),
  specialCategoryCondition: t.String(), dataSubjectCategories: t.String(), personalDataCategories: t.String(), recipients: t.String(),
  retention: t.String(), systems: t.String({ description: 'Names separated by "; ", "(restricted)" where you may not read the asset' }),
  processors: t.String({ description: 'Names separated by "; ", "(restricted)" where you may not read the third party' }),
  jointControllers: t.String(), securityMeasures: t.String(), owner: t.String(),
});
/** One role's part of the Article 30 register. */
export const RegisterSectionView = t.Object({ role: stringEnum(PROCESSING_ROLES), heading: t.String(), entries: t.Array(RegisterEntryView) });

/**
 * The nine criteria of the EDPB guidelines on DPIAs (WP248 rev.01) that make processing "likely to result in a high
 * risk" (Art. 35(1)); meeting two or more means a DPIA is required in most cases.
 */
export const DPIA_CRITERIA = [
  'evaluation_or_scoring', 'automated_decision_with_legal_effect', 'systematic_monitoring', 'sensitive_or_highly_personal_data',
  'large_scale', 'matching_or_combining_datasets', 'vulnerable_data_subjects', 'innovative_technology', 'prevents_exercising_rights',
] as const;
/** How many criteria make a DPIA required when the assessor does not override the decision. */
export const DPIA_CRITERIA_THRESHOLD = 2;
export const DPIA_OVERRIDES = ['required', 'not_required'] as const;
export const DPIA_STATUSES = ['draft', 'signed_off'] as const;
export const RESIDUAL_RISKS = ['low', 'medium', 'high'] as const;

const dpiaFields = {
  name: t.String({ minLength: 1, maxLength: 300, description: 'The name of the assessment' }),
  processingActivityId: t.String({ format: 'uuid', description: 'The processing activity assessed; one you may read' }),
  criteriaMet: t.Optional(t.Array(stringEnum(DPIA_CRITERIA), {
    maxItems: DPIA_CRITERIA.length, uniqueItems: true,
    description: 'The screening questions: the EDPB criteria the processing meets (each criterion left out is answered no). Two or more make a DPIA required',
  })),
  requiredOverride: t.Optional(t.Union([stringEnum(DPIA_OVERRIDES), t.Null()], {
    description: 'The assessor\'s decision where it departs from the screening: required or not_required, with overrideReason; null follows the screening',
  })),
  overrideReason: t.Optional(t.String({ maxLength: 5_000, description: 'Why the decision departs from the screening; required with requiredOverride, blank without' })),
  description: t.Optional(t.String({ maxLength: 20_000, description: 'A systematic description of the processing operations and purposes (Art. 35(7)(a))' })),
  necessityAndProportionality: t.Optional(t.String({ maxLength: 20_000, description: 'The necessity and proportionality of the processing (Art. 35(7)(b))' })),
  risksToDataSubjects: t.Optional(t.String({ maxLength: 20_000, description: 'The risks to the rights and freedoms of data subjects (Art. 35(7)(c))' })),
  measures: t.Optional(t.String({ maxLength: 20_000, description: 'The measures envisaged to address the risks (Art. 35(7)(d))' })),
  residualRisk: t.Optional(t.Union([stringEnum(RESIDUAL_RISKS), t.Null()], { description: 'The residual risk after the measures: low, medium or high (high calls for prior consultation, Art. 36)' })),
  residualJudgement: t.Optional(t.String({ maxLength: 20_000, description: 'The judgement of the residual risk' })),
  dpoAdvice: t.Optional(t.String({ maxLength: 20_000, description: 'The advice of the data protection officer (Art. 35(2))' })),
};
export const { Create: DpiaCreate, Update: DpiaUpdate } = recordInputs(dpiaFields, { customFields: true });
export type DpiaCreate = Static<typeof DpiaCreate>;
export type DpiaUpdate = Static<typeof DpiaUpdate>;

export const DpiaView = recordView({
  name: t.String(),
  processingActivityId: t.String(),
  criteriaMet: t.Array(t.String()),
  screeningRequired: t.Boolean({ description: 'What the screening says: two or more criteria met' }),
  required: t.Boolean({ description: 'The decision: the override where there is one, the screening otherwise' }),
  requiredOverride: t.Union([stringEnum(DPIA_OVERRIDES), t.Null()]),
  overrideReason: t.String(),
  description: t.String(),
  necessityAndProportionality: t.String(),
  risksToDataSubjects: t.String(),
  measures: t.String(),
  residualRisk: t.Union([stringEnum(RESIDUAL_RISKS), t.Null()]),
  residualJudgement: t.String(),
  dpoAdvice: t.String(),
  status: stringEnum(DPIA_STATUSES, { description: 'draft, or signed_off (read-only until reopened)' }),
  signedOffById: t.Union([t.String(), t.Null()]),
  signedOffAt: t.Union([t.String(), t.Null()]),
  riskIds: t.Array(t.String(), { description: 'Risks written from this DPIA' }),
}, { customFields: true });
export type DpiaView = Static<typeof DpiaView>;

export const DPIA_SORTS = ['name', 'status', 'createdAt', 'updatedAt'] as const;
export const DpiaListQuery = recordListQuery(DPIA_SORTS, DPIA_STATUSES, {
  processingActivityId: t.Optional(t.String({ format: 'uuid', description: 'Only the DPIAs of this processing activity' })),
});

/** "Create a risk from this DPIA": the risk's rating; its title and description default to the DPIA's. */
export const DpiaRiskCreate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 300, description: 'Blank gives "DPIA: <the DPIA\'s name>"' })),
  description: t.Optional(t.String({ maxLength: 20_000, description: 'Blank gives the DPIA\'s risks to data subjects' })),
  classificationId: t.String({ format: 'uuid', description: 'A risk classification (Risk Settings)' }),
  inherentLikelihood: Type.Integer({ minimum: 1, description: 'A likelihood level of the risk scale' }),
  inherentImpact: Type.Integer({ minimum: 1, description: 'An impact level of the risk scale' }),
}, { additionalProperties: false });
export type DpiaRiskCreate = Static<typeof DpiaRiskCreate>;

export const dpiaExamples = {
  create: {
    name: 'Loyalty programme profiling', processingActivityId: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13',
    criteriaMet: ['evaluation_or_scoring', 'large_scale'], requiredOverride: null, overrideReason: '',
    description: 'Scoring customers by purchase history to tailor offers', necessityAndProportionality: 'Only purchase data; opt-out at any time',
    risksToDataSubjects: 'Unfair exclusion from offers; inferences about health from purchases', measures: 'No health-related product categories in the model',
    residualRisk: 'low', residualJudgement: 'Acceptable after the measures', dpoAdvice: 'Proceed; review in a year',
  } satisfies DpiaCreate,
  row: {
    id: '2b7e4c1a-9d3f-4e8b-a6c2-5f1d7e9b3a20', name: 'Loyalty programme profiling', processingActivityId: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13',
    criteriaMet: ['evaluation_or_scoring', 'large_scale'], screeningRequired: true, required: true, requiredOverride: null, overrideReason: '',
    description: 'Scoring customers by purchase history to tailor offers', necessityAndProportionality: 'Only purchase data; opt-out at any time',
    risksToDataSubjects: 'Unfair exclusion from offers; inferences about health from purchases', measures: 'No health-related product categories in the model',
    residualRisk: 'low', residualJudgement: 'Acceptable after the measures', dpoAdvice: 'Proceed; review in a year',
    status: 'signed_off', signedOffById: '5d2f8a1c-3e7b-4c9d-a1f6-8b2e4d7c9a31', signedOffAt: '2026-03-02T10:15:00.000Z', riskIds: [],
    ...exampleOwnership, customFields: {},
  } satisfies DpiaView,
};
