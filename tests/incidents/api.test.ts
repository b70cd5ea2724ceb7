import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), [
    'incidents:read', 'incidents:create', 'incidents:update', 'incidents:delete', 'settings:create', 'settings:update',
    'assets:read', 'assets:create', 'assets:delete', 'thirdParties:read', 'thirdParties:create', 'thirdParties:delete',
  ]);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const post = (path: string, body: unknown, secret = token) => send('POST', path, body, secret);
const patch = (path: string, body: unknown, secret = token) => send('PATCH', path, body, secret);
const get = (path: string, secret = token) => send('GET', path, undefined, secret);
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

async function createIncident(body: Record<string, unknown> = {}, secret = token): Promise<string> {
  const res = await post('/api/v1/incidents', { title: unique('Incident'), ...body }, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

type History = { action: string; changes: Record<string, { before: unknown; after: unknown }> }[];

describe('incidents over REST', () => {
  test('an incident created with blanks is open, opened today and owned by its creator', async () => {
    const id = await createIncident({ title: 'Phishing mail opened' });
    const incident = await json<Record<string, unknown>>(await get(`/api/v1/incidents/${id}`));
    expect(incident).toMatchObject({
      title: 'Phishing mail opened', status: 'open', resolution: '', openedAt: new Date().toISOString().slice(0, 10),
      classificationId: null, assetId: null, thirdPartyId: null,
    });
    expect((incident.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('opened_at must be a real date', async () => {
    const res = await post('/api/v1/incidents', { title: 'Bad date', openedAt: '2026-02-30' });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('openedAt');
  });

  test('creating an incident closed without a resolution is refused naming resolution', async () => {
    const res = await post('/api/v1/incidents', { title: 'Closed at once', status: 'closed' });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('resolution');
    const blank = await post('/api/v1/incidents', { title: 'Closed at once', status: 'closed', resolution: '   ' });
    expect(blank.status).toBe(400);
    expect(await errorOf(blank)).toContain('resolution');
    await createIncident({ status: 'closed', resolution: 'False alarm' });
  });

  test('closing an open incident without a resolution is refused; with one it closes and History shows it', async () => {
    const id = await createIncident({ openedAt: '2026-03-01' });
    const refused = await patch(`/api/v1/incidents/${id}`, { status: 'closed' });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toContain('resolution');
    expect((await json<{ status: string }>(await get(`/api/v1/incidents/${id}`))).status).toBe('open');

    const closed = await patch(`/api/v1/incidents/${id}`, { status: 'closed', resolution: 'Password reset, mailbox rules removed' });
    expect(closed.status, await closed.clone().text()).toBe(200);
    expect(await json<Record<string, unknown>>(closed)).toMatchObject({ status: 'closed', resolution: 'Password reset, mailbox rules removed' });

    const clearing = await patch(`/api/v1/incidents/${id}`, { resolution: '' });
    expect(clearing.status).toBe(400);
    expect(await errorOf(clearing)).toContain('resolution');

    const history = await json<History>(await get(`/api/v1/incidents/${id}/history`));
    expect(history.map((h) => h.action)).toEqual(['update', 'create']);
    expect(history[0].changes.status).toEqual({ before: 'open', after: 'closed' });
  });

  test('the asset and third party must exist (404, as a link to one you cannot read); while an incident names them they cannot be deleted', async () => {
    for (const field of ['assetId', 'thirdPartyId']) {
      const res = await post('/api/v1/incidents', { title: 'Dangling link', [field]: crypto.randomUUID() });
      expect(res.status).toBe(404);
      expect(await errorOf(res)).toContain(field);
    }
    const assetId = (await json<{ id: string }>(await post('/api/v1/assets', { name: unique('Mail server') }))).id;
    const thirdPartyId = (await json<{ id: string }>(await post('/api/v1/third-parties', { name: unique('Hosting provider') }))).id;
    const id = await createIncident({ assetId, thirdPartyId });
    expect(await json<Record<string, unknown>>(await get(`/api/v1/incidents/${id}`))).toMatchObject({ assetId, thirdPartyId });

    const asset = await send('DELETE', `/api/v1/assets/${assetId}`);
    expect(asset.status).toBe(409);
    expect(await errorOf(asset)).toContain('1 incident');
    const thirdParty = await send('DELETE', `/api/v1/third-parties/${thirdPartyId}`);
    expect(thirdParty.status).toBe(409);
    expect(await errorOf(thirdParty)).toContain('1 incident');
  });

  test('the list filters by status and searches by title', async () => {
    const title = unique('Findable ransomware');
    await createIncident({ title, status: 'closed', resolution: 'Restored from backup' });
    const page = await json<{ rows: { title: string }[]; total: number }>(await get(`/api/v1/incidents?q=${encodeURIComponent(title)}&status=closed`));
    expect(page.total).toBe(1);
    expect(page.rows[0].title).toBe(title);
  });
});

describe('incident classifications', () => {
  test('administrators manage the list; incidents take a classification from it; one in use cannot be deleted', async () => {
    const name = unique('Malware');
    const created = await post('/api/v1/incident-classifications', { name, description: 'Malicious software' });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id: classificationId } = await json<{ id: string }>(created);

    const duplicate = await post('/api/v1/incident-classifications', { name: name.toUpperCase() });
    expect(duplicate.status).toBe(409);

    const unknown = await post('/api/v1/incidents', { title: 'Unclassifiable', classificationId: crypto.randomUUID() });
    expect(unknown.status).toBe(400);
    expect(await errorOf(unknown)).toContain('classificationId');

    const incidentId = await createIncident({ classificationId });
    const filtered = await json<{ rows: { id: string }[] }>(await get(`/api/v1/incidents?classificationId=${classificationId}`));
    expect(filtered.rows.map((r) => r.id)).toEqual([incidentId]);

    const listed = await json<{ rows: { id: string; incidentCount: number }[] }>(
      await get(`/api/v1/incident-classifications?q=${encodeURIComponent(name)}`),
    );
    expect(listed.rows).toEqual([expect.objectContaining({ id: classificationId, incidentCount: 1 })]);

    const inUse = await send('DELETE', `/api/v1/incident-classifications/${classificationId}`);
    expect(inUse.status).toBe(409);
    expect(await errorOf(inUse)).toContain('1 incident');

    const renamed = await patch(`/api/v1/incident-classifications/${classificationId}`, { name: `${name} (renamed)` });
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    const history = await json<History>(await get(`/api/v1/incident-classifications/${classificationId}/history`));
    expect(history.map((h) => h.action)).toEqual(['update', 'create']);
    expect(history[0].changes.name).toEqual({ before: name, after: `${name} (renamed)` });

    expect((await send('DELETE', `/api/v1/incidents/${incidentId}`)).status).toBe(204);
    expect((await send('DELETE', `/api/v1/incident-classifications/${classificationId}`)).status).toBe(204);
  });

  test('reading the list needs incidents:read; changing it needs Settings rights', async () => {
    const reader = await makeToken(env, await adminActor(env), ['incidents:read', 'incidents:create']);
    expect((await get('/api/v1/incident-classifications', reader)).status).toBe(200);
    const refused = await post('/api/v1/incident-classifications', { name: unique('Theft') }, reader);
    expect(refused.status).toBe(403);
  });
});

describe('personal-data breach details and notifications', () => {
  test('breach details are recorded, replaced and kept in the incident History', async () => {
    const id = await createIncident();
    expect(await refusalOf(env, async () => get(`/api/v1/incidents/${id}/breach`))).toEqual(refusedWith(404, 'Breach details of incident <id> not found'));

    const early = await post(`/api/v1/incidents/${id}/breach/notifications`, { recipient: 'authority', notifiedOn: '2026-03-03' });
    expect(early.status).toBe(409);

    const backwards = await send('PUT', `/api/v1/incidents/${id}/breach`, { categories: ['email addresses'], detectedAt: '2026-03-02', reportedAt: '2026-03-01' });
    expect(backwards.status).toBe(400);
    expect(await errorOf(backwards)).toContain('reportedAt');

    const put = await send('PUT', `/api/v1/incidents/${id}/breach`, {
      categories: ['email addresses', 'names'], approximateSubjects: 1200, detectedAt: '2026-03-01', reportedAt: '2026-03-03',
    });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await json<Record<string, unknown>>(put)).toMatchObject({
      incidentId: id, categories: ['email addresses', 'names'], approximateSubjects: 1200, detectedAt: '2026-03-01', reportedAt: '2026-03-03', notifications: [],
    });

    const replaced = await send('PUT', `/api/v1/incidents/${id}/breach`, { categories: ['email addresses'], approximateSubjects: 900, detectedAt: '2026-03-01' });
    expect(await json<Record<string, unknown>>(replaced)).toMatchObject({ categories: ['email addresses'], approximateSubjects: 900, reportedAt: null });

    const history = await json<History>(await get(`/api/v1/incidents/${id}/history`));
    expect(history[0].changes['breach.approximateSubjects']).toEqual({ before: 1200, after: 900 });
    expect(history[1].changes['breach.categories']).toEqual({ before: null, after: ['email addresses', 'names'] });
  });

  test('notifications to the authority and to the subjects are listed with the breach', async () => {
    const id = await createIncident();
    await send('PUT', `/api/v1/incidents/${id}/breach`, { categories: ['health data'], detectedAt: '2026-04-01' });
    const bad = await post(`/api/v1/incidents/${id}/breach/notifications`, { recipient: 'press', notifiedOn: '2026-04-02' });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toContain('recipient');
    const badDate = await post(`/api/v1/incidents/${id}/breach/notifications`, { recipient: 'authority', notifiedOn: '2026-04-31' });
    expect(badDate.status).toBe(400);
    expect(await errorOf(badDate)).toContain('notifiedOn');

    const toAuthority = await post(`/api/v1/incidents/${id}/breach/notifications`, { recipient: 'authority', notifiedOn: '2026-04-03', reference: 'DPA-2026-117' });
    expect(toAuthority.status, await toAuthority.clone().text()).toBe(201);
    await post(`/api/v1/incidents/${id}/breach/notifications`, { recipient: 'subjects', notifiedOn: '2026-04-05' });

    const listed = await json<{ recipient: string; notifiedOn: string; reference: string }[]>(await get(`/api/v1/incidents/${id}/breach/notifications`));
    expect(listed).toEqual([
      expect.objectContaining({ recipient: 'authority', notifiedOn: '2026-04-03', reference: 'DPA-2026-117' }),
      expect.objectContaining({ recipient: 'subjects', notifiedOn: '2026-04-05', reference: '' }),
    ]);
    const breach = await json<{ notifications: unknown[] }>(await get(`/api/v1/incidents/${id}/breach`));
    expect(breach.notifications).toHaveLength(2);
    const history = await json<History>(await get(`/api/v1/incidents/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'breach_notification', changes: { 'notification.recipient': { before: null, after: 'subjects' } } });

    expect((await send('DELETE', `/api/v1/incidents/${id}`)).status).toBe(204);
  });
});

describe('incidents at level own', () => {
  test('a user with :own sees and changes only the incidents they or their groups own; their token likewise', async () => {
    const user = await makeUser(env, {
      'incidents:read': 'own', 'incidents:create': 'own', 'incidents:update': 'own', 'apiTokens:create': 'own',
    });
    const own = await makeToken(env, await user.actor(), ['incidents:read', 'incidents:create', 'incidents:update']);
    const mine = await createIncident({ title: 'Mine' }, own);
    const theirs = await createIncident({ title: 'Theirs' });

    const page = await json<{ rows: { id: string }[] }>(await get('/api/v1/incidents?pageSize=200', own));
    expect(page.rows.map((r) => r.id)).toEqual([mine]);
    expect(await refusalOf(env, async () => get(`/api/v1/incidents/${theirs}`, own))).toEqual(refusedWith(404, 'Incident <id> not found', 'no incidents:read on Incident <id>'));
    expect(await refusalOf(env, async () => patch(`/api/v1/incidents/${theirs}`, { title: 'Taken over' }, own))).toEqual(refusedWith(404, 'Incident <id> not found', 'no incidents:read on Incident <id>'));
    expect(await refusalOf(env, async () => send('PUT', `/api/v1/incidents/${theirs}/breach`, { categories: ['names'] }, own))).toEqual(refusedWith(404, 'Incident <id> not found', 'no incidents:read on Incident <id>'));
    expect((await send('PUT', `/api/v1/incidents/${mine}/breach`, { categories: ['names'] }, own)).status).toBe(200);

    const refusedClose = await patch(`/api/v1/incidents/${mine}`, { status: 'closed' }, own);
    expect(refusedClose.status).toBe(400);
    expect(await errorOf(refusedClose)).toContain('resolution');
  });
});
