import { incidentClassifications, incidents } from '../../../db/schema';
import type { AppContext } from '../../platform/http/context';
import { defineNameList } from '../../platform/name-lists/name-list';
import { nameListApi } from '../../platform/name-lists/name-list-api';
import { nameListPages } from '../../platform/name-lists/name-list-screen';

/**
 * Incident classifications: a name list (src/platform/name-lists) at /api/v1/incident-classifications, beside
 * /incidents like the specification's /risk-classifications, and on Settings › Incident classifications. Read with
 * incidents:read (or settings:read), changed with Settings rights; one used by incidents is not deleted.
 */
export const incidentClassificationList = defineNameList({
  recordType: 'incident_classification',
  label: 'Incident classification',
  plural: 'Incident classifications',
  table: incidentClassifications,
  readers: 'incidents:read',
  usedBy: {
    table: incidents, column: incidents.classificationId, one: 'incident', many: 'incidents',
    countField: 'incidentCount', countDescription: 'Incidents using it; one in use cannot be deleted',
  },
});

export const createIncidentClassification = incidentClassificationList.create;
export const incidentClassificationOptions = incidentClassificationList.options;

export const incidentClassificationsApi = (ctx: AppContext) =>
  nameListApi(ctx, incidentClassificationList, { prefix: '/api/v1/incident-classifications', tag: 'Incident classifications' });

export const incidentClassificationPages = (ctx: AppContext) => nameListPages(ctx, incidentClassificationList, {
  path: '/settings/incidents', anchor: 'classifications', heading: 'Classifications', noun: 'classification',
  empty: 'No incident classifications yet.', page: { title: 'Incident classifications', navKey: 'incident-settings' },
});
