import { t } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, IdParam } from '../../platform/http/envelopes';
import { notFound } from '../../platform/core/errors';
import { recordApi } from '../../platform/records/record-api';
import {
  BreachInput, BreachView, IncidentCreate, incidentExamples, IncidentListQuery, IncidentUpdate, IncidentView, NotificationCreate, NotificationView,
} from './schema';
import { addBreachNotification, getBreach, incidentKind, listBreachNotifications, putBreach } from './service';

const tags = ['Incidents'];

export const incidentsApi = (ctx: AppContext) =>
  recordApi(ctx, incidentKind, {
    path: '/incidents', tag: 'Incidents', plural: 'incidents',
    Create: IncidentCreate, Update: IncidentUpdate, View: IncidentView, ListQuery: IncidentListQuery, examples: incidentExamples,
  })
    // Personal-data breach details and notifications.
    .get('/:id/breach', async ({ actor, params }) => {
      const breach = await getBreach(ctx.db, actor, params.id);
      if (!breach) throw notFound(`Breach details of incident ${params.id}`);
      return { data: breach };
    }, {
      scope: 'incidents:read', params: IdParam, response: Data(BreachView),
      detail: { tags, summary: "An incident's personal-data-breach details with its notifications (404 when none are recorded)" },
    })
    .put('/:id/breach', async ({ actor, params, body }) => ({ data: await runWrite(ctx, (tx) => putBreach(tx, actor, params.id, body)) }), {
      scope: 'incidents:update', params: IdParam, body: BreachInput, response: Data(BreachView),
      detail: { tags, summary: 'Record or replace the personal-data-breach details (categories, approximate subjects, detected and reported dates)' },
    })
    .get('/:id/breach/notifications', async ({ actor, params }) => ({ data: await listBreachNotifications(ctx.db, actor, params.id) }), {
      scope: 'incidents:read', params: IdParam, response: Data(t.Array(NotificationView)),
      detail: { tags, summary: "A breach's notifications to the authority and the data subjects" },
    })
    .post('/:id/breach/notifications', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => addBreachNotification(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'incidents:update', params: IdParam, body: NotificationCreate, response: { 201: Created },
      detail: { tags, summary: 'Record a breach notification (409 until breach details are recorded)' },
    });
