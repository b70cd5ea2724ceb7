import { beforeAll, describe, expect, test } from 'bun:test';
import { t } from 'elysia';
import { createApp } from '../../src/app';
import { Data } from '../../src/platform/http/envelopes';
import { DATABASE_UNAVAILABLE } from '../../src/platform/http/http';
import { startTestEnv, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['risks:read', 'risks:create']);
});

describe('error envelope', () => {
  test('an unexpected failure answers 500 {"error":"internal"} with a request id and no stack trace', async () => {
    const app = createApp(env.ctx).get('/api/v1/test-failure', () => {
      throw new Error('database password is hunter2');
    });
    const res = await app.handle(new Request('http://localhost/api/v1/test-failure'));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'internal' });
    expect(text).not.toContain('hunter2');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('a response with a field its schema does not declare is a logged 500, never sent and never blamed on the client', async () => {
    const app = createApp(env.ctx).get('/api/v1/test-leak', () => ({ data: { id: 'x', passwordHash: 'secret' } }), {
      response: Data(t.Object({ id: t.String() })),
    });
    const res = await app.handle(new Request('http://localhost/api/v1/test-leak'));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'internal' });
    expect(text).not.toContain('passwordHash');
  });

  test('a database failure while checking the token answers as itself, never 400, even for a request with a body', async () => {
    const broken = await startTestEnv();
    await broken.ctx.close();
    // A closed PostgreSQL pool is a lost connection (503, try again); a closed embedded database is our own failure.
    const lost = broken.ctx.database.kind === 'postgres';
    for (const init of [bearer(token), bearer(token, { method: 'POST', body: JSON.stringify({ title: 'x' }) })]) {
      const res = await broken.request('/api/v1/risks', init);
      expect(res.status).toBe(lost ? 503 : 500);
      expect(await res.json()).toEqual({ error: lost ? DATABASE_UNAVAILABLE : 'internal' });
    }
  }, 60_000);

  test('every kind of lost database connection answers 503 with the error envelope, on the API and on screens', async () => {
    const losses = [
      Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' }),
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('Failed query: select 1'), { cause: Object.assign(new Error('server closed the connection'), { code: '08006' }) }),
    ];
    for (const loss of losses) {
      const app = createApp(env.ctx).get('/api/v1/test-loss', () => { throw loss; }).get('/test-loss', () => { throw loss; });
      const res = await app.handle(new Request('http://localhost/api/v1/test-loss'));
      expect(res.status, loss.message).toBe(503);
      expect(await res.json()).toEqual({ error: DATABASE_UNAVAILABLE });
      expect(res.headers.get('retry-after')).toBeTruthy();
      const screen = await app.handle(new Request('http://localhost/test-loss'));
      expect(screen.status).toBe(503);
      expect(await screen.text()).toContain('database is not reachable');
    }
  });

  test('a body that is not JSON is a 400, not a 500', async () => {
    const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: '{"title": ', headers: { 'content-type': 'application/json' } }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBeString();
  });

  test('a missing required field is a 400 naming the field', async () => {
    const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: JSON.stringify({ title: 'No classification' }) }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; problems: { field: string }[] };
    expect(body.problems.map((p) => p.field)).toContain('classificationId');
  });

  test('a field the record does not have is refused naming it, not silently dropped', async () => {
    const created = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: JSON.stringify({ title: 'Typo', titel: 'Typo' }) }));
    expect(created.status).toBe(400);
    const body = (await created.json()) as { error: string; problems: { field: string; message: string }[] };
    expect(body.problems).toContainEqual({ field: 'titel', message: 'Unexpected property' });
  });

  test('a query parameter the list does not take is refused naming it (a misspelt filter would list everything)', async () => {
    const res = await env.request('/api/v1/risks?staus=open', bearer(token));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('staus: Unexpected property');
  });

  test('an unknown address answers 404 with the error envelope', async () => {
    const res = await env.request('/api/v1/no-such-thing', bearer(token));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not found' });
  });

  test('an unknown record answers 404 with the error envelope', async () => {
    const res = await env.request('/api/v1/risks/00000000-0000-4000-8000-000000000000', bearer(token));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toContain('not found');
  });
});

describe('health', () => {
  test('answers 503 with the error envelope when the database does not answer', async () => {
    const own = await startTestEnv();
    expect((await own.request('/api/health')).status).toBe(200);
    await own.ctx.database.close();
    const res = await own.request('/api/health');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBeString();
  });
});

describe('values the database would refuse are the caller’s mistake', () => {
  test('a NUL character in a search or a text field is a 400, not a 500', async () => {
    const admin = await adminActor(env);
    const secret = await makeToken(env, admin, ['controls:read', 'controls:create']);
    expect((await env.request('/api/v1/controls?q=%00', bearer(secret))).status).toBe(400);
    const res = await env.request('/api/v1/controls', bearer(secret, { method: 'POST', body: JSON.stringify({ name: 'a\u0000b' }) }));
    expect(res.status).toBe(400);
  });

  test('a page number beyond any real list is a 400 naming page', async () => {
    const res = await env.request('/api/v1/risks?page=99999999999999999999', bearer(token));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('page');
  });
});
