import { t, type Static } from 'elysia';
import { IsoDate, NullableDate, NullableUuid, Uuid, recordInputs, recordListQuery, recordView } from '../../platform/records/record-schema';
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

export const INCIDENT_SORTS = ['title', 'status', 'openedAt', 'createdAt', 'updatedAt'] as const;
export const IncidentListQuery = recordListQuery(INCIDENT_SORTS, INCIDENT_STATUSES, { classificationId: t.Optional(Uuid) });

// ---------------------------------------------------------------- personal-data breach

export const BreachInput = t.Object({
  categories: t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 100, description: 'Categories of personal data concerned' }),
  approximateSubjects: t.Optional(t.Union([t.Integer({ minimum: 0 }), t.Null()], { description: 'Approximate number of data subjects' })),
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
  approximateSubjects: t.Union([t.Integer(), t.Null()]),
  detectedAt: t.Union([t.String(), t.Null()]),
  reportedAt: t.Union([t.String(), t.Null()]),
  updatedAt: t.String(),
  notifications: t.Array(NotificationView),
});
export type BreachView = Static<typeof BreachView>;

// ---------------------------------------------------------------- classification list

export const IncidentClassificationInput = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
}, { additionalProperties: false });
export type IncidentClassificationInput = Static<typeof IncidentClassificationInput>;
export const IncidentClassificationPatch = t.Partial(IncidentClassificationInput, { additionalProperties: false, minProperties: 1 });
export type IncidentClassificationPatch = Static<typeof IncidentClassificationPatch>;

export const IncidentClassificationView = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  incidentCount: t.Integer({ description: 'Incidents using it; one in use cannot be deleted' }),
});
export type IncidentClassificationView = Static<typeof IncidentClassificationView>;

export const IncidentClassificationListQuery = listQuery(['name', 'createdAt'] as const, {});
export type IncidentClassificationListQuery = Static<typeof IncidentClassificationListQuery>;
