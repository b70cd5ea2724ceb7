import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { unique } from '../helpers/factories';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

describe('policy exceptions in the app', () => {
  test('requested from the policy page, listed with expiry, then approved from the register', async () => {
    const created = await admin.post('/policies', { title: unique('Remote work') });
    const policyId = /\/policies\/([0-9a-f-]{36})/.exec(created.headers.get('location') ?? '')?.[1] ?? '';
    expect(await (await admin.get(`/policies/${policyId}`)).text()).toContain(`/policies/${policyId}/exceptions/new`);

    const refused = await admin.post(`/policies/${policyId}/exceptions`, { exceptionTitle: 'No date', exceptionDescription: 'x', expiresAt: '2027-02-30' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('expiresAt');

    const title = unique('Contractor laptops');
    const requested = await admin.post(`/policies/${policyId}/exceptions`, { exceptionTitle: title, exceptionDescription: 'Until the MDM rollout', expiresAt: '2027-06-30' });
    expect(requested.status, await requested.clone().text()).toBe(303);
    const list = await (await admin.get('/policies/exceptions?status=requested')).text();
    expect(list).toContain(title);
    expect(list).toContain('2027-06-30');

    const id = new RegExp(`/policies/exceptions/([0-9a-f-]{36})/decision`).exec(list.slice(list.indexOf(title)))?.[1] ?? '';
    // The administrator requested it: deciding it is an explicit override (segregation of duties).
    const decided = await admin.post(`/policies/exceptions/${id}/decision`, { decision: 'approved', note: 'ok until June', override: 'on' });
    expect(decided.status, await decided.clone().text()).toBe(303);
    expect(await (await admin.get('/policies/exceptions?status=approved')).text()).toContain(title);
  });
});
