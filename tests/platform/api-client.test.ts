import { beforeAll, describe, expect, test } from 'bun:test';
import { createApiClient } from '../../client';
import { buildOpenApiDocument } from '../../src/platform/http/openapi';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/generate-client';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, classificationId, makeToken, unique } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['risks:read', 'risks:create', 'risks:update']);
});

/** The typed client over the app in-process (no socket): exactly what a caller's fetch would send. */
const client = () => createApiClient({ baseUrl: 'http://localhost', token, fetch: (request) => env.app.handle(request) });

describe('The typed REST client generated from the OpenAPI document', () => {
  test('the committed types are those of the live document (run `bun run client:generate` when this fails)', async () => {
    const committed = await Bun.file(CLIENT_TYPES_FILE).text();
    expect(committed === (await clientTypes(buildOpenApiDocument(env.app)))).toBe(true);
  });

  test('creates, lists and updates a risk, every call and answer typed from the document', async () => {
    const api = client();
    const title = unique('Typed client');
    const created = await api.POST('/api/v1/risks', {
      body: { title, classificationId: await classificationId(env), inherentLikelihood: 4, inherentImpact: 3 },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!.data.id;

    const listed = await api.GET('/api/v1/risks', { params: { query: { q: title, pageSize: 10 } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.data.total).toBe(1);
    expect(listed.data!.data.rows.map((r) => [r.id, r.title, r.inherentScore])).toEqual([[id, title, 12]]);

    const updated = await api.PATCH('/api/v1/risks/{id}', { params: { path: { id } }, body: { status: 'closed', residualLikelihood: 2, residualImpact: 2 } });
    expect(updated.response.status).toBe(200);
    expect(updated.data!.data).toMatchObject({ id, title, status: 'closed' });

    const read = await api.GET('/api/v1/risks/{id}', { params: { path: { id } } });
    expect(read.data!.data.status).toBe('closed');
  });

  test('a refusal comes back as the documented error envelope', async () => {
    const refused = await client().PATCH('/api/v1/risks/{id}', { params: { path: { id: crypto.randomUUID() } }, body: { title: 'x' } });
    expect(refused.response.status).toBe(404);
    expect(refused.error?.error).toContain('not found');
  });
});
