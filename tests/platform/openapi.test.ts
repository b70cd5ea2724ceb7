import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { testEnv, type TestEnv } from '../helpers/app';
import { isPermission } from '../../src/platform/permissions/permissions';

let env: TestEnv;
let doc: { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

beforeAll(async () => {
  env = await testEnv();
  const res = await env.request('/api/v1/openapi');
  expect(res.status).toBe(200);
  doc = (await res.json()) as typeof doc;
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ path, method, op })));

describe('OpenAPI document', () => {
  test('is served without a token as the JSON document itself', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/api/v1/risks');
  });

  test('passes a real OpenAPI validator', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  test('every operation states the token scope it needs', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(3);
    for (const { path, method, op } of ops) {
      const scope = op['x-required-scope'];
      expect(typeof scope === 'string' && isPermission(scope), `${method.toUpperCase()} ${path}`).toBe(true);
      expect(op.security, `${method.toUpperCase()} ${path}`).toEqual([{ bearerAuth: [] }]);
    }
  });

  test('list responses are described by their row schemas and carry no runtime-only flag', () => {
    const list = doc.paths['/api/v1/risks'].get as { responses: Record<string, { content: Record<string, { schema: unknown }> }> };
    const schema = JSON.stringify(list.responses['200'].content['application/json'].schema);
    expect(schema).toContain('inherentScore');
    expect(JSON.stringify(doc)).not.toContain('noValidate');
  });

  test('every operation that takes a body documents it: a content type and its schema', () => {
    const documented = new Map(operations().map(({ path, method, op }) => [`${method} ${path}`, op]));
    const undocumented: string[] = [];
    // Every route with a body schema has a request body in the document...
    for (const route of env.app.routes as { method: string; path: string; hooks?: { body?: unknown } }[]) {
      if (!route.path.startsWith('/api/v1/') || !route.hooks?.body) continue;
      const key = `${route.method.toLowerCase()} ${route.path.replace(/:([^/]+)/g, '{$1}')}`;
      if (!documented.get(key)?.requestBody) undocumented.push(key);
    }
    // ...and every request body in the document names its content types, each with a schema.
    for (const { path, method, op } of operations()) {
      const body = op.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined;
      if (!body) continue;
      const media = Object.entries(body.content ?? {});
      if (media.length === 0 || media.some(([, m]) => !m.schema || Object.keys(m.schema).length === 0)) undocumented.push(`${method} ${path}`);
    }
    expect(undocumented).toEqual([]);
    const create = doc.paths['/api/v1/risks'].post as { requestBody: { content: Record<string, { schema: { required: string[] } }> } };
    expect(Object.keys(create.requestBody.content)).toEqual(['application/json']);
    expect(create.requestBody.content['application/json'].schema.required).toContain('classificationId');
  });

  test('every operation documents its answers: a success with its schema (204 without a body) and the refusals with the error envelope', () => {
    const undocumented: string[] = [];
    for (const { path, method, op } of operations()) {
      const responses = Object.entries((op.responses ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>);
      const name = `${method.toUpperCase()} ${path}`;
      if (!responses.some(([status]) => status.startsWith('2'))) undocumented.push(`${name}: no success answer`);
      for (const [status, response] of responses) {
        if (status === '204') continue;
        const media = Object.values(response.content ?? {});
        if (media.length === 0 || media.some((m) => !m.schema)) undocumented.push(`${name} ${status}: no schema`);
      }
      for (const status of ['401', '403', '503']) if (!responses.some(([s]) => s === status)) undocumented.push(`${name}: no ${status}`);
    }
    expect(undocumented).toEqual([]);
    const read = doc.paths['/api/v1/risks/{id}'].get as { responses: Record<string, unknown> };
    expect(Object.keys(read.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '503']);
  });

  test('passes the Redocly linter (recommended rules, redocly.yaml) with no error and no warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grc-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc));
      const root = join(import.meta.dir, '../..');
      const lint = Bun.spawn([join(root, 'node_modules/.bin/redocly'), 'lint', file, '--config', join(root, 'redocly.yaml'), '--format=json'], {
        stdout: 'pipe', stderr: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
      const [out, err] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text()]);
      await lint.exited;
      const report = JSON.parse(out.slice(out.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`), err.slice(-500)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the health check answers without a token', async () => {
    const res = await env.request('/api/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
