import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { risks } from '../../db/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeRisk, makeToken, unique } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['risks:read', 'risks:create', 'risks:update', 'risks:delete']);
});

const problemsOf = async (res: Response) => ((await res.json()) as { problems?: { field: string; message: string }[] }).problems ?? [];

describe('Query parameters are read as written', () => {
  test('an integer is plain decimal digits: hexadecimal, exponents and padding are refused, not converted', async () => {
    for (const query of ['page=0x10', 'page=1e1', 'page=1.0', 'pageSize=%2025', 'pageSize=25%20', 'pageSize=+25', 'page=0b1', 'page=']) {
      const res = await env.request(`/api/v1/risks?${query}`, bearer(token));
      expect(res.status, query).toBe(400);
      expect((await problemsOf(res)).map((p) => p.field), query).toEqual([query.split('=')[0]]);
    }
    const plain = await env.request('/api/v1/risks?page=16&pageSize=25', bearer(token));
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { data: { page: number; pageSize: number } }).data).toMatchObject({ page: 16, pageSize: 25 });
  });

  test('a parameter given twice is refused naming it, never one of the two picked', async () => {
    for (const query of ['page=1&page=2', 'pageSize=10&pageSize=10', 'q=a&page=1&q=b']) {
      const res = await env.request(`/api/v1/risks?${query}`, bearer(token));
      expect(res.status, query).toBe(400);
      const field = query.includes('q=a') ? 'q' : query.split('=')[0];
      expect(await problemsOf(res), query).toEqual([{ field, message: 'given more than once' }]);
    }
  });

  test('without a token the answer is still 401, whatever the query', async () => {
    expect((await env.request('/api/v1/risks?page=1&page=2')).status).toBe(401);
  });
});

describe('Bodies', () => {
  test('an integer field takes a JSON number only: the same digits as text are refused, as the document says integer', async () => {
    const title = unique('Text integer');
    const fields = { title, classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 };
    const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: JSON.stringify({ ...fields, reviewFrequencyMonths: '12' }) }));
    expect(res.status).toBe(400);
    expect((await problemsOf(res)).map((p) => p.field)).toEqual(['reviewFrequencyMonths']);
    expect(await env.ctx.db.select().from(risks).where(eq(risks.title, title))).toEqual([]);
    const created = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: JSON.stringify({ ...fields, reviewFrequencyMonths: 12 }) }));
    expect(created.status).toBe(201);
  });

  test('a __proto__ key is refused like any other field the record does not have, and nothing is written', async () => {
    const title = unique('Proto');
    const fields = { title, classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 };
    const bodies = [
      { body: `{${JSON.stringify(fields).slice(1, -1)},"__proto__":{"ownerId":null}}`, field: '__proto__' },
      { body: `{${JSON.stringify(fields).slice(1, -1)},"customFields":{"__proto__":{"x":1}}}`, field: 'customFields.__proto__' },
    ];
    for (const { body, field } of bodies) {
      const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body }));
      expect(res.status, body).toBe(400);
      expect(await problemsOf(res)).toEqual([{ field, message: 'Unexpected property' }]);
    }
    expect(await env.ctx.db.select().from(risks).where(eq(risks.title, title))).toEqual([]);
    const id = await makeRisk(env, await adminActor(env));
    const change = await env.request(`/api/v1/risks/${id}`, bearer(token, { method: 'PATCH', body: '{"__proto__":{"title":"x"}}' }));
    expect(change.status).toBe(400);
  });
});

describe('Methods', () => {
  test('a known address asked with a method it does not take answers 405 with Allow, not 404', async () => {
    const id = await makeRisk(env, await adminActor(env));
    const cases: [string, string, string[]][] = [
      ['PUT', '/api/v1/risks', ['GET', 'POST']],
      ['DELETE', '/api/v1/risks', ['GET', 'POST']],
      ['PUT', `/api/v1/risks/${id}`, ['DELETE', 'GET', 'PATCH']],
      ['POST', `/api/v1/risks/${id}`, ['DELETE', 'GET', 'PATCH']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await env.request(path, bearer(token, { method, body: '{}' }));
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')!.split(', ').sort()).toEqual(allowed);
      expect(((await res.json()) as { error: string }).error).toContain('not allowed');
    }
    const unknown = await env.request('/api/v1/no-such-collection', bearer(token, { method: 'PUT', body: '{}' }));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
  });
});
