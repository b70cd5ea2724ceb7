import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { exampleOwnership, IsoDate, NullableDate, NullableUuid, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';
import { listQuery } from '../../platform/http/paging';
import { stringEnum } from '../../platform/http/schema-helpers';

export const INCIDENT_STATUSES = ['open', 'closed'] as const;
export const NOTIFICATION_RECIPIENTS = ['authority', 'subjects'] as const;

const incidentFields = {
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  classificationId: t.Optional(t.Union([Uuid, t.Null()], { description: 'An incident classification (Settings)' })),
  openedAt: t.Optional(t.String({ format: 'date', description: 'YYYY-MM-DD; today when left out' })),
  assetId: t.Optional(NullableUuid),
  thirdPartyId: t.Optional(NullableUuid),
  status: t.Optional(stringEnum(INCIDENT_STATUSES, { description: 'Blank gives open; closed needs a resolution' })),
  resolution: t.Optional(t.String({ maxLength: 100_000, description: 'Required to close' })),
};
export const { Create: IncidentCreate, Update: IncidentUpdate } = recordInputs(incidentFields, { customFields: true });
export type IncidentCreate = Static<typeof IncidentCreate>;
export type IncidentUpdate = Static<typeof IncidentUpdate>;

export const IncidentView = recordView({
  title: t.String(),
  description: t.String(),
  classificationId: t.Union([t.String(), t.Null()]),
  openedAt: t.String(),
  assetId: t.Union([t.String(), t.Null()]),
  thirdPartyId: t.Union([t.String(), t.Null()]),
  status: stringEnum(INCIDENT_STATUSES),
  resolution: t.String(),
}, { customFields: true });
export type IncidentView = Static<typeof IncidentView>;

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const incidentExamples = {
  create: { title: 'Laptop lost on a train', description: 'Encrypted laptop of a sales manager; reported the same day.', openedAt: '2026-11-18', status: 'open' } satisfies IncidentCreate,
  row: {
    id: '2d5a8f13-6c9e-4b2d-91f7-4e0a3c6b8d25', title: 'Laptop lost on a train', description: 'Encrypted laptop of a sales manager; reported the same day.',
    classificationId: null, openedAt: '2026-11-18', assetId: null, thirdPartyId: null, status: 'open', resolution: '', ...exampleOwnership, customFields: {},
  } satisfies IncidentView,
};

export const INCIDENT_SORTS = ['title', 'status', 'openedAt', 'owner', 'createdAt', 'updatedAt'] as const;
export const IncidentListQuery = recordListQuery(INCIDENT_SORTS, INCIDENT_STATUSES, { classificationId: t.Optional(Uuid) });

// ---------------------------------------------------------------- personal-data breach

export const BreachInput = t.Object({
  categories: t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 100, description: 'Categories of personal data concerned' }),
  approximateSubjects: t.Optional(t.Union([Type.Integer({ minimum: 0 }), t.Null()], { description: 'Approximate number of data subjects' })),
  detectedAt: t.Optional(NullableDate),
  reportedAt: t.Optional(t.Union([IsoDate, t.Null()], { description: 'Not before detectedAt' })),
}, { additionalProperties: false });
export type BreachInput = Static<typeof BreachInput>;

export const NotificationCreate = t.Object({
  recipient: stringEnum(NOTIFICATION_RECIPIENTS, { description: 'The supervisory authority or the data subjects' }),
  notifiedOn: IsoDate,
  reference: t.Optional(t.String({ maxLength: 500, description: "The authority's case number or the mailing's reference" })),
}, { additionalProperties: false });
export type NotificationCreate = Static<typeof NotificationCreate>;

export const NotificationView = t.Object({
  id: t.String(),
  recipient: stringEnum(NOTIFICATION_RECIPIENTS),
  notifiedOn: t.String(),
  reference: t.String(),
  createdAt: t.String(),
});
export type NotificationView = Static<typeof NotificationView>;

export const BreachView = t.Object({
  incidentId: t.String(),
  categories: t.Array(t.String()),
  approximateSubjects: t.Union([Type.Integer(), t.Null()]),
  detectedAt: t.Union([t.String(), t.Null()]),
  reportedAt: t.Union([t.String(), t.Null()]),
  updatedAt: t.String(),
  notifications: t.Array(NotificationView),
});
export type BreachView = Static<typeof BreachView>;
