import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { exampleOwnership, labelInput, labelQuery, labelView, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';
import { PageQuery } from '../../platform/http/paging';

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

/** The special categories of Art. 9(1): processing any of them needs an Art. 9(2) condition. */
export const SPECIAL_DATA_CATEGORIES = [
  'racial_or_ethnic_origin', 'political_opinions', 'religious_or_philosophical_beliefs', 'trade_union_membership',
  'genetic_data', 'biometric_data', 'health_data', 'sex_life_or_sexual_orientation',
] as const;

/**
 * Categories of data subjects and of personal data are the keys of the lists in Settings › Privacy categories
 * (categories.tsx): the schema takes any key, the service refuses one not in the list naming the field.
 */
const MAX_CATEGORIES = 100;
const categoryKeys = (description: string) =>
  t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_CATEGORIES, uniqueItems: true, description });

export const isSpecialCategory = (category: string) => (SPECIAL_DATA_CATEGORIES as readonly string[]).includes(category);

const ReviewDate = (description: string) => t.String({ format: 'date', description });

const processingFields = {
  name: t.String({ minLength: 1, maxLength: 300, description: 'The name of the processing activity' }),
  role: t.Optional(stringEnum(PROCESSING_ROLES, { description: 'controller (Art. 30(1)) or processor (Art. 30(2)); blank gives controller' })),
  status: t.Optional(stringEnum(PROCESSING_STATUSES, { description: 'Blank gives draft' })),
  purposes: t.Optional(t.String({ maxLength: 20_000, description: 'The purposes of the processing' })),
  legalBasis: stringEnum(LEGAL_BASES, { description: 'The lawful basis of Art. 6(1): consent, contract, legal_obligation, vital_interests, public_task or legitimate_interests' }),
  specialCategoryCondition: t.Optional(t.Union([stringEnum(SPECIAL_CATEGORY_CONDITIONS), t.Null()], {
    description: 'The Art. 9(2) condition; required when a special category of personal data is processed, blank otherwise',
  })),
  dataSubjectCategories: t.Optional(categoryKeys('Keys of the categories of data subjects (GET /api/v1/data-privacy/data-subject-categories); one not in the list is a 400 naming the field')),
  personalDataCategories: t.Optional(categoryKeys('Keys of the categories of personal data (GET /api/v1/data-privacy/personal-data-categories); one not in the list is a 400 naming the field')),
  recipients: t.Optional(t.String({ maxLength: 20_000, description: 'Categories of recipients, including those in third countries' })),
  retention: t.Optional(t.String({ maxLength: 5_000, description: 'Time limits for erasure of the categories of data' })),
  systemAssetIds: t.Optional(t.Array(Uuid, { maxItems: 200, uniqueItems: true, description: 'Assets (systems) the processing runs on; each must be an asset you may read' })),
  processorThirdPartyIds: t.Optional(t.Array(Uuid, { maxItems: 200, uniqueItems: true, description: 'Third parties processing on your behalf; each must be a third party you may read' })),
  jointControllers: t.Optional(t.String({ maxLength: 5_000, description: 'Joint controllers and their contact details' })),
  securityMeasures: t.Optional(t.String({ maxLength: 20_000, description: 'A general description of the technical and organisational security measures (Art. 32(1))' })),
  controlIds: t.Optional(t.Array(Uuid, {
    maxItems: 500, uniqueItems: true, description: 'The technical and organisational measures (Art. 32) as controls; each must be a control you may read (needs controls:read)',
  })),
  nextReviewOn: t.Optional(t.Union([ReviewDate('When the record is next to be reviewed (YYYY-MM-DD); the owner is reminded. A review recorded sets it'), t.Null()])),
  ...labelInput,
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
  controlIds: t.Array(t.String(), { description: 'Controls: the technical and organisational measures (Art. 32)' }),
  nextReviewOn: t.Union([t.String(), t.Null()]),
  ...labelView,
}, { customFields: true });
export type ProcessingActivityView = Static<typeof ProcessingActivityView>;

export const PROCESSING_SORTS = ['name', 'role', 'status', 'legalBasis', 'nextReviewOn', 'owner', 'createdAt', 'updatedAt'] as const;
export const ProcessingActivityListQuery = recordListQuery(PROCESSING_SORTS, PROCESSING_STATUSES, {
  role: t.Optional(stringEnum(PROCESSING_ROLES)),
  controlId: t.Optional(t.String({ format: 'uuid', description: 'Only the processing activities linking this control' })),
  ...labelQuery,
});

/** Outcomes of a periodic review of a processing activity. */
export const REVIEW_OUTCOMES = ['no_change', 'changes_needed'] as const;

export const ProcessingActivityReviewCreate = t.Object({
  reviewedOn: t.Optional(ReviewDate('The day of the review (YYYY-MM-DD); today when left out')),
  outcome: stringEnum(REVIEW_OUTCOMES, { description: 'no_change, or changes_needed (with notes saying what)' }),
  notes: t.Optional(t.String({ maxLength: 20_000, description: 'Required when changes are needed' })),
  reviewerId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An active user; you when left out' })),
  nextReviewOn: t.Optional(t.Union([ReviewDate('The next review (YYYY-MM-DD), after the review day; set on the processing activity'), t.Null()])),
}, { additionalProperties: false });
export type ProcessingActivityReviewCreate = Static<typeof ProcessingActivityReviewCreate>;

export const ProcessingActivityReviewView = t.Object({
  id: t.String(),
  processingActivityId: t.String(),
  reviewedOn: t.String(),
  reviewer: t.Union([t.Object({ id: t.String(), name: t.String() }), t.Null()]),
  outcome: stringEnum(REVIEW_OUTCOMES),
  notes: t.String(),
  nextReviewOn: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
});
export type ProcessingActivityReviewView = Static<typeof ProcessingActivityReviewView>;

export const ProcessingActivityReviews = t.Object({
  nextReviewOn: t.Union([t.String(), t.Null()], { description: 'The next review set on the processing activity' }),
  overdue: t.Boolean({ description: 'The next review day has passed' }),
  reviews: t.Array(ProcessingActivityReviewView, { description: 'Newest first' }),
});
export type ProcessingActivityReviews = Static<typeof ProcessingActivityReviews>;

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const processingActivityExamples = {
  create: {
    name: 'Payroll', role: 'controller', status: 'active', purposes: 'Paying salaries and meeting tax and social security duties',
    legalBasis: 'legal_obligation', specialCategoryCondition: 'employment_and_social_security',
    dataSubjectCategories: ['employees'], personalDataCategories: ['identification', 'financial', 'health_data'],
    recipients: 'Tax authority; pension fund', retention: '10 years after the end of employment',
    systemAssetIds: ['3f2a9c1e-7b4d-4e6a-9c2f-1d8e5b7a3c40'], processorThirdPartyIds: ['6c1d8e2f-4a7b-4c9e-8d3f-2b5a7e9c1d62'],
    jointControllers: '', securityMeasures: 'Encryption at rest; access limited to the payroll team; quarterly access reviews',
    controlIds: ['4b8d2e6f-1a3c-4e7b-9d5f-2c8a6e1b3d70'], nextReviewOn: '2027-03-01', labelIds: [],
  } satisfies ProcessingActivityCreate,
  row: {
    id: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13', name: 'Payroll', role: 'controller', status: 'active',
    purposes: 'Paying salaries and meeting tax and social security duties', legalBasis: 'legal_obligation',
    specialCategoryCondition: 'employment_and_social_security', dataSubjectCategories: ['employees'],
    personalDataCategories: ['identification', 'financial', 'health_data'], recipients: 'Tax authority; pension fund',
    retention: '10 years after the end of employment', systemAssetIds: ['3f2a9c1e-7b4d-4e6a-9c2f-1d8e5b7a3c40'],
    processorThirdPartyIds: ['6c1d8e2f-4a7b-4c9e-8d3f-2b5a7e9c1d62'], jointControllers: '',
    securityMeasures: 'Encryption at rest; access limited to the payroll team; quarterly access reviews',
    controlIds: ['4b8d2e6f-1a3c-4e7b-9d5f-2c8a6e1b3d70'], nextReviewOn: '2027-03-01', labelIds: [], labels: [], ...exampleOwnership, customFields: {},
  } satisfies ProcessingActivityView,
};

const RegisterEntryView = t.Object({
  id: t.String(), name: t.String(), role: t.String(), status: t.String(), purposes: t.String(), legalBasis: t.String(),
  specialCategoryCondition: t.String(), dataSubjectCategories: t.String(), personalDataCategories: t.String(), recipients: t.String(),
  retention: t.String(), systems: t.String({ description: 'Names separated by "; ", "(restricted)" where you may not read the asset' }),
  processors: t.String({ description: 'Names separated by "; ", "(restricted)" where you may not read the third party' }),
  jointControllers: t.String(), securityMeasures: t.String(),
  controls: t.String({ description: 'The technical and organisational measures as controls: names separated by "; ", "(restricted)" where you may not read the control' }),
  owner: t.String(),
});
/** One role's part of the Article 30 register. */
export const RegisterSectionView = t.Object({ role: stringEnum(PROCESSING_ROLES), heading: t.String(), entries: t.Array(RegisterEntryView) });

/** The register's filters: the screen's filter bar, the API's query and the CSV download's (retired activities are never in it). */
export const RegisterQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Words of the activity\'s name' })),
  role: t.Optional(stringEnum(PROCESSING_ROLES)),
  status: t.Optional(stringEnum(['draft', 'active'] as const)),
  legalBasis: t.Optional(stringEnum(LEGAL_BASES)),
  ownerId: t.Optional(Uuid),
  label: t.Optional(Uuid),
});
export type RegisterQuery = Static<typeof RegisterQuery>;

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
  ...labelInput,
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
  ...labelView,
}, { customFields: true });
export type DpiaView = Static<typeof DpiaView>;

export const DPIA_SORTS = ['name', 'required', 'status', 'owner', 'createdAt', 'updatedAt'] as const;
export const DpiaListQuery = recordListQuery(DPIA_SORTS, DPIA_STATUSES, {
  processingActivityId: t.Optional(t.String({ format: 'uuid', description: 'Only the DPIAs of this processing activity' })),
  ...labelQuery,
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
    residualRisk: 'low', residualJudgement: 'Acceptable after the measures', dpoAdvice: 'Proceed; review in a year', labelIds: [],
  } satisfies DpiaCreate,
  row: {
    id: '2b7e4c1a-9d3f-4e8b-a6c2-5f1d7e9b3a20', name: 'Loyalty programme profiling', processingActivityId: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13',
    criteriaMet: ['evaluation_or_scoring', 'large_scale'], screeningRequired: true, required: true, requiredOverride: null, overrideReason: '',
    description: 'Scoring customers by purchase history to tailor offers', necessityAndProportionality: 'Only purchase data; opt-out at any time',
    risksToDataSubjects: 'Unfair exclusion from offers; inferences about health from purchases', measures: 'No health-related product categories in the model',
    residualRisk: 'low', residualJudgement: 'Acceptable after the measures', dpoAdvice: 'Proceed; review in a year',
    status: 'signed_off', signedOffById: '5d2f8a1c-3e7b-4c9d-a1f6-8b2e4d7c9a31', signedOffAt: '2026-03-02T10:15:00.000Z', riskIds: [], labelIds: [], labels: [],
    ...exampleOwnership, customFields: {},
  } satisfies DpiaView,
};

// ---------------------------------------------------------------- transfers and transfer impact assessments

/** The safeguards of GDPR Chapter V a transfer relies on: Art. 45, 46(2)(c), 47, 49. */
export const TRANSFER_SAFEGUARDS = ['adequacy_decision', 'sccs', 'bcrs', 'derogation'] as const;
/** The modules of the 2021 standard contractual clauses: 1 controller to controller, 2 controller to processor, 3 processor to processor, 4 processor to controller. */
export const SCC_MODULES = [1, 2, 3, 4] as const;
export const SCC_MODULE_LABELS: Record<number, string> = {
  1: 'Module 1: controller to controller', 2: 'Module 2: controller to processor', 3: 'Module 3: processor to processor', 4: 'Module 4: processor to controller',
};
/** The derogations of Art. 49(1): points (a) to (g), and the compelling legitimate interests of its second subparagraph. */
export const TRANSFER_DEROGATIONS = [
  'explicit_consent', 'contract_with_data_subject', 'contract_in_data_subject_interest', 'important_public_interest', 'legal_claims',
  'vital_interests', 'public_register', 'compelling_legitimate_interests',
] as const;

const transferFields = {
  name: t.String({ minLength: 1, maxLength: 300, description: 'What is transferred, e.g. "Payroll data to the US payroll provider"' }),
  processingActivityId: t.String({ format: 'uuid', description: 'The processing activity the transfer is part of; one you may read' }),
  destinationCountry: t.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code of the destination country, outside the EEA (e.g. US)' }),
  recipientThirdPartyId: t.String({ format: 'uuid', description: 'The recipient: a third party you may read (needs thirdParties:read)' }),
  safeguard: stringEnum(TRANSFER_SAFEGUARDS, {
    description: 'adequacy_decision (Art. 45; only for a country with one), sccs (Art. 46(2)(c), with sccModule), bcrs (Art. 47) or derogation (Art. 49, with derogation)',
  }),
  sccModule: t.Optional(t.Union([Type.Integer({ minimum: 1, maximum: 4 }), t.Null()], { description: 'The SCC module, 1-4; required with sccs, blank otherwise' })),
  derogation: t.Optional(t.Union([stringEnum(TRANSFER_DEROGATIONS), t.Null()], { description: 'The Art. 49 ground; required with derogation, blank otherwise' })),
  transferImpactAssessmentId: t.Optional(t.Union([t.String({ format: 'uuid' }), t.Null()], {
    description: 'The transfer impact assessment relied on: one kept on the recipient third party',
  })),
  notes: t.Optional(t.String({ maxLength: 20_000 })),
  ...labelInput,
};
export const { Create: TransferCreate, Update: TransferUpdate } = recordInputs(transferFields);
export type TransferCreate = Static<typeof TransferCreate>;
export type TransferUpdate = Static<typeof TransferUpdate>;

export const TransferView = recordView({
  name: t.String(),
  processingActivityId: t.String(),
  destinationCountry: t.String(),
  destinationCountryName: t.String({ description: 'The destination country by name' }),
  recipientThirdPartyId: t.String(),
  safeguard: stringEnum(TRANSFER_SAFEGUARDS),
  sccModule: t.Union([Type.Integer(), t.Null()]),
  derogation: t.Union([stringEnum(TRANSFER_DEROGATIONS), t.Null()]),
  transferImpactAssessmentId: t.Union([t.String(), t.Null()]),
  notes: t.String(),
  ...labelView,
});
export type TransferView = Static<typeof TransferView>;

export const TRANSFER_SORTS = ['name', 'destinationCountry', 'safeguard', 'owner', 'createdAt', 'updatedAt'] as const;
export const TransferListQuery = recordListQuery(TRANSFER_SORTS, null, {
  processingActivityId: t.Optional(t.String({ format: 'uuid', description: 'Only the transfers of this processing activity' })),
  recipientThirdPartyId: t.Optional(t.String({ format: 'uuid', description: 'Only the transfers to this third party' })),
  ...labelQuery,
});

export const transferExamples = {
  create: {
    name: 'Payroll data to the payroll provider', processingActivityId: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13', destinationCountry: 'IN',
    recipientThirdPartyId: '6c1d8e2f-4a7b-4c9e-8d3f-2b5a7e9c1d62', safeguard: 'sccs', sccModule: 2, derogation: null,
    transferImpactAssessmentId: '1e7c3a9d-5b2f-4d8e-a6c1-9f3b7d2e5a84', notes: '', labelIds: [],
  } satisfies TransferCreate,
  row: {
    id: '7d3a1c9e-2b5f-4e8d-a7c3-1f9b5d2e8a46', name: 'Payroll data to the payroll provider', processingActivityId: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13',
    destinationCountry: 'IN', destinationCountryName: 'India', recipientThirdPartyId: '6c1d8e2f-4a7b-4c9e-8d3f-2b5a7e9c1d62', safeguard: 'sccs',
    sccModule: 2, derogation: null, transferImpactAssessmentId: '1e7c3a9d-5b2f-4d8e-a6c1-9f3b7d2e5a84', notes: '', labelIds: [], labels: [], ...exampleOwnership,
  } satisfies TransferView,
};

export const TIA_RISKS = ['low', 'medium', 'high'] as const;
export const TIA_CONCLUSIONS = ['proceed', 'proceed_with_measures', 'do_not_proceed'] as const;
const IsoDate = (description: string) => t.String({ format: 'date', description });

const tiaFields = {
  name: t.String({ minLength: 1, maxLength: 300, description: 'The name of the assessment, e.g. "US transfers 2026"' }),
  lawsAssessed: t.String({ minLength: 1, maxLength: 20_000, description: 'The laws and practices of the destination assessed (public authorities\' access to the data)' }),
  riskFound: stringEnum(TIA_RISKS, { description: 'The risk found for the data subjects: low, medium or high' }),
  supplementaryMeasures: t.Optional(t.String({ maxLength: 20_000, description: 'The supplementary measures (technical, contractual, organisational) that bring the protection up to the EU level' })),
  conclusion: stringEnum(TIA_CONCLUSIONS, { description: 'proceed, proceed_with_measures or do_not_proceed' }),
  assessedOn: IsoDate('The date of the assessment (YYYY-MM-DD)'),
  nextReviewOn: t.Optional(t.Union([IsoDate('The next review (YYYY-MM-DD), after the assessment date; reminded to the owner'), t.Null()])),
  ...labelInput,
};
/** A TIA as the screens write it: the third party it is kept on is one of its fields. */
export const { Create: TiaRecordCreate, Update: TiaRecordUpdate } = recordInputs({
  ...tiaFields, thirdPartyId: t.String({ format: 'uuid', description: 'The third party (the importer) the assessment is kept on; one you may read' }),
});
export type TiaRecordCreate = Static<typeof TiaRecordCreate>;
/** A TIA as REST writes it: the third party is the one the route names (`/third-parties/{id}/transfer-impact-assessments`). */
export const { Create: TiaCreate, Update: TiaUpdate } = recordInputs(tiaFields);
export type TiaCreate = Static<typeof TiaCreate>;
export type TiaUpdate = Static<typeof TiaUpdate>;

export const TiaView = recordView({
  name: t.String(),
  thirdPartyId: t.String(),
  lawsAssessed: t.String(),
  riskFound: stringEnum(TIA_RISKS),
  supplementaryMeasures: t.String(),
  conclusion: stringEnum(TIA_CONCLUSIONS),
  assessedOn: t.String(),
  nextReviewOn: t.Union([t.String(), t.Null()]),
  ...labelView,
});
export type TiaView = Static<typeof TiaView>;

export const TIA_SORTS = ['name', 'riskFound', 'conclusion', 'assessedOn', 'nextReviewOn', 'owner', 'createdAt', 'updatedAt'] as const;
export const TiaListQuery = recordListQuery(TIA_SORTS, null, labelQuery);
export const ThirdPartyTiaParams = t.Object({ id: t.String({ format: 'uuid' }), tiaId: t.String({ format: 'uuid' }) });

export const tiaExamples = {
  create: {
    name: 'India transfers 2026', lawsAssessed: 'Information Technology Act 2000 and its interception rules; Digital Personal Data Protection Act 2023',
    riskFound: 'medium', supplementaryMeasures: 'Encryption in transit and at rest with keys held in the EU', conclusion: 'proceed_with_measures',
    assessedOn: '2026-03-01', nextReviewOn: '2027-03-01',
  } satisfies TiaCreate,
  row: {
    id: '1e7c3a9d-5b2f-4d8e-a6c1-9f3b7d2e5a84', name: 'India transfers 2026', thirdPartyId: '6c1d8e2f-4a7b-4c9e-8d3f-2b5a7e9c1d62',
    lawsAssessed: 'Information Technology Act 2000 and its interception rules; Digital Personal Data Protection Act 2023', riskFound: 'medium',
    supplementaryMeasures: 'Encryption in transit and at rest with keys held in the EU', conclusion: 'proceed_with_measures',
    assessedOn: '2026-03-01', nextReviewOn: '2027-03-01', labelIds: [], labels: [], ...exampleOwnership,
  } satisfies TiaView,
};

// ---------------------------------------------------------------- data-map fields on assets, DPA fields on third parties

export const HOSTING_KINDS = ['on_premises', 'private_cloud', 'public_cloud', 'saas'] as const;
const CountryCode = t.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code' });

/** The data-map fields of an asset, kept by data privacy: the whole set is written at once (PUT). */
export const AssetDataMapInput = t.Object({
  personalDataHeld: t.Boolean({ description: 'Whether the asset holds personal data' }),
  dataCategories: t.Optional(categoryKeys('Keys of the categories of personal data held (the processing activities\' list, GET /api/v1/data-privacy/personal-data-categories); one not in the list is a 400 naming the field')),
  locationCountry: t.Optional(t.Union([CountryCode, t.Null()], { description: 'Where the data is stored' })),
  retention: t.Optional(t.String({ maxLength: 5_000, description: 'How long the data is kept' })),
  hosting: t.Optional(t.Union([stringEnum(HOSTING_KINDS), t.Null()], { description: 'on_premises, private_cloud, public_cloud or saas' })),
}, { additionalProperties: false });
export type AssetDataMapInput = Static<typeof AssetDataMapInput>;

export const AssetDataMapView = t.Object({
  assetId: t.String(),
  personalDataHeld: t.Boolean(),
  dataCategories: t.Array(t.String()),
  locationCountry: t.Union([t.String(), t.Null()]),
  locationCountryName: t.String({ description: 'The location country by name; blank when none' }),
  retention: t.String(),
  hosting: t.Union([stringEnum(HOSTING_KINDS), t.Null()]),
  updatedAt: t.Union([t.String(), t.Null()], { description: 'Null while the asset has no data-map fields recorded' }),
});
export type AssetDataMapView = Static<typeof AssetDataMapView>;

/** The data processing agreement with a third party (Art. 28(3)), kept by data privacy: the whole set is written at once (PUT). */
export const ThirdPartyDpaInput = t.Object({
  signedOn: t.Optional(t.Union([t.String({ format: 'date', description: 'When the DPA was signed (YYYY-MM-DD)' }), t.Null()])),
  version: t.Optional(t.String({ maxLength: 200, description: 'The DPA\'s version' })),
  subProcessorCountries: t.Optional(t.Array(CountryCode, { maxItems: 250, uniqueItems: true, description: 'The countries where its sub-processors process the data' })),
}, { additionalProperties: false });
export type ThirdPartyDpaInput = Static<typeof ThirdPartyDpaInput>;

export const ThirdPartyDpaView = t.Object({
  thirdPartyId: t.String(),
  signedOn: t.Union([t.String(), t.Null()]),
  version: t.String(),
  subProcessorCountries: t.Array(t.String()),
  subProcessorCountryNames: t.Array(t.String()),
  updatedAt: t.Union([t.String(), t.Null()], { description: 'Null while no DPA fields are recorded' }),
});
export type ThirdPartyDpaView = Static<typeof ThirdPartyDpaView>;

// ---------------------------------------------------------------- personal-data breaches (held by incidents)

export const BREACH_CLOCK_STATES = ['running', 'overdue', 'notified_in_time', 'notified_late', 'no_awareness_date'] as const;

/** A personal-data breach as data privacy shows it: the incident's breach details and the 72-hour clock of Art. 33(1). */
export const BreachEntryView = t.Object({
  incidentId: t.String(),
  title: t.String(),
  status: t.String({ description: 'The incident\'s status: open or closed' }),
  categories: t.Array(t.String()),
  approximateSubjects: t.Union([Type.Integer(), t.Null()]),
  awareOn: t.Union([t.String(), t.Null()], { description: 'When the controller became aware (the incident\'s breach detection date)' }),
  deadline: t.Union([t.String(), t.Null()], { description: '72 hours after the start of the day of awareness (UTC): incidents hold days, so the clock takes the earliest moment' }),
  authorityNotifiedOn: t.Union([t.String(), t.Null()], { description: 'The first notification to the supervisory authority' }),
  subjectsNotifiedOn: t.Union([t.String(), t.Null()], { description: 'The first communication to the data subjects (Art. 34)' }),
  clock: stringEnum(BREACH_CLOCK_STATES, { description: 'running (hoursLeft), overdue (hoursOverdue), notified_in_time, notified_late, or no_awareness_date' }),
  hoursLeft: t.Union([Type.Integer(), t.Null()]),
  hoursOverdue: t.Union([Type.Integer(), t.Null()]),
  owner: t.Union([t.String(), t.Null()], { description: 'The incident\'s owner (a person or a group), by name' }),
});
export type BreachEntryView = Static<typeof BreachEntryView>;

/** How the breaches may be ordered: the list's sortable columns ("field" ascending, "-field" descending). */
export const BREACH_SORTS = ['title', 'awareOn', 'authorityNotifiedOn', 'clock', 'approximateSubjects', 'status', 'owner'] as const;

/** The breaches' filters and order: the screen's filter bar and column headers, the API's query and the CSV export's. */
export const BreachListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Words of the incident\'s title' })),
  status: t.Optional(stringEnum(['open', 'closed'] as const, { description: 'The incident\'s status' })),
  clock: t.Optional(stringEnum(BREACH_CLOCK_STATES, { description: 'The 72-hour clock: overdue finds the breaches not notified in time and still unnotified' })),
  ownerId: t.Optional(Uuid),
  sort: t.Optional(stringEnum(BREACH_SORTS.flatMap((s) => [s, `-${s}`]), { description: 'A column, "-" first for descending; newest awareness first when left out' })),
});
export type BreachListQuery = Static<typeof BreachListQuery>;

// ---------------------------------------------------------------- Data Liaison questionnaires

/**
 * The fields of a processing activity a questionnaire may ask about, with the labels its screens give them. Lists and
 * links (categories, systems, processors) are left to the privacy officer's form, where each value is checked against
 * its list and the reader's rights; a business owner answers in words.
 */
export const QUESTIONNAIRE_FIELDS = {
  purposes: 'Purposes',
  legalBasis: 'Legal basis (Art. 6)',
  recipients: 'Recipients',
  retention: 'Retention',
  jointControllers: 'Joint controllers',
  securityMeasures: 'Technical and organisational measures',
} as const;
export type QuestionnaireField = keyof typeof QUESTIONNAIRE_FIELDS;
export const QUESTIONNAIRE_FIELD_KEYS = ['purposes', 'legalBasis', 'recipients', 'retention', 'jointControllers', 'securityMeasures'] as const satisfies readonly QuestionnaireField[];
export const QUESTIONNAIRE_STATUSES = ['sent', 'answered', 'closed'] as const;
export const PROPOSAL_DECISIONS = ['pending', 'accepted', 'rejected'] as const;

export const QuestionnaireCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 300, description: 'What the questionnaire asks about, as the person asked reads it' }),
  processingActivityId: t.String({ format: 'uuid', description: 'The processing activity asked about; one you may read' }),
  recipientId: t.String({ format: 'uuid', description: 'The business owner asked: an active user. They need no data privacy right to answer' }),
  fields: t.Array(stringEnum(QUESTIONNAIRE_FIELD_KEYS), {
    minItems: 1, maxItems: QUESTIONNAIRE_FIELD_KEYS.length, uniqueItems: true,
    description: 'The processing activity\'s fields asked about: purposes, legalBasis, recipients, retention, jointControllers, securityMeasures',
  }),
  message: t.Optional(t.String({ maxLength: 5_000, description: 'A note to the person asked, shown above the questions' })),
  dueOn: t.Optional(t.Union([t.String({ format: 'date', description: 'YYYY-MM-DD' }), t.Null()], { description: 'When the answers are due; overdue questionnaires are in the person\'s daily digest' })),
}, { additionalProperties: false });
export type QuestionnaireCreate = Static<typeof QuestionnaireCreate>;

export const QuestionnaireAnswerInput = t.Object({
  field: stringEnum(QUESTIONNAIRE_FIELD_KEYS),
  proposed: t.Union([t.String({ maxLength: 20_000 }), t.Null()], {
    description: 'The value the field should have; null (or the current value) confirms it. A legal basis by its key (consent, contract, legal_obligation, vital_interests, public_task, legitimate_interests)',
  }),
  comment: t.Optional(t.String({ maxLength: 5_000, description: 'Why, or anything the privacy officer should know' })),
}, { additionalProperties: false });
export const QuestionnaireAnswers = t.Object({
  answers: t.Array(QuestionnaireAnswerInput, { minItems: 1, maxItems: QUESTIONNAIRE_FIELD_KEYS.length, description: 'One answer per field asked; every field asked must be answered' }),
}, { additionalProperties: false });
export type QuestionnaireAnswers = Static<typeof QuestionnaireAnswers>;

export const ProposalParams = t.Object({ id: t.String({ format: 'uuid' }), field: stringEnum(QUESTIONNAIRE_FIELD_KEYS) });
export const ProposalRejection = t.Object({
  reason: t.Optional(t.String({ maxLength: 5_000, description: 'Why the proposal is rejected; shown to the person who proposed it' })),
}, { additionalProperties: false });
export type ProposalRejection = Static<typeof ProposalRejection>;

const PersonRef = t.Object({ id: t.String(), name: t.String() });
export const QuestionnaireAnswerView = t.Object({
  field: t.String(),
  fieldLabel: t.String({ description: 'The field as the screens name it' }),
  current: t.String({ description: 'The processing activity\'s value now (before an answer) or when the answer was given, in words' }),
  proposed: t.Union([t.String(), t.Null()], { description: 'The value proposed in words; null where the current one was confirmed or no answer was given yet' }),
  proposedValue: t.Union([t.String(), t.Null()], { description: 'The value proposed as stored (a legal basis by its key)' }),
  comment: t.String(),
  decision: t.Union([stringEnum(PROPOSAL_DECISIONS), t.Null()], { description: 'pending, accepted or rejected; null where nothing was proposed' }),
  decidedBy: t.Union([PersonRef, t.Null()]),
  decidedAt: t.Union([t.String(), t.Null()]),
  reason: t.String({ description: 'Why a proposal was rejected' }),
});
export const QuestionnaireView = t.Object({
  id: t.String(),
  title: t.String(),
  processingActivity: t.Object({ id: t.String(), name: t.String() }),
  recipient: PersonRef,
  sender: t.Union([PersonRef, t.Null()]),
  message: t.String(),
  fields: t.Array(t.String()),
  dueOn: t.Union([t.String(), t.Null()]),
  status: stringEnum(QUESTIONNAIRE_STATUSES, { description: 'sent (waiting for answers), answered (proposals to decide) or closed (every proposal decided, or nothing proposed)' }),
  answers: t.Array(QuestionnaireAnswerView, { description: 'One per field asked, in the order asked' }),
  answeredAt: t.Union([t.String(), t.Null()]),
  ownerId: t.Union([t.String(), t.Null()]),
  ownerGroupId: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type QuestionnaireView = Static<typeof QuestionnaireView>;
export type QuestionnaireAnswerView = Static<typeof QuestionnaireAnswerView>;

/** How the questionnaires may be ordered ("field" ascending, "-field" descending); newest first when left out. */
export const QUESTIONNAIRE_SORTS = ['title', 'dueOn', 'status', 'createdAt'] as const;

export const QuestionnaireListQuery = t.Object({
  ...PageQuery.properties,
  status: t.Optional(stringEnum(QUESTIONNAIRE_STATUSES)),
  processingActivityId: t.Optional(t.String({ format: 'uuid', description: 'Only those about this processing activity' })),
  q: t.Optional(t.String({ maxLength: 200, description: 'Words of the title' })),
  ownerId: t.Optional(Uuid),
  sort: t.Optional(stringEnum(QUESTIONNAIRE_SORTS.flatMap((s) => [s, `-${s}`]))),
});
export type QuestionnaireListQuery = Static<typeof QuestionnaireListQuery>;

export const questionnaireExamples = {
  create: {
    title: 'Is the payroll record still right?', processingActivityId: '9a4e2c7d-1f3b-4d8a-b6e5-0c2f7a9d4e13',
    recipientId: '0b6f7d0e-3c1a-4b7e-9d2f-5a8c1e4b7d20', fields: ['retention', 'recipients'],
    message: 'Please check what we keep and who receives it', dueOn: '2026-12-15',
  } satisfies QuestionnaireCreate,
  answers: {
    answers: [
      { field: 'retention', proposed: '7 years after the end of employment', comment: 'Changed by the 2026 tax rules' },
      { field: 'recipients', proposed: null, comment: '' },
    ],
  } satisfies QuestionnaireAnswers,
};
