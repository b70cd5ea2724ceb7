import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['compliance:read', 'compliance:create', 'compliance:update']);
});

describe('packages list', () => {
  test('shows each package with its compliance score, additional items counted separately', async () => {
    const name = unique('Scored framework');
    const created = await env.request('/api/v1/compliance/packages', bearer(token, {
      method: 'POST',
      body: JSON.stringify({
        name, standard: 'TEST', version: '1',
        items: [
          { code: 'H', name: 'Heading', kind: 'heading' },
          { code: 'R1', name: 'First', parentCode: 'H' },
          { code: 'R2', name: 'Second', parentCode: 'H', kind: 'requirement' },
          { code: 'A1', name: 'Extra', kind: 'additional' },
        ],
      }),
    }));
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const analyses = ((await (await env.request(`/api/v1/compliance/analyses?packageId=${id}&pageSize=200`, bearer(token))).json()) as {
      data: { rows: { id: string; item: { code: string } }[] };
    }).data.rows;
    expect(analyses).toHaveLength(3);
    const first = analyses.find((a) => a.item.code === 'R1')!;
    const patched = await env.request(`/api/v1/compliance/analyses/${first.id}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ status: 'compliant' }) }));
    expect(patched.status, await patched.clone().text()).toBe(200);

    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await admin.get('/compliance/packages?page=1')).text();
    const row = html.slice(html.indexOf(name), html.indexOf('</tr>', html.indexOf(name)));
    expect(row).toContain('50% (1 of 2)');
    expect(row).toContain('0% (0 of 1)');
  });
});
