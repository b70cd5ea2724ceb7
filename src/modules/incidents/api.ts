import { t } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, deletedResponses, HistoryList, IdParam } from '../../platform/http/envelopes';
import { notFound } from '../../platform/core/errors';
import { listHistory } from '../../platform/audit/history';
import { pageEnvelope } from '../../platform/http/paging';
import { recordApi } from '../../platform/records/record-api';
import {
  BreachInput, BreachView, IncidentClassificationInput, IncidentClassificationListQuery, IncidentClassificationPatch,
  IncidentClassificationView, IncidentCreate, IncidentListQuery, IncidentUpdate, IncidentView, NotificationCreate, NotificationView,
} from './schema';
import {
  addBreachNotification, createIncidentClassification, deleteIncidentClassification, getBreach, getIncidentClassification,
  incidentKind, listBreachNotifications, listIncidentClassifications, putBreach, updateIncidentClassification,
} from './service';

const tags = ['Incidents'];
const settingsTags = ['Incident classifications'];

export const incidentsApi = (ctx: AppContext) =>
  recordApi(ctx, incidentKind, {
    path: '/incidents', tag: 'Incidents', plural: 'incidents',
    Create: IncidentCreate, Update: IncidentUpdate, View: IncidentView, ListQuery: IncidentListQuery,
  })
    // The classification list: read with incidents:read, changed with Settings rights.
    .get('/classifications', async ({ actor, query }) => ({ data: await listIncidentClassifications(ctx.db, actor, query) }), {
      scope: 'incidents:read', query: IncidentClassificationListQuery, response: pageEnvelope(IncidentClassificationView),
      detail: { tags: settingsTags, summary: 'List incident classifications with how many incidents use each' },
    })
    .post('/classifications', async ({ actor, body, set }) => {
      const created = await runWrite(ctx, (tx) => createIncidentClassification(tx, actor, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'settings:create', body: IncidentClassificationInput, response: { 201: Created },
      detail: { tags: settingsTags, summary: 'Add an incident classification (409 when the name is taken)' },
    })
    .get('/classifications/:id', async ({ actor, params }) => ({ data: await getIncidentClassification(ctx.db, actor, params.id) }), {
      scope: 'incidents:read', params: IdParam, response: Data(IncidentClassificationView),
      detail: { tags: settingsTags, summary: 'Read an incident classification' },
    })
    .patch('/classifications/:id', async ({ actor, params, body }) => ({
      data: await runWrite(ctx, (tx) => updateIncidentClassification(tx, actor, params.id, body)),
    }), {
      scope: 'settings:update', params: IdParam, body: IncidentClassificationPatch, response: Data(IncidentClassificationView),
      detail: { tags: settingsTags, summary: 'Rename or describe an incident classification' },
    })
    .delete('/classifications/:id', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => deleteIncidentClassification(tx, actor, params.id));
      set.status = 204;
      return null;
    }, {
      scope: 'settings:update', params: IdParam,
      detail: { tags: settingsTags, summary: 'Delete an unused incident classification (409 naming how many incidents use it)', responses: deletedResponses },
    })
    .get('/classifications/:id/history', async ({ actor, params }) => {
      await getIncidentClassification(ctx.db, actor, params.id);
      return { data: await listHistory(ctx.db, 'incident_classification', params.id) };
    }, { scope: 'incidents:read', params: IdParam, response: HistoryList, detail: { tags: settingsTags, summary: "An incident classification's History" } })
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
