import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { outbox } from '../../db/schema';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import { createScimToken, setScimEnabled } from '../../src/modules/people/scim/service';
import { riskKind } from '../../src/modules/risks/service';
import { makeRuleMails } from '../../src/platform/notifications/rule-mails';
import { createRule, deleteRule, type NotificationRuleInput } from '../../src/platform/notifications/rules';
import { notificationSettings, saveNotificationSettings } from '../../src/platform/notifications/settings';
import type { Actor } from '../../src/platform/permissions/permissions';
import { updateRecord } from '../../src/platform/records/records';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeRisk, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { baseBundle, bundleFile, load, LOADER_SCOPES } from '../bundle/helpers';

/**
 * "Notify on API changes and CSV imports" (spec Events 3): while off, changes through the REST API, CSV imports, the
 * bundle loader, SCIM and the assistant endpoint mail no rule; screen changes do. Each door in both positions.
 */

let env: TestEnv;
let admin: Actor;
let watcher: TestUser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
const rules: string[] = [];

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  watcher = await makeUser(env, {
    'risks:read': 'all', 'controls:read': 'all', 'evidence:read': 'all', 'settings:read': 'all',
  }, unique('wanda.watcher'));
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  const watch = (recordType: string): NotificationRuleInput => ({
    name: unique(`${recordType} created`), recordType, event: 'created', field: null, value: null, notifyOwner: false, notifyOwnerGroup: false,
    userIds: [watcher.id], groupIds: [], addresses: [], enabled: true,
  });
  for (const type of ['risk', 'control', 'user', 'evidence']) {
    rules.push((await env.ctx.db.transaction((tx) => createRule(tx, admin, watch(type)))).id);
  }
  await env.ctx.db.transaction((tx) => setScimEnabled(tx, admin, true));
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true }));
}, 300_000);

afterAll(async () => {
  await switchTo(false);
  for (const id of rules) await env.ctx.db.transaction((tx) => deleteRule(tx, admin, id));
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, DEFAULT_ASSISTANT_SETTINGS));
  await server?.stop();
}, 120_000);

async function switchTo(on: boolean) {
  const settings = await notificationSettings(env.ctx.db);
  await env.ctx.db.transaction((tx) => saveNotificationSettings(tx, admin, { ...settings, notifyOnApiChanges: on }));
}

/** The rule mails to the watcher that mention `text`, after every committed change was considered. */
async function mailsAbout(text: string) {
  await makeRuleMails(env.ctx);
  return (await env.ctx.db.select().from(outbox).where(eq(outbox.kind, 'rule')))
    .filter((m) => m.recipients.includes(watcher.email) && (m.subject.includes(text) || m.body.includes(text)));
}

const doors: [string, (tag: string) => Promise<void>][] = [
  ['the REST API', async (tag) => {
    const token = await makeToken(env, admin, ['risks:create']);
    const classification = await classificationId(env);
    const res = await fetch(`${base}/api/v1/risks`, bearer(token, { method: 'POST', body: JSON.stringify({ title: tag, classificationId: classification, inherentLikelihood: 2, inherentImpact: 2 }) }));
    expect(res.status, await res.clone().text()).toBe(201);
  }],
  ['a CSV import', async (tag) => {
    const token = await makeToken(env, admin, ['risks:create', 'risks:update', 'risks:read']);
    const csv = `title,classification,inherent_likelihood,inherent_impact\n${tag},Operational,2,3\n`;
    const res = await fetch(`${base}/api/v1/risks/import?mode=apply`, bearer(token, { method: 'POST', body: csv, headers: { 'content-type': 'text/csv', 'x-file-name': `${tag}.csv` } }));
    expect(res.status, await res.clone().text()).toBe(200);
  }],
  ['the bundle loader', async (tag) => {
    const bundle = baseBundle(`${tag}-`);
    const token = await makeToken(env, admin, LOADER_SCOPES);
    const result = await load([bundleFile(bundle), '--url', base, '--apply'], { token });
    expect(result.code, result.stderr + result.stdout).toBe(0);
  }],
  ['SCIM', async (tag) => {
    const { secret } = await env.ctx.db.transaction((tx) => createScimToken(tx, admin, unique('IdP')));
    const res = await fetch(`${base}/scim/v2/Users`, {
      method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `${tag}@test.example`, name: { givenName: tag, familyName: 'Provisioned' }, active: true }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
  }],
  ['the AI assistant endpoint', async (tag) => {
    const token = await makeToken(env, admin, ['evidence:read', 'evidence:create']);
    const client = new Client({ name: 'grc-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const result = await client.callTool({ name: 'create_evidence', arguments: { title: tag, collectedOn: '2026-11-01' } }) as { isError?: boolean; content: unknown };
    await client.close();
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  }],
];

describe('Notify on API changes and CSV imports', () => {
  test('is off by default', async () => {
    expect((await notificationSettings(env.ctx.db)).notifyOnApiChanges).toBe(false);
  });

  for (const [door, change] of doors) {
    test(`off: a change through ${door} mails no rule; on: it does`, async () => {
      await switchTo(false);
      const quiet = unique('Off');
      await change(quiet);
      expect(await mailsAbout(quiet), `${door} with the switch off`).toHaveLength(0);
      await switchTo(true);
      const loud = unique('On');
      await change(loud);
      const mails = await mailsAbout(loud);
      expect(mails.length, `${door} with the switch on`).toBeGreaterThanOrEqual(1);
      expect(new Set(mails.map((m) => m.subject)).size, 'one mail per change').toBe(mails.length);
      await switchTo(false);
    }, 240_000);
  }

  test('screen changes mail in both positions', async () => {
    for (const on of [false, true]) {
      await switchTo(on);
      const title = unique(on ? 'Screen on' : 'Screen off');
      await makeRisk(env, admin, { title });
      const mails = await mailsAbout(title);
      expect(mails.map((m) => m.subject)).toEqual([`Risk created: ${title}`]);
    }
    await switchTo(false);
  }, 240_000);

  test('a screen change to a risk still mails with the switch off, an API change to the same risk does not', async () => {
    const title = unique('Mixed');
    const riskId = await makeRisk(env, admin, { title });
    const changeRule = (await env.ctx.db.transaction((tx) => createRule(tx, admin, {
      name: unique('risk changed'), recordType: 'risk', event: 'changed', field: null, value: null, notifyOwner: false, notifyOwnerGroup: false,
      userIds: [watcher.id], groupIds: [], addresses: [], enabled: true,
    }))).id;
    rules.push(changeRule);
    await env.ctx.db.transaction(async (tx) => updateRecord(tx, riskKind, { ...admin, via: 'api' }, riskId, { description: 'by API' }));
    await env.ctx.db.transaction(async (tx) => updateRecord(tx, riskKind, admin, riskId, { description: 'on screen' }));
    const changed = (await mailsAbout(title)).filter((m) => m.subject.startsWith('Risk changed'));
    expect(changed).toHaveLength(1);
    expect(changed[0].body).toContain('in the app');
  }, 240_000);
});
