import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), [
    'customFields:create', 'policies:read', 'policies:create', 'thirdParties:read', 'thirdParties:create',
    'incidents:read', 'incidents:create', 'projects:read', 'projects:create',
  ]);
});

const send = (method: string, path: string, body?: unknown) =>
  env.request(path, bearer(token, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));

/** The spec's CSV table marks custom fields for risks, controls, policies, third parties, incidents and projects. */
const MODULES = [
  { module: 'policies', path: '/api/v1/policies', record: { title: 'Acceptable use' } },
  { module: 'thirdParties', path: '/api/v1/third-parties', record: { name: 'Acme hosting' } },
  { module: 'incidents', path: '/api/v1/incidents', record: { title: 'Phishing wave' } },
  { module: 'projects', path: '/api/v1/projects', record: { title: 'MFA rollout' } },
];

describe('custom fields on every register the spec marks', () => {
  for (const { module, path, record } of MODULES) {
    test(`${module} records take, validate and return their custom fields`, async () => {
      const key = `tier_${module}_${Date.now().toString(36)}`;
      const defined = await send('POST', '/api/v1/custom-fields', { module, key, label: 'Tier', type: 'number' });
      expect(defined.status, await defined.clone().text()).toBe(201);

      const refused = await send('POST', path, { ...record, customFields: { [key]: 'high' } });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toContain(`customFields.${key}`);

      const created = await send('POST', path, { ...record, customFields: { [key]: 2 } });
      expect(created.status, await created.clone().text()).toBe(201);
      const { id } = ((await created.json()) as { data: { id: string } }).data;
      const read = ((await (await send('GET', `${path}/${id}`)).json()) as { data: { customFields: Record<string, unknown> } }).data;
      expect(read.customFields).toEqual({ [key]: 2 });
    });
  }
});
