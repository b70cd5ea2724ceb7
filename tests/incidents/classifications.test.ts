import { describe, expect, test } from 'bun:test';
import { createIncidentClassification, incidentClassificationList } from '../../src/modules/incidents/classifications';
import { AppError } from '../../src/platform/core/errors';
import { systemActor } from '../../src/platform/permissions/permissions';
import { testEnv } from '../helpers/app';
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

describe('the service judges what reaches it without the REST schema (imports, bundles, other modules)', () => {
  test('every length problem at once, on its field; nothing written', async () => {
    const env = await testEnv();
    const name = unique('Direct').padEnd(201, 'x');
    const refused = await env.ctx.db.transaction((tx) => createIncidentClassification(tx, systemActor(), { name, description: 'd'.repeat(2001) }))
      .then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(400);
    expect((refused as AppError).problems).toEqual([
      { field: 'name', message: 'must be at most 200 characters' }, { field: 'description', message: 'must be at most 2000 characters' },
    ]);
    const { id } = await env.ctx.db.transaction((tx) => createIncidentClassification(tx, systemActor(), { name: `  ${name.slice(0, 200)}  ` }));
    expect((await incidentClassificationList.get(env.ctx.db, systemActor(), id)).name).toBe(name.slice(0, 200));
  });
});
