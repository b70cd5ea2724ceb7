import { beforeAll, describe, expect, test } from 'bun:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { testEnv, type TestEnv } from '../helpers/app';
import { isPermission } from '../../src/platform/permissions';

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

  test('the health check answers without a token', async () => {
    const res = await env.request('/api/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
