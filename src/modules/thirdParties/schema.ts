import { t, type Static } from 'elysia';
import { exactly } from '../../platform/http/envelopes';
import { exampleOwnership, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';

export const THIRD_PARTY_TYPES = ['vendor', 'partner', 'customer', 'other'] as const;
export const THIRD_PARTY_STATUSES = ['active', 'offboarding', 'terminated'] as const;

const thirdPartyFields = {
  name: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  type: t.Optional(stringEnum(THIRD_PARTY_TYPES, { description: 'Blank gives vendor' })),
  status: t.Optional(stringEnum(THIRD_PARTY_STATUSES, { description: 'Blank gives active' })),
  website: t.Optional(t.Union([t.String({ maxLength: 2000, description: 'An http or https address with a host' }), t.Null()])),
};
export const { Create: ThirdPartyCreate, Update: ThirdPartyUpdate } = recordInputs(thirdPartyFields, { customFields: true });
export type ThirdPartyCreate = Static<typeof ThirdPartyCreate>;
export type ThirdPartyUpdate = Static<typeof ThirdPartyUpdate>;

export const ThirdPartyView = recordView({
  name: t.String(),
  description: t.String(),
  type: stringEnum(THIRD_PARTY_TYPES),
  status: stringEnum(THIRD_PARTY_STATUSES),
  website: t.Union([t.String(), t.Null()]),
}, { customFields: true });
export type ThirdPartyView = Static<typeof ThirdPartyView>;

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const thirdPartyExamples = {
  create: { name: 'Northwind Payroll Ltd', description: 'Payroll processing', type: 'vendor', status: 'active', website: 'https://northwind-payroll.example' } satisfies ThirdPartyCreate,
  row: {
    id: '6b9e4c21-3f7a-4d0b-a8e5-2c1f9d7b3e48', name: 'Northwind Payroll Ltd', description: 'Payroll processing', type: 'vendor', status: 'active',
    website: 'https://northwind-payroll.example', ...exampleOwnership, customFields: {},
  } satisfies ThirdPartyView,
};

export const THIRD_PARTY_SORTS = ['name', 'type', 'status', 'owner', 'createdAt', 'updatedAt'] as const;
export const ThirdPartyListQuery = recordListQuery(THIRD_PARTY_SORTS, THIRD_PARTY_STATUSES, { type: t.Optional(stringEnum(THIRD_PARTY_TYPES)) });

const optionalText = (maxLength: number, description?: string) =>
  t.Optional(t.Union([t.String({ maxLength, ...(description ? { description } : {}) }), t.Null()]));

const contactFields = {
  name: t.String({ minLength: 1, maxLength: 300 }),
  email: optionalText(320, 'An email address'),
  phone: optionalText(100),
  role: optionalText(300, 'What the contact does for us, e.g. "Account manager"'),
};
export const ContactCreate = t.Object(contactFields, { additionalProperties: false });
export const ContactUpdate = t.Partial(ContactCreate, { additionalProperties: false, minProperties: 1 });
export type ContactCreate = Static<typeof ContactCreate>;
export type ContactUpdate = Static<typeof ContactUpdate>;
export const ContactView = t.Object({
  id: t.String(),
  thirdPartyId: t.String(),
  name: t.String(),
  email: t.Union([t.String(), t.Null()]),
  phone: t.Union([t.String(), t.Null()]),
  role: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type ContactView = Static<typeof ContactView>;
export const ContactParams = t.Object({ id: Uuid, contactId: Uuid });

export const RiskLinkCreate = t.Object({ riskId: Uuid }, { additionalProperties: false });
export type RiskLinkCreate = Static<typeof RiskLinkCreate>;
export const RiskLinkParams = t.Object({ id: Uuid, riskId: Uuid });
export const LinkedRiskView = t.Object({
  riskId: t.String(),
  title: t.String(),
  status: t.String(),
  linkedAt: t.String(),
});
export type LinkedRiskView = Static<typeof LinkedRiskView>;

export const SubProcessorCreate = t.Object({ thirdPartyId: Uuid }, { additionalProperties: false });
export type SubProcessorCreate = Static<typeof SubProcessorCreate>;
export const SubProcessorParams = t.Object({ id: Uuid, subProcessorId: Uuid });
export const SubProcessorView = t.Object({
  thirdPartyId: t.String(),
  name: t.String(),
  type: stringEnum(THIRD_PARTY_TYPES),
  status: stringEnum(THIRD_PARTY_STATUSES),
  linkedAt: t.String(),
});
export type SubProcessorView = Static<typeof SubProcessorView>;

/** The answer to linking a risk or a sub-processor (201, no body of its own). */
export const LinkCreated = exactly(t.Object({ data: t.Null() }, { description: 'Linked' }));
