import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';
import { signedInBrowser } from '../helpers/browser';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

describe('Settings › Outbox and Audit log', () => {
  test('an administrator sees queued mail, such as the security alert for a new token', async () => {
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const name = unique('alerted');
    expect((await admin.post('/settings/api-tokens', { name, scopes: ['risks:read'] })).status).toBe(201);
    const res = await admin.get('/settings/outbox');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`Security alert: API token &quot;${name}&quot; created`);
  });

  test('verification reports an intact chain and a checkpoint, and the latest entries are listed', async () => {
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await admin.get('/settings/audit?verify=1');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Chain intact');
    const checkpoint = /class="secret">(\d+:[0-9a-f]{64})</.exec(html)?.[1];
    expect(checkpoint).toBeDefined();
    expect(html).toContain('<span>Signed in</span><br/><span class="muted">Security</span>');
    const again = await (await admin.get(`/settings/audit?verify=1&since=${checkpoint}`)).text();
    expect(again).toContain('still extends checkpoint');
    const bad = await (await admin.get('/settings/audit?verify=1&since=nonsense')).text();
    expect(bad).toContain('checkpoint must look like');
    const sealed = await (await admin.get('/settings/audit?verify=1&history=1')).text();
    expect(sealed).toMatch(/History: \d+ entries match their seals/);
  });

  test('a record write is listed with the changes of the History entry it seals', async () => {
    const title = unique('Listed risk');
    await makeRisk(env, await adminActor(env), { title });
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await admin.get('/settings/audit')).text();
    expect(html).toContain(`<strong>Title</strong>: <span>—</span> → <span>${title}</span>`);
    expect(html).toMatch(new RegExp(`<a href="/risks/[0-9a-f-]{36}">${title}</a><br/><span class="muted">Risk</span>`));
  });

  test('the Outbox holds password reset links, so reading it needs every right: a settings manager cannot', async () => {
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'all' });
    const b = await signedInBrowser(env, manager.email, manager.password);
    expect(await refusalOf(env, async () => b.get('/settings/outbox'))).toEqual(refusedWith(403, undefined, 'every right at level all needed to read the Outbox'));
    expect((await b.get('/settings/audit')).status).toBe(200);
  });

  test('settings:read at level own is not enough', async () => {
    const user = await makeUser(env, { 'settings:read': 'own' });
    const b = await signedInBrowser(env, user.email, user.password);
    expect(await refusalOf(env, async () => b.get('/settings/outbox'))).toEqual(refusedWith(403, undefined, 'every right at level all needed to read the Outbox'));
    expect(await refusalOf(env, async () => b.get('/settings/audit'))).toEqual(refusedWith(403, undefined, 'settings:read at level all needed'));
  });
});
