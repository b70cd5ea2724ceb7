import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auditLog, evidenceUploadLinks } from '../../db/schema';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import { sha256Hex } from '../../src/platform/core/canonical-json';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let client: Client;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true }));
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server!.port}`;
  const token = await makeToken(env, admin, ['evidence:read', 'evidence:create', 'evidence:update', 'controls:read', 'controls:update']);
  client = new Client({ name: 'grc-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
});

afterAll(async () => {
  await client?.close();
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, DEFAULT_ASSISTANT_SETTINGS));
  await server?.stop();
});

async function askForLink(args: Record<string, unknown>): Promise<{ url: string; expiresAt: string; maxFiles: number }> {
  const result = (await client.callTool({ name: 'request_upload_link', arguments: args })) as { isError?: boolean; content: { text: string }[] };
  if (result.isError) throw new Error(result.content[0].text);
  return JSON.parse(result.content[0].text);
}

const upload = (url: string, name: string, body: BodyInit) => {
  const secret = new URL(url).pathname.split('/').pop()!;
  return fetch(`${base}/api/upload/${secret}/files?name=${encodeURIComponent(name)}`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
};

describe('upload links', () => {
  test('with PUBLIC_URL set the link is built on it; an assistant reaching the service under another host gets no link', async () => {
    const { createRecord } = await import('../../src/platform/records/records');
    const { controlKind } = await import('../../src/modules/controls/service');
    const control = (await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: 'Public address' }))).id;
    const saved = { publicUrl: env.ctx.config.PUBLIC_URL, allowedHosts: env.ctx.config.ALLOWED_HOSTS };
    const host = new URL(base).host;
    try {
      env.ctx.config.PUBLIC_URL = `https://${host}/grc`;
      expect((await askForLink({ recordType: 'control', recordId: control })).url).toStartWith(`https://${host}/grc/upload/`);
      env.ctx.config.PUBLIC_URL = 'https://grc.example.com';
      // The endpoint itself answers only to the service's addresses...
      await expect(askForLink({ recordType: 'control', recordId: control })).rejects.toThrow(`Host ${host} is not an address of this service (PUBLIC_URL, ALLOWED_HOSTS)`);
      // ...and where another address is allowed in, the link is still made only for PUBLIC_URL.
      env.ctx.config.ALLOWED_HOSTS = host;
      await expect(askForLink({ recordType: 'control', recordId: control })).rejects.toThrow(`not the service's address grc.example.com (PUBLIC_URL)`);
    } finally {
      env.ctx.config.PUBLIC_URL = saved.publicUrl;
      env.ctx.config.ALLOWED_HOSTS = saved.allowedHosts;
    }
  });

  test('a link opens an upload page without signing in; files land as evidence linked to the record, audited as the user who asked', async () => {
    const { createRecord } = await import('../../src/platform/records/records');
    const { controlKind } = await import('../../src/modules/controls/service');
    const control = (await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: 'Badge access' }))).id;
    const link = await askForLink({ recordType: 'control', recordId: control });
    expect(link.url).toStartWith(`${base}/upload/`);
    expect(link.maxFiles).toBe(10);
    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Upload evidence');

    const res = await upload(link.url, 'badge-log.csv', 'door,time\nA,09:00\n');
    expect(res.status, await res.clone().text()).toBe(201);
    const file = ((await res.json()) as { data: { evidenceId: string; sha256: string } }).data;
    expect(file.sha256).toBe(new Bun.CryptoHasher('sha256').update('door,time\nA,09:00\n').digest('hex'));
    const entries = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, file.evidenceId), eq(auditLog.action, 'file.upload')));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorUserId: admin.userId, via: 'mcp' });
    expect(entries[0].actorTokenId).not.toBeNull();
  });

  test('each of the 10 slots is used once, an expired link and an unknown one refuse clearly, and the secret is stored only hashed', async () => {
    const { createRecord } = await import('../../src/platform/records/records');
    const { evidenceKind } = await import('../../src/modules/evidence/service');
    const evidenceId = (await env.ctx.db.transaction((tx) => createRecord(tx, evidenceKind, admin, { title: 'Many files' }))).id;
    const link = await askForLink({ recordType: 'evidence', recordId: evidenceId });
    const secret = new URL(link.url).pathname.split('/').pop()!;
    const [row] = await env.ctx.db.select().from(evidenceUploadLinks).where(eq(evidenceUploadLinks.secretHash, sha256Hex(secret)));
    expect(row.secretHash).not.toContain(secret);

    const empty = await upload(link.url, 'empty.txt', '');
    expect(empty.status).toBe(400);
    for (let i = 0; i < 10; i += 1) expect((await upload(link.url, `f${i}.txt`, `file ${i}`)).status).toBe(201);
    const eleventh = await upload(link.url, 'f10.txt', 'one too many');
    expect(eleventh.status).toBe(409);
    expect(((await eleventh.json()) as { error: string }).error).toContain('All 10 files of this upload link were uploaded');

    const fresh = await askForLink({ recordType: 'evidence', recordId: evidenceId });
    await env.ctx.db.update(evidenceUploadLinks).set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(evidenceUploadLinks.secretHash, sha256Hex(new URL(fresh.url).pathname.split('/').pop()!)));
    const expired = await upload(fresh.url, 'late.txt', 'late');
    expect(expired.status).toBe(410);
    expect((await fetch(fresh.url)).status).toBe(410);
    expect(await refusalOf(env, async () => upload(`${base}/upload/${'x'.repeat(43)}`, 'a.txt', 'a'))).toEqual(refusedWith(404, 'Upload link not found'));
  });
});
