import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { testEnv, type TestEnv } from '../helpers/app';
import { isPermission } from '../../src/platform/permissions/permissions';

let env: TestEnv;
let doc: { openapi: string; tags: { name: string; description: string }[]; paths: Record<string, Record<string, Record<string, unknown>>> };
const ROOT = join(import.meta.dir, '../..');
/** Each linter reads the whole document in a process of its own: 10-15 s alone, several times that on a busy machine. */
const LINT_TIMEOUT = 240_000;

/** Runs a linter of node_modules/.bin on the document written to a file (`{file}` in the arguments); its output. */
async function lint(command: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'grc-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const run = Bun.spawn([join(ROOT, 'node_modules/.bin', command[0]), ...command.slice(1).map((arg) => (arg === '{file}' ? file : arg))], {
      stdout: 'pipe', stderr: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const [out] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

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
    expect(Object.keys(doc.paths)).toContain('/api/v1/risks');
  });

  test('passes a real OpenAPI validator', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  test('every integer is `integer`: answers and bodies as they are sent, query parameters with their bounds', () => {
    // Elysia's coercion of query text is `anyOf [string of format integer, integer]`; none may reach the document.
    const coerced: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'string' && ['integer', 'numeric'].includes(schema.format as string)) coerced.push(at);
      for (const [key, child] of Object.entries(schema)) walk(child, `${at}/${key}`);
    };
    walk(doc.paths, '');
    expect(coerced).toEqual([]);
    const list = doc.paths['/api/v1/risks'].get as { parameters: { name: string; schema: unknown }[]; responses: Record<string, { content: Record<string, { schema: { properties: { data: { properties: Record<string, unknown> } } } }> }> };
    const parameter = (name: string) => list.parameters.find((p) => p.name === name)?.schema;
    expect(parameter('page')).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(parameter('pageSize')).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 25 });
    const data = list.responses['200'].content['application/json'].schema.properties.data.properties;
    for (const field of ['total', 'page', 'pageSize']) expect(data[field]).toEqual({ type: 'integer' });
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
    expect(Object.keys(read.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
  });

  test('passes the Redocly linter (recommended rules, redocly.yaml) with no error and no warning', async () => {
    const out = await lint(['redocly', 'lint', '{file}', '--config', join(ROOT, 'redocly.yaml'), '--format=json']);
    const report = JSON.parse(out.slice(out.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, LINT_TIMEOUT);

  test("passes Spectral's spectral:oas rules (.spectral.yaml) with no error and no warning", async () => {
    const out = await lint(['spectral', 'lint', '{file}', '--ruleset', join(ROOT, '.spectral.yaml'), '--format=json', '--quiet']);
    const problems = JSON.parse(out.slice(out.indexOf('['))) as { code: string; path: string[]; message: string }[];
    expect(problems.map((p) => `${p.code} ${p.path.join('/')}: ${p.message}`)).toEqual([]);
  }, LINT_TIMEOUT);

  test('is OpenAPI 3.1.0, which tools built on swagger-parser read', () => {
    expect(doc.openapi).toBe('3.1.0');
  });

  test('operationIds are camelCase and unique; every tag used is declared with a description, and none is unused', () => {
    const ids = operations().map(({ op }) => op.operationId as string);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/v1/third-parties/{id}'].get.operationId).toBe('getThirdPartiesById');
    const used = new Set(operations().flatMap(({ op }) => (op.tags as string[] | undefined) ?? []));
    const declared = doc.tags.map((tag) => tag.name);
    expect(new Set(declared).size).toBe(declared.length);
    expect([...used].sort()).toEqual([...declared].sort());
    expect(doc.tags.filter((tag) => !tag.description)).toEqual([]);
  });

  test('a nullable enum lists null, as the server sends it', () => {
    const item = doc.paths['/api/v1/account-reviews/{id}/items/{itemId}'].get as { responses: Record<string, { content: Record<string, { schema: { properties: { data: { properties: Record<string, { enum?: unknown[] }> } } } }> }> };
    expect(item.responses['200'].content['application/json'].schema.properties.data.properties.decision.enum).toContain(null);
    const decide = doc.paths['/api/v1/account-reviews/{id}/items/{itemId}'].patch as { requestBody: { content: Record<string, { schema: { properties: Record<string, { enum?: unknown[] }> } }> } };
    expect(decide.requestBody.content['application/json'].schema.properties.decision.enum).not.toContain(null);
  });

  test('the main registers show an example create body and listed row (checked against their schemas by the linters above)', () => {
    for (const path of ['/api/v1/risks', '/api/v1/controls', '/api/v1/policies', '/api/v1/assets', '/api/v1/third-parties', '/api/v1/incidents', '/api/v1/projects']) {
      const create = doc.paths[path].post as { requestBody: { content: Record<string, { schema: { examples?: unknown[] } }> } };
      expect(create.requestBody.content['application/json'].schema.examples?.length, path).toBe(1);
      const list = doc.paths[path].get as { responses: Record<string, { content: Record<string, { schema: { examples?: { data: { rows: unknown[] } }[] } }> }> };
      expect(list.responses['200'].content['application/json'].schema.examples?.[0].data.rows.length, path).toBe(1);
    }
    const importPackage = doc.paths['/api/v1/compliance/packages'].post as { requestBody: { content: Record<string, { example?: unknown }> } };
    expect(importPackage.requestBody.content['application/json'].example).toBeDefined();
  });

  test('a downloaded evidence file is documented with any content type, as it is served with the one sniffed at upload', () => {
    const download = doc.paths['/api/v1/evidence/{id}/files/{fileId}/content'].get as { responses: Record<string, { content: Record<string, unknown>; headers: Record<string, unknown> }> };
    expect(Object.keys(download.responses['200'].content)).toEqual(['*/*']);
    expect(Object.keys(download.responses['200'].headers)).toContain('X-Content-SHA256');
  });

  test('the health check answers without a token', async () => {
    const res = await env.request('/api/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
