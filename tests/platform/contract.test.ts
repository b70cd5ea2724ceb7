import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { ContractChecker } from '../helpers/contract';
import { adminActor, bearer, makeToken } from '../helpers/factories';

/**
 * Every GET and POST the suite sends through `env.request` is checked against the served OpenAPI document
 * (tests/helpers/contract.ts). These tests show the checker refusing what breaks the contract, so a passing suite means
 * the answers it saw were documented.
 */

let env: TestEnv;
let checker: ContractChecker;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  checker = new ContractChecker(await (await env.request('/api/v1/openapi')).json());
  token = await makeToken(env, await adminActor(env), ['risks:read', 'risks:create']);
});

const json = (body: unknown, status = 200, type = 'application/json') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });

describe('the OpenAPI contract checker', () => {
  test('passes a real answer of the service and the documented refusals', async () => {
    const list = await env.app.handle(new Request('http://localhost/api/v1/risks?pageSize=5', bearer(token)));
    expect(await checker.problem('GET', '/api/v1/risks', list)).toBeNull();
    expect(await checker.problem('GET', '/api/v1/risks', json({ error: 'unauthorized' }, 401))).toBeNull();
    // An address the document does not have may only be unknown (404) or asked with another method (405).
    expect(await checker.problem('GET', '/api/v1/nothing-here', json({ error: 'not found' }, 404))).toBeNull();
  });

  test('refuses a status the operation does not document', async () => {
    expect(await checker.problem('GET', '/api/v1/risks', json({ error: 'x' }, 418))).toStartWith('status 418 is not documented for GET /api/v1/risks');
  });

  test('refuses a content type the answer does not document', async () => {
    expect(await checker.problem('GET', '/api/v1/risks', new Response('<p>hi</p>', { headers: { 'content-type': 'text/html' } })))
      .toStartWith('content type text/html of 200 is not documented');
  });

  test('refuses a body that does not match the schema: a count sent as text, a missing field, an unknown field', async () => {
    const page = { rows: [], total: 0, page: 1, pageSize: 25 };
    expect(await checker.problem('GET', '/api/v1/risks', json({ data: page }))).toBeNull();
    expect(await checker.problem('GET', '/api/v1/risks', json({ data: { ...page, total: '0' } }))).toContain('/data/total must be integer');
    expect(await checker.problem('GET', '/api/v1/risks', json({ data: { rows: [], page: 1, pageSize: 25 } }))).toContain("must have required property 'total'");
    expect(await checker.problem('GET', '/api/v1/risks', json({ data: page, debug: 'x' }))).toContain('must NOT have additional properties');
  });

  test('refuses an answer from an address the document does not have', async () => {
    expect(await checker.problem('GET', '/api/v1/undocumented', json({ data: 1 }))).toBe('no documented operation answers it, yet it answered 200');
  });

  test('reads a literal segment before a template: /risks/batch is not /risks/{id}', async () => {
    const refused = await env.app.handle(new Request('http://localhost/api/v1/risks/batch', bearer(token, { method: 'POST', body: JSON.stringify({ items: [{ title: '' }] }) })));
    expect(await checker.problem('POST', '/api/v1/risks/batch', refused)).toBeNull();
  });
});
