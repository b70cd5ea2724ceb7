import { t, type Static } from 'elysia';
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
