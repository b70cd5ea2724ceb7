import { expect } from 'bun:test';
import { bearer, unique } from '../helpers/factories';
import { nameListBehaviour } from '../helpers/name-lists';

/** Incident classifications are a name list: /api/v1/incident-classifications and Settings › Incident classifications. */
nameListBehaviour({
  api: '/api/v1/incident-classifications',
  screen: '/settings/incidents',
  anchor: 'classifications',
  aLabel: 'An incident classification',
  label: 'Incident classification',
  recordType: 'incident_classification',
  readScope: 'incidents:read',
  recordScopes: ['incidents:create', 'incidents:delete'],
  countField: 'incidentCount',
  used: (n) => `${n} incident${n === 1 ? '' : 's'}`,
  async useEntry(env, token, classificationId) {
    const res = await env.request('/api/v1/incidents', bearer(token, { method: 'POST', body: JSON.stringify({ title: unique('Classified incident'), classificationId }) }));
    expect(res.status, await res.clone().text()).toBe(201);
    return `/api/v1/incidents/${((await res.json()) as { data: { id: string } }).data.id}`;
  },
});
