import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { risks } from '../../db/schema';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import { createGroup, setUserStatus } from '../../src/modules/people/service';
import { systemActor, type Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { callTool, connectMcp, toolData } from '../helpers/mcp';
import { refusalOf } from '../helpers/refusals';

// Level own, met through every door: a user whose rights are at level own never reads, lists, changes, deletes,
// downloads or finds a record owned by a group they are not in (nor by someone else), while a reader at level all
// sees every record. The rules themselves: tests/platform/permissions.test.ts.

let env: TestEnv;
let admin: Actor;
let ownUser: TestUser;
let ownToken: string;
let readerToken: string;
let mine: string;
let theirs: string;
let theirsTitle: string;
const marker = `own${crypto.randomUUID().slice(0, 8)}`;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
const clients: Client[] = [];

const send = (secret: string, method: string, path: string, body?: unknown) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const dataOf = async <T>(res: Response): Promise<T> => {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return ((await res.json()) as { data: T }).data;
};

async function setAssistants(enabled: boolean) {
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled }));
}

async function assistant(secret: string): Promise<Client> {
  const client = await connectMcp(`http://127.0.0.1:${server.server!.port}/api/mcp`, secret);
  clients.push(client);
  return client;
}
const tool = callTool;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  ownUser = await makeUser(env, {
    'risks:read': 'own', 'risks:create': 'own', 'risks:update': 'own', 'risks:delete': 'own', 'apiTokens:create': 'own',
  });
  const someoneElse = await makeUser(env, { 'risks:read': 'own' });
  const reader = await makeUser(env, { 'risks:read': 'all', 'apiTokens:create': 'own' });
  ownToken = await makeToken(env, await ownUser.actor(), ['risks:read', 'risks:create', 'risks:update', 'risks:delete']);
  readerToken = await makeToken(env, await reader.actor(), ['risks:read']);
  mine = await makeRisk(env, await ownUser.actor(), { title: `Mine ${marker}` });
  theirsTitle = `Theirs ${marker}`;
  theirs = await makeRisk(env, admin, { title: theirsTitle, ownerId: null, ownerGroupId: someoneElse.groupId });
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  await setAssistants(true);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await setAssistants(false);
  await server?.stop();
});

const storedTheirs = async () => (await env.ctx.db.select().from(risks).where(eq(risks.id, theirs)))[0];

describe("a user at level own and another group's record", () => {
  test('reading it by id is a 404 that names nothing, audited with the missing read right', async () => {
    expect(await refusalOf(env, () => send(ownToken, 'GET', `/api/v1/risks/${theirs}`))).toEqual({
      status: 404, error: `Risk ${theirs} not found`, reasons: [`no risks:read on Risk ${theirs}`],
    });
    // The whole answer: nothing beside the message (no field problems) says more about the record.
    expect(await (await send(ownToken, 'GET', `/api/v1/risks/${theirs}`)).json()).toEqual({ error: `Risk ${theirs} not found` });
  });

  test('the list leaves it out, and its total counts only what they may read', async () => {
    const page = await dataOf<{ rows: { id: string }[]; total: number }>(await send(ownToken, 'GET', `/api/v1/risks?q=${marker}&pageSize=200`));
    expect(page.rows.map((r) => r.id)).toEqual([mine]);
    expect(page.total).toBe(1);
  });

  test('changing and deleting it are refused as not found, and it stays as it was', async () => {
    const before = await storedTheirs();
    expect(await refusalOf(env, () => send(ownToken, 'PATCH', `/api/v1/risks/${theirs}`, { title: 'Taken over' }))).toEqual({
      status: 404, error: `Risk ${theirs} not found`, reasons: [`no risks:read on Risk ${theirs}`],
    });
    expect(await refusalOf(env, () => send(ownToken, 'DELETE', `/api/v1/risks/${theirs}`))).toEqual({
      status: 404, error: `Risk ${theirs} not found`, reasons: [`no risks:read on Risk ${theirs}`],
    });
    expect(await storedTheirs()).toEqual(before);
  });

  test('handing their own record to that group is refused: it would no longer be theirs', async () => {
    const { ownerGroupId } = await storedTheirs();
    expect(await refusalOf(env, () => send(ownToken, 'PATCH', `/api/v1/risks/${mine}`, { ownerId: null, ownerGroupId }))).toEqual({
      status: 403, error: 'forbidden', reasons: ['risks:update is at level own: the record must be owned by you or one of your groups'],
    });
  });

  test('the download of current records leaves it out', async () => {
    const browser = await signedInBrowser(env, ownUser.email, ownUser.password);
    const res = await browser.get('/risks/import/current.csv');
    expect(res.status).toBe(200);
    const csv = await res.text();
    expect(csv).toContain(mine);
    expect(csv).not.toContain(theirs);
    expect(csv).not.toContain(theirsTitle);
  });

  test('search does not find it', async () => {
    const hits = await dataOf<{ id: string }[]>(await send(ownToken, 'GET', `/api/v1/search?q=${marker}`));
    expect(hits.map((h) => h.id)).toEqual([mine]);
  });

  test('nor does an assistant acting as them: search, list_risks and get_record', async () => {
    const client = await assistant(ownToken);
    expect(toolData<{ id: string }[]>(await tool(client, 'search', { q: marker })).map((h) => h.id)).toEqual([mine]);
    expect(toolData<{ rows: { id: string }[] }>(await tool(client, 'list_risks', { q: marker })).rows.map((r) => r.id)).toEqual([mine]);
    expect(await tool(client, 'get_record', { recordType: 'risk', id: theirs })).toMatchObject({ isError: true, content: [{ text: `Risk ${theirs} not found` }] });
  });
});

describe('a reader at level all', () => {
  test('reads, lists and finds every record, whoever owns it', async () => {
    expect((await dataOf<{ id: string }>(await send(readerToken, 'GET', `/api/v1/risks/${theirs}`))).id).toBe(theirs);
    const page = await dataOf<{ rows: { id: string }[]; total: number }>(await send(readerToken, 'GET', `/api/v1/risks?q=${marker}&pageSize=200`));
    expect(page.rows.map((r) => r.id).sort()).toEqual([mine, theirs].sort());
    expect(page.total).toBe(2);
    const hits = await dataOf<{ id: string }[]>(await send(readerToken, 'GET', `/api/v1/search?q=${marker}`));
    expect(hits.map((h) => h.id).sort()).toEqual([mine, theirs].sort());
    const client = await assistant(readerToken);
    expect(toolData<{ rows: { id: string }[] }>(await tool(client, 'list_risks', { q: marker })).rows.map((r) => r.id).sort()).toEqual([mine, theirs].sort());
    expect(toolData<{ id: string }>(await tool(client, 'get_record', { recordType: 'risk', id: theirs })).id).toBe(theirs);
  });

  test('but may not change what they only read: 403 naming the missing right', async () => {
    expect(await refusalOf(env, () => send(readerToken, 'PATCH', `/api/v1/risks/${theirs}`, { title: 'Edited by a reader' }))).toEqual({
      status: 403, error: 'forbidden', reasons: ['token scope risks:update missing'],
    });
  });
});

describe('owners on a single create or update', () => {
  test('a deactivated owner is refused with 400 naming the field', async () => {
    const leaver = await makeUser(env, {});
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), leaver.id, 'deactivated'));
    const createToken = await makeToken(env, admin, ['risks:read', 'risks:create', 'risks:update']);
    const body = { title: unique('Owned by a leaver'), classificationId: (await storedTheirs()).classificationId, inherentLikelihood: 2, inherentImpact: 2, ownerId: leaver.id };
    const onCreate = await send(createToken, 'POST', '/api/v1/risks', body);
    expect(onCreate.status).toBe(400);
    expect(((await onCreate.json()) as { error: string }).error).toBe('ownerId: must be an active user');
    const onUpdate = await send(createToken, 'PATCH', `/api/v1/risks/${mine}`, { ownerId: leaver.id });
    expect(onUpdate.status).toBe(400);
    expect(((await onUpdate.json()) as { error: string }).error).toBe('ownerId: must be an active user');
  });

  test('a record whose owner has left is still edited while its owner is kept; handing it to them again is not asked', async () => {
    const leaver = await makeUser(env, {});
    const token = await makeToken(env, admin, ['risks:read', 'risks:create', 'risks:update']);
    const body = { title: unique('Owned by someone leaving'), classificationId: (await storedTheirs()).classificationId, inherentLikelihood: 2, inherentImpact: 2, ownerId: leaver.id };
    const { id } = await dataOf<{ id: string }>(await send(token, 'POST', '/api/v1/risks', body));
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), leaver.id, 'deactivated'));
    const renamed = await send(token, 'PATCH', `/api/v1/risks/${id}`, { title: `${body.title} (renamed)` });
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    expect(await dataOf<{ title: string; owner: { id: string } | null }>(renamed)).toMatchObject({ title: `${body.title} (renamed)`, owner: { id: leaver.id } });
    // Naming the same owner again is keeping them, not handing the record over.
    expect((await send(token, 'PATCH', `/api/v1/risks/${id}`, { ownerId: leaver.id, status: 'open' })).status).toBe(200);
  });

  test('an unknown owner group is refused with 400 naming the field, before the database would', async () => {
    const createToken = await makeToken(env, admin, ['risks:read', 'risks:create', 'risks:update']);
    const unknownGroup = crypto.randomUUID();
    const body = { title: unique('Owned by no group'), classificationId: (await storedTheirs()).classificationId, inherentLikelihood: 2, inherentImpact: 2, ownerGroupId: unknownGroup };
    const onCreate = await send(createToken, 'POST', '/api/v1/risks', body);
    expect(onCreate.status).toBe(400);
    expect(((await onCreate.json()) as { error: string }).error).toBe('ownerGroupId: no such group');
    const onUpdate = await send(createToken, 'PATCH', `/api/v1/risks/${mine}`, { ownerGroupId: unknownGroup });
    expect(onUpdate.status).toBe(400);
    expect(((await onUpdate.json()) as { error: string }).error).toBe('ownerGroupId: no such group');
    // A group that exists is taken.
    const { id: group } = await env.ctx.db.transaction((tx) => createGroup(tx, systemActor(), { name: unique('group') }));
    expect((await send(createToken, 'PATCH', `/api/v1/risks/${mine}`, { ownerGroupId: group })).status).toBe(200);
  });

  const registers = [
    { area: 'controls', module: 'controls', body: { name: unique('Control') } },
    { area: 'assets', module: 'assets', body: { name: unique('Asset') } },
    { area: 'policies', module: 'policies', body: { title: unique('Policy') } },
    { area: 'third-parties', module: 'thirdParties', body: { name: unique('Vendor') } },
    { area: 'incidents', module: 'incidents', body: { title: unique('Incident') } },
    { area: 'projects', module: 'projects', body: { title: unique('Project') } },
  ] as const;
  for (const register of registers) {
    test(`${register.area}: an unknown owner group, an unknown owner and a deactivated owner are 400s on create and update, the last two alike`, async () => {
      const token = await makeToken(env, admin, [`${register.module}:read`, `${register.module}:create`, `${register.module}:update`]);
      const leaver = await makeUser(env, {});
      await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), leaver.id, 'deactivated'));
      const unknownGroup = crypto.randomUUID();
      const errorOf = async (res: Response) => ({ status: res.status, error: ((await res.json()) as { error: string }).error });
      expect(await errorOf(await send(token, 'POST', `/api/v1/${register.area}`, { ...register.body, ownerGroupId: unknownGroup })))
        .toEqual({ status: 400, error: 'ownerGroupId: no such group' });
      expect(await errorOf(await send(token, 'POST', `/api/v1/${register.area}`, { ...register.body, ownerId: leaver.id })))
        .toEqual({ status: 400, error: 'ownerId: must be an active user' });
      expect(await errorOf(await send(token, 'POST', `/api/v1/${register.area}`, { ...register.body, ownerId: crypto.randomUUID() })))
        .toEqual({ status: 400, error: 'ownerId: must be an active user' }); // the same answer: which ids exist is not told
      const created = await send(token, 'POST', `/api/v1/${register.area}`, register.body);
      const { id } = await dataOf<{ id: string }>(created);
      expect(await errorOf(await send(token, 'PATCH', `/api/v1/${register.area}/${id}`, { ownerGroupId: unknownGroup })))
        .toEqual({ status: 400, error: 'ownerGroupId: no such group' });
      expect(await errorOf(await send(token, 'PATCH', `/api/v1/${register.area}/${id}`, { ownerId: leaver.id })))
        .toEqual({ status: 400, error: 'ownerId: must be an active user' });
    });
  }
});
