import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq } from 'drizzle-orm';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { auditLog } from '../../db/schema';
import { createApp } from '../../src/app';
import { readConfig } from '../../src/config';
import { foreignHost } from '../../src/modules/assistant/mcp';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import { removeGroupMember } from '../../src/modules/people/service';
import { systemActor, type Actor, type Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { callTool, connectMcp, toolData } from '../helpers/mcp';
import { adminActor, makeRisk, makeToken, makeUser } from '../helpers/factories';

let env: TestEnv;
let admin: Actor;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let endpoint: string;
const clients: Client[] = [];

const EVIDENCE: Permission[] = ['evidence:read', 'evidence:create', 'evidence:update'];
const READS: Permission[] = ['risks:read', 'controls:read', 'policies:read', 'compliance:read', 'audits:read'];

async function setEnabled(enabled: boolean) {
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled }));
}

/** An MCP client of the official SDK, connected over HTTP with the token. */
async function connect(token: string): Promise<Client> {
  const client = await connectMcp(endpoint, token);
  clients.push(client);
  return client;
}

const call = callTool;
const data = toolData;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${server.server!.port}/api/mcp`;
  await setEnabled(true);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await setEnabled(false);
  await server?.stop();
});

describe('the AI-assistant endpoint', () => {
  test('answers 404 while assistants may not connect, and 401 without a valid token', async () => {
    await setEnabled(false);
    const token = await makeToken(env, admin, READS);
    const off = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(off.status).toBe(404);
    await setEnabled(true);
    // RFC 6750: every 401 carries the Bearer challenge (identity-provider tokens are off here: no resource metadata).
    const anonymous = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="grc-service"');
    const wrong = await fetch(endpoint, { method: 'POST', headers: { authorization: 'Bearer aat_not-a-token', 'content-type': 'application/json' }, body: '{}' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="grc-service", error="invalid_token"');
  });

  test('GET (a stream) and DELETE (a session) answer 405 with Allow: POST, as a stateless server; 404 while off', async () => {
    const token = await makeToken(env, admin, READS);
    const asks: { method: string; headers: Record<string, string> }[] = [
      { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      { method: 'DELETE', headers: { authorization: `Bearer ${token}`, 'mcp-session-id': 'any' } },
      { method: 'GET', headers: { accept: 'text/event-stream' } },
    ];
    for (const ask of asks) {
      const res = await fetch(endpoint, ask);
      expect(res.status, ask.method).toBe(405);
      expect(res.headers.get('allow'), ask.method).toBe('POST');
      expect(res.headers.get('content-type'), ask.method).toContain('application/json');
      expect(((await res.json()) as { error: string }).error, ask.method).toContain('this address takes POST');
    }
    await setEnabled(false);
    expect((await fetch(endpoint, asks[0])).status).toBe(404);
    await setEnabled(true);
  });

  test('DNS rebinding: a Host or Origin that is not an address of the service is refused before the token is read, nothing run', async () => {
    const token = await makeToken(env, admin, READS);
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const post = (headers: Record<string, string>) => env.app.handle(new Request('http://127.0.0.1/api/mcp', {
      method: 'POST', body: initialize,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }));
    const before = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'permission.denied'));
    const foreign: Record<string, string>[] = [
      { host: 'evil.example.com' }, { host: 'evil.example.com:3000', origin: 'http://evil.example.com:3000' }, { host: '127.0.0.1:3000', origin: 'http://evil.example.com' }, { host: 'evil.example.com@127.0.0.1' },
    ];
    for (const headers of foreign) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as { error: string }).error, JSON.stringify(headers)).toMatch(/^(Host|Origin) .* is not an address of this service \(PUBLIC_URL, ALLOWED_HOSTS\)$/);
    }
    const after = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'permission.denied')).orderBy(auditLog.seq);
    expect(after.length - before.length).toBe(4);
    expect(JSON.stringify(after.at(-1)?.details)).toContain('DNS-rebinding protection');
    // The service's own loopback names, on any port, with or without a matching Origin.
    const own: Record<string, string>[] = [{ host: '127.0.0.1:3000' }, { host: 'localhost:8080', origin: 'http://localhost:8080' }, { host: '[::1]:3000' }];
    for (const headers of own) {
      expect((await post(headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  test('the addresses allowed are PUBLIC_URL\'s host and ALLOWED_HOSTS when set (a name without a port allows any port), else loopback', () => {
    const ask = (host: string, origin?: string) => new Request('http://x/api/mcp', { headers: { host, ...(origin ? { origin } : {}) } });
    const behindProxy = readConfig({ PUBLIC_URL: 'https://grc.example.com', ALLOWED_HOSTS: 'grc.internal, 10.0.0.5:8443' });
    expect(foreignHost(behindProxy, ask('grc.example.com', 'https://grc.example.com'))).toBeNull();
    expect(foreignHost(behindProxy, ask('grc.internal:3000'))).toBeNull();
    expect(foreignHost(behindProxy, ask('10.0.0.5:8443'))).toBeNull();
    expect(foreignHost(behindProxy, ask('10.0.0.5:3000'))).toBe('Host 10.0.0.5:3000');
    expect(foreignHost(behindProxy, ask('127.0.0.1:3000'))).toBe('Host 127.0.0.1:3000');
    expect(foreignHost(behindProxy, ask('grc.example.com', 'https://grc.example.com.evil.test'))).toBe('Origin https://grc.example.com.evil.test');
    expect(foreignHost(behindProxy, ask('grc.example.com', 'null'))).toBe('Origin null');
    const plain = readConfig({});
    expect(foreignHost(plain, ask('localhost:3000'))).toBeNull();
    expect(foreignHost(plain, ask('grc.example.com'))).toBe('Host grc.example.com');
  });

  test('initializes with the official client and lists the tools with their schemas and annotations', async () => {
    const client = await connect(await makeToken(env, admin, [...READS, ...EVIDENCE]));
    expect(client.getServerVersion()?.name).toBe('grc-service');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([
      'create_evidence', 'get_record', 'link_evidence', 'list_compliance', 'list_controls', 'list_evidence', 'list_policies', 'list_risks',
      'lock_evidence', 'my_open_items', 'request_upload_link', 'search', 'upload_evidence',
    ]);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['list_risks', 'list_controls', 'list_compliance', 'list_policies', 'list_evidence', 'get_record', 'my_open_items', 'search']) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    }
    for (const name of ['create_evidence', 'link_evidence', 'lock_evidence', 'upload_evidence', 'request_upload_link']) expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(false);
    expect(Object.keys(byName.get('list_risks')!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['page', 'pageSize', 'status', 'q', 'sort']));
    expect(byName.get('upload_evidence')!.inputSchema.required).toEqual(expect.arrayContaining(['recordType', 'recordId', 'fileName']));
  });

  test('tools/list shows a token only the tools it may call: a read-only token sees no writing tool, a risks-only token only what reads risks', async () => {
    const readOnly = await connect(await makeToken(env, admin, [...READS, 'evidence:read']));
    expect((await readOnly.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'get_record', 'list_compliance', 'list_controls', 'list_evidence', 'list_policies', 'list_risks', 'my_open_items', 'search',
    ]);
    const risksOnly = await connect(await makeToken(env, admin, ['risks:read']));
    // my_open_items: risk exceptions waiting for the user's decision.
    expect((await risksOnly.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_record', 'list_risks', 'my_open_items', 'search']);
    // A tool it does not see is refused like a REST request without its scope, and the refusal is audited with the reason.
    expect(await call(risksOnly, 'create_evidence', { title: 'x' })).toMatchObject({ isError: true, content: [{ text: 'forbidden' }] });
    const [denial] = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'permission.denied')).orderBy(desc(auditLog.seq)).limit(1);
    expect(JSON.stringify(denial.details)).toContain('token scope evidence:create missing (tool create_evidence)');
  });

  test("list tools act as the token's user: scopes, own level, and a right removed takes effect on the next call", async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:create': 'own', 'apiTokens:create': 'own' });
    const mine = await makeRisk(env, await user.actor());
    const others = await makeRisk(env, admin);
    const client = await connect(await makeToken(env, await user.actor(), ['risks:read']));
    const page = data<{ rows: { id: string }[] }>(await call(client, 'list_risks', { pageSize: 200 }));
    expect(page.rows.map((r) => r.id)).toContain(mine);
    expect(page.rows.map((r) => r.id)).not.toContain(others);
    const noScope = await call(client, 'list_controls', {});
    expect(noScope).toMatchObject({ isError: true, content: [{ text: 'forbidden' }] });

    await env.ctx.db.transaction((tx) => removeGroupMember(tx, systemActor(), user.groupId, user.id));
    const after = await call(client, 'list_risks', {});
    expect(after).toMatchObject({ isError: true, content: [{ text: 'forbidden' }] });
  });

  test('evidence tools: create, link, upload (text and base64), lock; locked evidence refuses changes; every write audited as the assistant', async () => {
    const token = await makeToken(env, admin, [...EVIDENCE, ...READS, 'controls:update']);
    const client = await connect(token);
    const control = (await env.ctx.db.transaction(async (tx) => {
      const { createRecord } = await import('../../src/platform/records/records');
      const { controlKind } = await import('../../src/modules/controls/service');
      return createRecord(tx, controlKind, admin, { name: 'Access reviews' });
    })).id;

    const created = data<{ id: string; title: string }>(await call(client, 'create_evidence', { title: 'Q3 access review sign-off' }));
    const linked = data<{ links: { recordType: string; title: string }[] }>(await call(client, 'link_evidence', { evidenceId: created.id, recordType: 'control', recordId: control }));
    expect(linked.links).toEqual([expect.objectContaining({ recordType: 'control', title: 'Access reviews' })]);
    const text = data<{ file: { sha256: string; name: string } }>(await call(client, 'upload_evidence', { recordType: 'evidence', recordId: created.id, fileName: 'summary.md', text: '# All 42 accounts reviewed' }));
    expect(text.file.sha256).toBe(new Bun.CryptoHasher('sha256').update('# All 42 accounts reviewed').digest('hex'));
    const onControl = data<{ evidenceId: string; file: { name: string } }>(await call(client, 'upload_evidence', {
      recordType: 'control', recordId: control, fileName: 'export.csv', base64: Buffer.from('user,reviewed\nana,yes\n').toString('base64'), title: 'Reviewer export',
    }));
    const full = data<{ title: string; links: { recordId: string }[]; files: { name: string; sha256: string }[] }>(await call(client, 'get_record', { recordType: 'evidence', id: onControl.evidenceId }));
    expect(full).toMatchObject({ title: 'Reviewer export', links: [{ recordId: control }], files: [{ name: 'export.csv' }] });
    const controlRecord = data<{ evidence: { id: string; files: { sha256: string }[] }[] }>(await call(client, 'get_record', { recordType: 'control', id: control }));
    expect(controlRecord.evidence.map((e) => e.id).sort()).toEqual([created.id, onControl.evidenceId].sort());

    data(await call(client, 'lock_evidence', { evidenceId: created.id }));
    const refused = await call(client, 'upload_evidence', { recordType: 'evidence', recordId: created.id, fileName: 'late.txt', text: 'late' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toContain('is locked');
    const unlink = await call(client, 'link_evidence', { evidenceId: created.id, recordType: 'control', recordId: control, unlink: true });
    expect(unlink.content[0].text).toContain('is locked');

    const entries = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, created.id), eq(auditLog.via, 'mcp')));
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['create', 'link', 'file.upload', 'lock']));
    expect(entries.every((e) => e.actorTokenId !== null && e.actorUserId === admin.userId)).toBe(true);
  });

  test('bad calls are JSON-RPC errors, never a 500, and write nothing', async () => {
    const client = await connect(await makeToken(env, admin, [...EVIDENCE, ...READS]));
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toBeInstanceOf(McpError);
    await expect(client.callTool({ name: 'create_evidence', arguments: { title: 42 } })).rejects.toThrow(/Invalid arguments for create_evidence: title/);
    const before = (await env.ctx.db.select({ id: auditLog.seq }).from(auditLog)).length;
    await expect(call(client, 'upload_evidence', { recordType: 'evidence', recordId: crypto.randomUUID(), fileName: 'big.txt', text: 'x'.repeat(10 * 1024 * 1024 + 1) }))
      .rejects.toThrow(/Invalid arguments for upload_evidence: text/);
    const decoded = Buffer.alloc(10 * 1024 * 1024 + 1, 1).toString('base64');
    const overDecoded = await call(client, 'upload_evidence', { recordType: 'evidence', recordId: crypto.randomUUID(), fileName: 'big.bin', base64: decoded });
    expect(overDecoded).toMatchObject({ isError: true, content: [{ text: 'upload_evidence takes at most 10 MB; upload larger files on the evidence page or through the REST API' }] });
    expect((await env.ctx.db.select({ id: auditLog.seq }).from(auditLog)).length).toBe(before);

    const token = await makeToken(env, admin, READS);
    const post = (body: string) => fetch(endpoint, {
      method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    const malformed = await post('{"jsonrpc": "2.0", "method": ');
    expect(malformed.status).toBeLessThan(500);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const notRpc = await post('{"hello": "world"}');
    expect(notRpc.status).toBeLessThan(500);
  });

  test('every list tool answers with the scope and is refused without it; get_record refuses a record the user cannot read', async () => {
    const full = await connect(await makeToken(env, admin, [...READS, 'evidence:read']));
    for (const name of ['list_risks', 'list_controls', 'list_policies', 'list_compliance', 'list_evidence']) {
      const page = data<{ rows: unknown[]; total: number; page: number }>(await call(full, name, { pageSize: 5 }));
      expect(page.page, name).toBe(1);
    }
    const bare = await connect(await makeToken(env, admin, ['evidence:read']));
    for (const name of ['list_risks', 'list_controls', 'list_policies', 'list_compliance']) {
      expect(await call(bare, name, {}), name).toMatchObject({ isError: true, content: [{ text: 'forbidden' }] });
    }
    const riskId = await makeRisk(env, admin);
    expect(data<{ id: string; treatments: unknown[] }>(await call(full, 'get_record', { recordType: 'risk', id: riskId }))).toMatchObject({ id: riskId, treatments: [] });
    const user = await makeUser(env, { 'risks:read': 'own', 'apiTokens:create': 'own' });
    const own = await connect(await makeToken(env, await user.actor(), ['risks:read']));
    expect(await call(own, 'get_record', { recordType: 'risk', id: riskId })).toMatchObject({ isError: true, content: [{ text: `Risk ${riskId} not found` }] });
    expect(await call(bare, 'create_evidence', { title: 'x' })).toMatchObject({ isError: true, content: [{ text: 'forbidden' }] });
    expect(await call(bare, 'search', { q: 'anything' })).not.toMatchObject({ isError: true });
  });

  test('list tools serve page and pageSize as bounded integers, read a number written as text, and refuse one out of bounds', async () => {
    const client = await connect(await makeToken(env, admin, READS));
    const listRisks = (await client.listTools()).tools.find((t) => t.name === 'list_risks')!;
    expect(listRisks.inputSchema.properties?.pageSize).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    expect(data<{ page: number; pageSize: number }>(await call(client, 'list_risks', { page: '1', pageSize: '5' }))).toMatchObject({ page: 1, pageSize: 5 });
    await expect(call(client, 'list_risks', { page: '0' })).rejects.toThrow(/Invalid arguments for list_risks: page/);
    await expect(call(client, 'list_controls', { pageSize: '100000' })).rejects.toThrow(/Invalid arguments for list_controls: pageSize/);
    await expect(call(client, 'list_policies', { page: 'two' })).rejects.toThrow(/Invalid arguments for list_policies: page/);
  });

  test('a JSON-RPC batch is refused as an error, never a 500', async () => {
    const token = await makeToken(env, admin, READS);
    const res = await fetch(endpoint, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]),
    });
    expect(res.status).toBeLessThan(500);
    const body = (await res.json()) as { error?: { code: number } } | { error?: { code: number } }[];
    const first = Array.isArray(body) ? body[0] : body;
    expect(first.error?.code ?? 0).toBeLessThan(0);
  });

  test('my_open_items lists evidence of the user expiring soon', async () => {
    const token = await makeToken(env, admin, [...EVIDENCE, ...READS]);
    const client = await connect(token);
    const soon = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const created = data<{ id: string }>(await call(client, 'create_evidence', { title: 'Pen test letter', validUntil: soon }));
    const items = data<{ evidenceExpiring: { evidenceId: string; status: string }[]; auditFindings: unknown[] }>(await call(client, 'my_open_items'));
    expect(items.evidenceExpiring).toContainEqual(expect.objectContaining({ evidenceId: created.id, status: 'expiring' }));
    expect(Array.isArray(items.auditFindings)).toBe(true);
  });
});
