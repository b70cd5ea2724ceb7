import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { callTool, connectMcp, toolData } from '../helpers/mcp';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

/** Transfers, TIAs and the data-map fields of an asset follow "Include privacy records" on the assistant endpoint. */

let env: TestEnv;
let admin: Actor;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let endpoint: string;
const clients: Client[] = [];
let token: string;
let transferId: string;
let tiaId: string;
let assetId: string;
let noPrivacyToken: string;
/** Words found only in this file's transfer (its notes) and TIA (the laws assessed), so a search hits nothing else. */
let transferWord: string;
let lawWord: string;

type Hit = { kind: string; id: string; title: string };

const READS: Permission[] = ['dataPrivacy:read', 'thirdParties:read', 'assets:read'];

async function setPrivacy(includePrivacy: boolean) {
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true, includePrivacy }));
}
async function connect(as = token): Promise<Client> {
  const client = await connectMcp(endpoint, as);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${server.server!.port}/api/mcp`;
  const writer = await makeToken(env, admin, ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'thirdParties:read', 'thirdParties:create', 'assets:read', 'assets:create']);
  const send = async (method: string, path: string, body: unknown, status: number) => {
    const res = await env.request(path, bearer(writer, { method, body: JSON.stringify(body) }));
    expect(res.status, await res.clone().text()).toBe(status);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  transferWord = unique('Payslips').replace(/[^A-Za-z0-9]/g, '');
  lawWord = unique('Surveillance').replace(/[^A-Za-z0-9]/g, '');
  const vendor = (await send('POST', '/api/v1/third-parties', { name: unique('Payroll bureau') }, 201)).id;
  const activity = (await send('POST', '/api/v1/data-privacy/processing-activities', { name: unique('Payroll'), legalBasis: 'contract' }, 201)).id;
  tiaId = (await send('POST', `/api/v1/third-parties/${vendor}/transfer-impact-assessments`, {
    name: unique('India transfers'), lawsAssessed: `IT Act 2000; ${lawWord} interception rules`, riskFound: 'low', conclusion: 'proceed', assessedOn: '2026-03-01',
  }, 201)).id;
  transferId = (await send('POST', '/api/v1/data-privacy/transfers', {
    name: unique('Payroll data'), processingActivityId: activity, destinationCountry: 'IN', recipientThirdPartyId: vendor, safeguard: 'bcrs', transferImpactAssessmentId: tiaId,
    notes: `Monthly ${transferWord} salary files`,
  }, 201)).id;
  assetId = (await send('POST', '/api/v1/assets', { name: unique('HR system') }, 201)).id;
  await send('PUT', `/api/v1/assets/${assetId}/data-map`, { personalDataHeld: true, dataCategories: ['health_data'], locationCountry: 'DE' }, 200);
  token = await makeToken(env, admin, READS);
  noPrivacyToken = await makeToken(env, admin, READS.filter((p) => p !== 'dataPrivacy:read'));
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, DEFAULT_ASSISTANT_SETTINGS));
  await server?.stop();
});

describe('transfers, TIAs and data-map fields on the assistant endpoint', () => {
  test('while "Include privacy records" is off: get_record refuses transfers and TIAs as missing; an asset never carries data-map fields', async () => {
    await setPrivacy(false);
    const client = await connect();
    expect(await callTool(client, 'get_record', { recordType: 'transfer', id: transferId }))
      .toMatchObject({ isError: true, content: [{ text: `Transfer ${transferId} not found` }] });
    expect(await callTool(client, 'get_record', { recordType: 'transferImpactAssessment', id: tiaId }))
      .toMatchObject({ isError: true, content: [{ text: `Transfer impact assessment ${tiaId} not found` }] });
    const asset = JSON.stringify(toolData(await callTool(client, 'get_record', { recordType: 'asset', id: assetId })));
    expect(asset).not.toContain('personalDataHeld');
    expect(asset).not.toContain('health_data');
  });

  test('while on, a token with dataPrivacy:read reads them', async () => {
    await setPrivacy(true);
    const client = await connect();
    expect(toolData(await callTool(client, 'get_record', { recordType: 'transfer', id: transferId })))
      .toMatchObject({ id: transferId, destinationCountry: 'IN', destinationCountryName: 'India', safeguard: 'bcrs', transferImpactAssessmentId: tiaId });
    expect(toolData(await callTool(client, 'get_record', { recordType: 'transferImpactAssessment', id: tiaId })))
      .toMatchObject({ id: tiaId, riskFound: 'low', conclusion: 'proceed' });
  });

  test('while off, search finds neither a transfer nor a TIA, even asked for by kind, with dataPrivacy:read', async () => {
    await setPrivacy(false);
    const client = await connect();
    expect(toolData<Hit[]>(await callTool(client, 'search', { q: transferWord }))).toEqual([]);
    expect(toolData<Hit[]>(await callTool(client, 'search', { q: lawWord }))).toEqual([]);
    expect(toolData<Hit[]>(await callTool(client, 'search', { q: transferWord, kinds: 'transfer' }))).toEqual([]);
  });

  test('while on, search finds a transfer by its notes and a TIA by the laws assessed, for tokens with dataPrivacy:read only', async () => {
    await setPrivacy(true);
    const client = await connect();
    expect(toolData<Hit[]>(await callTool(client, 'search', { q: transferWord }))).toEqual([expect.objectContaining({ kind: 'transfer', id: transferId })]);
    expect(toolData<Hit[]>(await callTool(client, 'search', { q: lawWord }))).toEqual([expect.objectContaining({ kind: 'transferImpactAssessment', id: tiaId })]);
    const without = await connect(noPrivacyToken);
    expect(toolData<Hit[]>(await callTool(without, 'search', { q: transferWord }))).toEqual([]);
    expect(toolData<Hit[]>(await callTool(without, 'search', { q: lawWord }))).toEqual([]);
  });

  test('REST search finds them with dataPrivacy:read whatever the assistant setting, and never without it', async () => {
    await setPrivacy(false);
    const found = async (as: string, q: string) => {
      const res = await env.request(`/api/v1/search?q=${encodeURIComponent(q)}`, bearer(as));
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { data: Hit[] }).data.map((h) => `${h.kind} ${h.id}`);
    };
    expect(await found(token, transferWord)).toEqual([`transfer ${transferId}`]);
    expect(await found(token, lawWord)).toEqual([`transferImpactAssessment ${tiaId}`]);
    expect(await found(noPrivacyToken, transferWord)).toEqual([]);
    expect(await found(noPrivacyToken, lawWord)).toEqual([]);
  });
});
