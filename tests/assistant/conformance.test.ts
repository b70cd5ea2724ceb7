import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import { testEnv } from '../helpers/app';
import { adminActor, makeToken } from '../helpers/factories';

/**
 * The official MCP conformance suite's server scenarios that apply to this server: initialization, ping and
 * tools/list. (Its other scenarios call the reference server's own tools, resources and prompts, which this server
 * does not have by design.) The suite's client sends no credentials, so a loopback proxy adds the token, as an
 * assistant configured with one would.
 */

const CONFORMANCE = resolve(import.meta.dir, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let app: ReturnType<ReturnType<typeof createApp>['listen']>;
let proxy: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  const env = await testEnv();
  const admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true }));
  const token = await makeToken(env, admin, ['risks:read', 'controls:read', 'evidence:read']);
  app = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  const target = `http://127.0.0.1:${app.server!.port}`;
  proxy = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    fetch: (request) => {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers, body: request.body, duplex: 'half' } as RequestInit);
    },
  });
});

afterAll(async () => {
  proxy?.stop(true);
  await app?.stop();
});

describe('MCP conformance (server scenarios that apply)', () => {
  for (const scenario of SCENARIOS) {
    test(`${scenario} passes`, async () => {
      const run = Bun.spawn([process.execPath, CONFORMANCE, 'server', '--url', `http://127.0.0.1:${proxy.port}/api/mcp`, '--scenario', scenario], {
        stdout: 'pipe', stderr: 'pipe',
      });
      const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
      expect(code, `${out}\n${err}`).toBe(0);
      expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    }, 60_000);
  }
});
