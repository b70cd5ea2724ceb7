import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  token = await makeToken(env, await adminActor(env), ['customFields:read', 'controls:read', 'risks:read']);
});

let counter = 0;
const key = (prefix: string) => `${prefix}_${Date.now().toString(36)}${++counter}`;
const definitionId = async (k: string) => {
  const res = await env.request('/api/v1/custom-fields', bearer(token));
  const list = ((await res.json()) as { data: { id: string; key: string; valueCount: number }[] }).data;
  return list.find((d) => d.key === k)!;
};
const idFrom = (location: string | null, path: string) => new RegExp(`${path}/([0-9a-f-]{36})`).exec(location ?? '')?.[1] ?? '';

describe('Settings › Custom fields', () => {
  test('a field is defined on the settings screen and listed under its module; a bad key is shown inline', async () => {
    const bad = await admin.post('/settings/custom-fields', { module: 'controls', key: 'Bad Key', label: 'Bad', type: 'text' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('f-key-error');

    const k = key('auditor');
    const created = await admin.post('/settings/custom-fields', { module: 'controls', key: k, label: 'Auditor name', type: 'text' });
    expect(created.status, await created.clone().text()).toBe(303);
    const list = await (await admin.get(`/settings/custom-fields?q=${k}`)).text();
    expect(list).toContain('Auditor name');
    expect(list).toContain(k);
    expect(await (await admin.get('/settings')).text()).toContain('/settings/custom-fields');
  });

  test('a control form shows the custom fields, saves them, shows them on the page and edits them', async () => {
    const tier = key('tier');
    const regions = key('regions');
    const critical = key('critical');
    const definitions: Record<string, string>[] = [
      { module: 'controls', key: tier, label: 'Tier label', type: 'singleSelect', options: 'gold\nsilver' },
      { module: 'controls', key: regions, label: 'Regions label', type: 'multiSelect', options: 'eu\nus\napac' },
      { module: 'controls', key: critical, label: 'Critical label', type: 'boolean' },
    ];
    for (const body of definitions) expect((await admin.post('/settings/custom-fields', body)).status).toBe(303);

    const form = await (await admin.get('/controls/new')).text();
    expect(form).toContain(`name="cf.${tier}"`);
    expect(form).toContain(`name="cf.${regions}"`);

    const refused = await admin.post('/controls', { name: unique('Control'), [`cf.${tier}`]: 'platinum' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(`f-cf.${tier}-error`);

    const name = unique('Control with fields');
    const created = await admin.post('/controls', { name, [`cf.${tier}`]: 'gold', [`cf.${regions}`]: ['eu', 'apac'], [`cf.${critical}`]: 'true' });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = idFrom(created.headers.get('location'), '/controls');
    const page = await (await admin.get(`/controls/${id}`)).text();
    expect(page).toContain('Tier label');
    expect(page).toContain('eu, apac');
    expect(page).toContain('Yes');

    const editForm = await (await admin.get(`/controls/${id}/edit`)).text();
    expect(editForm).toMatch(new RegExp(`<option value="gold" selected`));
    const edited = await admin.post(`/controls/${id}`, { name, [`cf.${tier}`]: 'silver', [`cf.${regions}`]: ['us'], [`cf.${critical}`]: '' });
    expect(edited.status, await edited.clone().text()).toBe(303);
    const read = await env.request(`/api/v1/controls/${id}`, bearer(token));
    expect(((await read.json()) as { data: { customFields: Record<string, unknown> } }).data.customFields)
      .toEqual({ [tier]: 'silver', [regions]: ['us'] });
    const after = await (await admin.get(`/controls/${id}`)).text();
    expect(after).toContain('Tier label');
    expect(after).toContain('silver');
  });

  test('a risk form shows the custom fields and the risk page shows the value', async () => {
    const k = key('riskNote');
    expect((await admin.post('/settings/custom-fields', { module: 'risks', key: k, label: 'Risk note label', type: 'text' })).status).toBe(303);
    const form = await (await admin.get('/risks/new')).text();
    expect(form).toContain(`name="cf.${k}"`);
    const classification = /<option value="([0-9a-f-]{36})"[^>]*>Operational</.exec(form)?.[1] ?? '';
    const created = await admin.post('/risks', {
      title: unique('Risk with note'), classificationId: classification, inherentLikelihood: '2', inherentImpact: '2', status: 'open',
      reviewFrequencyMonths: '12', [`cf.${k}`]: 'noted on screen',
    });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = idFrom(created.headers.get('location'), '/risks');
    const page = await (await admin.get(`/risks/${id}`)).text();
    expect(page).toContain('Risk note label');
    expect(page).toContain('noted on screen');
    const edited = await admin.post(`/risks/${id}`, {
      title: 'Risk with note edited', classificationId: classification, inherentLikelihood: '2', inherentImpact: '2', status: 'open',
      reviewFrequencyMonths: '12', [`cf.${k}`]: 'changed on screen',
    });
    expect(edited.status, await edited.clone().text()).toBe(303);
    expect(await (await admin.get(`/risks/${id}`)).text()).toContain('changed on screen');
  });

  test('deleting a field with values shows how many on the confirmation, then removes them', async () => {
    const k = key('doomed');
    expect((await admin.post('/settings/custom-fields', { module: 'controls', key: k, label: 'Doomed field', type: 'number' })).status).toBe(303);
    for (const n of ['1', '2']) expect((await admin.post('/controls', { name: unique('Doomed holder'), [`cf.${k}`]: n })).status).toBe(303);
    const definition = await definitionId(k);
    expect(definition.valueCount).toBe(2);
    const confirm = await (await admin.get(`/settings/custom-fields/${definition.id}/delete`)).text();
    expect(confirm).toContain('2 records hold values');
    const deleted = await admin.post(`/settings/custom-fields/${definition.id}/delete`, { confirm: 'true' });
    expect(deleted.status, await deleted.clone().text()).toBe(303);
    expect(await definitionId(k)).toBeUndefined();
  });

  test('a user without customFields rights cannot open the settings screen', async () => {
    const reader = await makeUser(env, { 'controls:read': 'all' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/controls' })).status).toBe(303);
    expect(await refusalOf(env, async () => b.get('/settings/custom-fields'))).toEqual(refusedWith(403, undefined, 'user right customFields:read missing'));
  });
});
