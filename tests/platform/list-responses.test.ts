import { beforeAll, describe, expect, test } from 'bun:test';
import type { TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ControlView } from '../../src/modules/controls/schema';
import { IncidentView } from '../../src/modules/incidents/schema';
import { RiskView } from '../../src/modules/risks/schema';
import { pageEnvelope } from '../../src/platform/http/paging';
import { ALL_PERMISSIONS } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeRisk, makeToken } from '../helpers/factories';

let env: TestEnv;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  const admin = await adminActor(env);
  await makeRisk(env, admin);
  await env.request('/api/v1/controls', bearer(await makeToken(env, admin, ['controls:create']), { method: 'POST', body: JSON.stringify({ name: 'Listed control' }) }));
  token = await makeToken(env, admin, ['risks:read', 'controls:read', 'incidents:read']);
});

// Elysia does not re-check list rows on every request (src/platform/http/paging.ts pageEnvelope); this checks them here.
describe('list responses', () => {
  const lists: [string, TSchema][] = [['risks', RiskView], ['controls', ControlView], ['incidents', IncidentView]];
  for (const [path, view] of lists) {
    test(`${path}: every row matches the documented row schema and has no undeclared property`, async () => {
      const res = await env.request(`/api/v1/${path}?pageSize=200`, bearer(token));
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { data: { rows: Record<string, unknown>[] } };
      expect([...Value.Errors(pageEnvelope(view), body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
      const declared = Object.keys((view as TObject).properties);
      for (const row of body.data.rows) expect(Object.keys(row).filter((key) => !declared.includes(key))).toEqual([]);
    });
  }

  test('a risk reads the same in a list as on its own, timestamps included', async () => {
    const res = await env.request('/api/v1/risks?pageSize=5', bearer(token));
    const rows = ((await res.json()) as { data: { rows: { id: string }[] } }).data.rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const single = await env.request(`/api/v1/risks/${row.id}`, bearer(token));
      expect(row).toEqual(((await single.json()) as { data: unknown }).data as { id: string });
    }
  });
});

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean;
}

// Nothing strips undeclared fields from a response (normalisation is off, src/app.ts) and list rows are not
// re-checked per request, so every list the OpenAPI document names is read here and its rows held to their schema.
test('every list in the OpenAPI document answers rows with exactly their documented fields', async () => {
  const document = (await (await env.request('/api/v1/openapi')).json()) as {
    paths: Record<string, { get?: { responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> } }>;
  };
  const everything = await makeToken(env, await adminActor(env), [...ALL_PERMISSIONS]);
  const lists = Object.entries(document.paths).flatMap(([path, item]) => {
    const rows = item.get?.responses?.['200']?.content?.['application/json']?.schema?.properties?.data?.properties?.rows?.items;
    return rows ? [{ path, rows }] : [];
  });
  expect(lists.map((l) => l.path)).toContain('/api/v1/assets');
  expect(lists.map((l) => l.path)).toContain('/api/v1/account-reviews/{id}/items');
  // A nested list (/x/{id}/items) is read under the first record of its parent list that has any.
  const program = await env.request('/api/v1/account-reviews', bearer(everything, { method: 'POST', body: JSON.stringify({ name: 'Listed program' }) }));
  expect(program.status, await program.clone().text()).toBe(201);
  const programId = ((await program.json()) as { data: { id: string } }).data.id;
  const item = await env.request(`/api/v1/account-reviews/${programId}/items`, bearer(everything, { method: 'POST', body: JSON.stringify({ account: 'listed', system: 'crm' }) }));
  expect(item.status, await item.clone().text()).toBe(201);
  const parentIds = async (parent: string): Promise<string[]> => {
    const res = await env.request(`${parent}?pageSize=20`, bearer(everything));
    return res.status === 200 ? ((await res.json()) as { data: { rows: { id: string }[] } }).data.rows.map((r) => r.id) : [];
  };
  let checkedRows = 0;
  for (const { path, rows } of lists) {
    expect(rows.additionalProperties, path).toBe(false);
    const declared = Object.keys(rows.properties ?? {});
    const [parent, rest] = path.split('/{id}');
    const addresses = rest === undefined ? [path] : (await parentIds(parent)).map((id) => `${parent}/${id}${rest}`);
    for (const address of addresses) {
      const res = await env.request(`${address}?pageSize=50`, bearer(everything));
      expect(res.status, `${address}: ${await res.clone().text()}`).toBe(200);
      for (const row of ((await res.json()) as { data: { rows: Record<string, unknown>[] } }).data.rows) {
        expect(Object.keys(row).filter((key) => !declared.includes(key)), path).toEqual([]);
        expect((rows.required ?? []).filter((key) => !(key in row)), path).toEqual([]);
        checkedRows += 1;
      }
    }
  }
  expect(checkedRows).toBeGreaterThan(0);
});
