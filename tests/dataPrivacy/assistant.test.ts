import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { callTool, connectMcp, toolData } from '../helpers/mcp';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let endpoint: string;
const clients: Client[] = [];
let marker: string;
let activityId: string;
let evidenceId: string;
let privacyToken: string;
let noPrivacyToken: string;
let dpiaMarker: string;
let dpiaId: string;

const READS: Permission[] = ['dataPrivacy:read', 'risks:read', 'evidence:read', 'evidence:create', 'evidence:update', 'controls:read'];

async function setPrivacy(includePrivacy: boolean) {
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true, includePrivacy }));
}

async function connect(token: string): Promise<Client> {
  const client = await connectMcp(endpoint, token);
  clients.push(client);
  return client;
}

type Hit = { kind: string; id: string; title: string };
const searchHits = async (client: Client) => toolData<Hit[]>(await callTool(client, 'search', { q: marker }));

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${server.server!.port}/api/mcp`;
  marker = unique('Loyalty');
  const writer = await makeToken(env, admin, ['dataPrivacy:read', 'dataPrivacy:create', 'evidence:create']);
  const send = (path: string, body: unknown) => env.request(path, bearer(writer, { method: 'POST', body: JSON.stringify(body) }));
  const activity = await send('/api/v1/data-privacy/processing-activities', { name: `${marker} programme`, legalBasis: 'consent', purposes: 'Rewarding returning customers' });
  expect(activity.status, await activity.clone().text()).toBe(201);
  activityId = ((await activity.json()) as { data: { id: string } }).data.id;
  dpiaMarker = unique('Telematics').replace(/[^A-Za-z0-9]/g, '');
  const dpia = await send('/api/v1/data-privacy/dpias', { name: `${dpiaMarker} pricing DPIA`, processingActivityId: activityId, criteriaMet: ['large_scale', 'evaluation_or_scoring'] });
  expect(dpia.status, await dpia.clone().text()).toBe(201);
  dpiaId = ((await dpia.json()) as { data: { id: string } }).data.id;
  const evidence = await send('/api/v1/evidence', { title: unique('Consent log export') });
  evidenceId = ((await evidence.json()) as { data: { id: string } }).data.id;
  privacyToken = await makeToken(env, admin, READS);
  noPrivacyToken = await makeToken(env, admin, READS.filter((p) => p !== 'dataPrivacy:read'));
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, DEFAULT_ASSISTANT_SETTINGS));
  await server?.stop();
});

describe('processing activities and the assistant setting "Include privacy records"', () => {
  test('while off, processing activities are absent from search and refused by get_record and link_evidence, even with dataPrivacy:read', async () => {
    await setPrivacy(false);
    const client = await connect(privacyToken);
    expect(await searchHits(client)).toEqual([]);
    const read = await callTool(client, 'get_record', { recordType: 'processingActivity', id: activityId });
    expect(read).toMatchObject({ isError: true, content: [{ text: `Processing activity ${activityId} not found` }] });
    expect(JSON.stringify(read)).not.toContain(marker);
    const link = await callTool(client, 'link_evidence', { evidenceId, recordType: 'processingActivity', recordId: activityId });
    expect(link).toMatchObject({ isError: true, content: [{ text: 'forbidden' }] });
    const upload = await callTool(client, 'upload_evidence', { recordType: 'processingActivity', recordId: activityId, fileName: 'consent-log.txt', text: 'consents' });
    expect(upload).toMatchObject({ isError: true });
    expect(JSON.stringify(upload)).not.toContain(marker);
    const links = toolData<{ links: { recordType: string }[] }>(await callTool(client, 'get_record', { recordType: 'evidence', id: evidenceId }));
    expect(links.links.some((l) => l.recordType === 'processingActivity')).toBe(false);
    const open = JSON.stringify(toolData(await callTool(client, 'my_open_items', {})));
    expect(open).not.toContain(marker);
  });

  test('the refusal answers as for a record that does not exist, the reason only in the Audit Log', async () => {
    await setPrivacy(false);
    const client = await connect(privacyToken);
    const refusal = await refusalOf(env, async () => {
      const result = await callTool(client, 'get_record', { recordType: 'processingActivity', id: activityId });
      return new Response(JSON.stringify({ error: result.content[0].text }), { status: result.isError ? 404 : 200 });
    });
    expect(refusal).toEqual(refusedWith(404, 'Processing activity <id> not found', 'no dataPrivacy:read on Processing activity <id> (tool get_record)'));
  });

  test('while on, they appear to tokens with dataPrivacy:read: search, get_record and link_evidence', async () => {
    await setPrivacy(true);
    const client = await connect(privacyToken);
    expect(await searchHits(client)).toEqual([expect.objectContaining({ kind: 'processingActivity', id: activityId, title: `${marker} programme` })]);
    const record = toolData<{ id: string; name: string; legalBasis: string }>(await callTool(client, 'get_record', { recordType: 'processingActivity', id: activityId }));
    expect(record).toMatchObject({ id: activityId, name: `${marker} programme`, legalBasis: 'consent' });
    const linked = await callTool(client, 'link_evidence', { evidenceId, recordType: 'processingActivity', recordId: activityId });
    expect(linked.isError, linked.content[0]?.text).toBeFalsy();
    const proven = toolData<{ evidence: { id: string }[] }>(await callTool(client, 'get_record', { recordType: 'processingActivity', id: activityId }));
    expect(proven.evidence.map((e) => e.id)).toContain(evidenceId);
  });

  test('while on, a token without dataPrivacy:read still finds none and is refused', async () => {
    await setPrivacy(true);
    const client = await connect(noPrivacyToken);
    expect(await searchHits(client)).toEqual([]);
    expect(await callTool(client, 'get_record', { recordType: 'processingActivity', id: activityId }))
      .toMatchObject({ isError: true, content: [{ text: `Processing activity ${activityId} not found` }] });
  });

  test('while off again, evidence linked to a processing activity no longer names it to the assistant', async () => {
    await setPrivacy(false);
    const client = await connect(privacyToken);
    const evidence = toolData<{ links: { recordType: string; title: string }[] }>(await callTool(client, 'get_record', { recordType: 'evidence', id: evidenceId }));
    // The link is shown as every link to a record the reader may not read: its id, "(restricted)", no screen.
    expect(evidence.links.filter((l) => l.recordType === 'processingActivity')).toEqual([expect.objectContaining({ title: '(restricted)', href: null })]);
    expect(JSON.stringify(evidence)).not.toContain(marker);
  });

  test('the people\'s search and REST search find processing activities with dataPrivacy:read whatever the assistant setting', async () => {
    await setPrivacy(false);
    const res = await env.request(`/api/v1/search?q=${encodeURIComponent(marker)}`, bearer(privacyToken));
    expect(res.status).toBe(200);
    const hits = ((await res.json()) as { data: Hit[] }).data;
    expect(hits.map((h) => h.id)).toEqual([activityId]);
  });

  test('DPIAs follow the same switch: absent from search and get_record while off, present to dataPrivacy:read while on', async () => {
    await setPrivacy(false);
    const off = await connect(privacyToken);
    expect(toolData<Hit[]>(await callTool(off, 'search', { q: dpiaMarker }))).toEqual([]);
    expect(await callTool(off, 'get_record', { recordType: 'dpia', id: dpiaId })).toMatchObject({ isError: true, content: [{ text: `DPIA ${dpiaId} not found` }] });
    await setPrivacy(true);
    const on = await connect(privacyToken);
    expect(toolData<Hit[]>(await callTool(on, 'search', { q: dpiaMarker }))).toEqual([expect.objectContaining({ kind: 'dpia', id: dpiaId })]);
    expect(toolData(await callTool(on, 'get_record', { recordType: 'dpia', id: dpiaId }))).toMatchObject({ id: dpiaId, required: true });
    const without = await connect(noPrivacyToken);
    expect(toolData<Hit[]>(await callTool(without, 'search', { q: dpiaMarker }))).toEqual([]);
  });

  test('controls named as measures, labels and reviews follow the switch: while off a control says nothing of the activities naming it', async () => {
    const writer = await makeToken(env, admin, ['dataPrivacy:read', 'dataPrivacy:update', 'dataPrivacy:review', 'controls:read', 'controls:create', 'settings:create']);
    const send = (method: string, path: string, body: unknown) => env.request(path, bearer(writer, { method, body: JSON.stringify(body) }));
    const created = async (res: Response) => {
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    const controlName = unique('Key management').replace(/[^A-Za-z0-9]/g, '');
    const controlId = await created(await send('POST', '/api/v1/controls', { name: controlName }));
    const labelName = unique('Customer data');
    const labelId = await created(await send('POST', '/api/v1/labels', { name: labelName }));
    const changed = await send('PATCH', `/api/v1/data-privacy/processing-activities/${activityId}`, { controlIds: [controlId], labelIds: [labelId] });
    expect(changed.status, await changed.clone().text()).toBe(200);
    await created(await send('POST', `/api/v1/data-privacy/processing-activities/${activityId}/reviews`, { outcome: 'changes_needed', notes: `${marker} retention too long` }));

    await setPrivacy(false);
    const off = await connect(privacyToken);
    const control = await callTool(off, 'get_record', { recordType: 'control', id: controlId });
    expect(control.isError, control.content[0]?.text).toBeFalsy();
    expect(JSON.stringify(control)).not.toContain(marker);
    expect(JSON.stringify(control)).not.toContain(activityId);
    expect(JSON.stringify(toolData(await callTool(off, 'search', { q: controlName })))).not.toContain(activityId);
    for (const q of [labelName, 'retention too long']) expect(JSON.stringify(toolData(await callTool(off, 'search', { q })))).not.toContain(marker);
    expect(JSON.stringify(toolData(await callTool(off, 'my_open_items', {})))).not.toContain(marker);

    await setPrivacy(true);
    const on = await connect(privacyToken);
    const record = toolData<Record<string, unknown>>(await callTool(on, 'get_record', { recordType: 'processingActivity', id: activityId }));
    expect(record).toMatchObject({ controlIds: [controlId], labelIds: [labelId], labels: [labelName], nextReviewOn: expect.any(String) });
  });
});
