import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const idFrom = (location: string | null) => /\/(?:business-units|assets)\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

async function createUnit(fields: Record<string, string>): Promise<string> {
  const res = await admin.post('/business-units', fields);
  expect(res.status, await res.clone().text()).toBe(303);
  return idFrom(res.headers.get('location'));
}

describe('business unit screens', () => {
  test('a unit created below a parent shows its path, its children and its assets', async () => {
    const parentName = unique('Group');
    const parent = await createUnit({ name: parentName });
    const child = await createUnit({ name: 'Treasury', parentId: parent });
    const asset = await admin.post('/assets', { name: 'Cash management system', businessUnitId: parent });
    expect(asset.status, await asset.clone().text()).toBe(303);

    const parentPage = await (await admin.get(`/business-units/${parent}`)).text();
    expect(parentPage).toContain(`/business-units/${child}`);
    expect(parentPage).toContain('Cash management system');
    const childPage = await (await admin.get(`/business-units/${child}`)).text();
    expect(childPage).toContain(`Path: ${parentName} › Treasury`);
  });

  test('moving a unit below its own child is refused inline on parentId, keeping what was typed', async () => {
    const top = await createUnit({ name: unique('Top') });
    const below = await createUnit({ name: 'Below', parentId: top });
    const res = await admin.post(`/business-units/${top}`, { name: 'Top renamed', parentId: below });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Top renamed');
    expect(html).toMatch(/id="f-parentId-error"[^>]*>[^<]*cycle/);
  });

  test('deleting a unit that still has a child is refused naming it', async () => {
    const unit = await createUnit({ name: unique('Holding') });
    const child = await createUnit({ name: 'Subsidiary', parentId: unit });
    const res = await admin.post(`/business-units/${unit}/delete`, {});
    expect(res.status).toBe(409);
    expect(await res.text()).toContain(`<li><span>1 child business unit:</span> <a href="/business-units/${child}">Subsidiary</a></li>`);
    expect((await admin.get(`/business-units/${unit}`)).status).toBe(200);
  });

  test('the hierarchy page nests units under their parents', async () => {
    const root = await createUnit({ name: unique('Root') });
    const leaf = await createUnit({ name: 'Leaf', parentId: root });
    const html = await (await admin.get('/business-units/tree')).text();
    expect(html).toMatch(new RegExp(`/business-units/${root}"[^<]*</a><ul class="tree"><li><a href="/business-units/${leaf}"`));
  });

  test('a user at level own sees only their units in the list', async () => {
    const user = await makeUser(env, { 'businessUnits:read': 'own', 'businessUnits:create': 'own' });
    const theirs = await createUnit({ name: unique('Not yours') });
    const b = await signedInBrowser(env, user.email, user.password);
    const created = await b.post('/business-units', { name: unique('Yours') });
    expect(created.status, await created.clone().text()).toBe(303);
    const mine = idFrom(created.headers.get('location'));
    const list = await (await b.get('/business-units?pageSize=200')).text();
    expect(list).toContain(`/business-units/${mine}`);
    expect(list).not.toContain(`/business-units/${theirs}`);
    expect(await refusalOf(env, async () => b.get(`/business-units/${theirs}`))).toEqual(refusedWith(404, undefined, 'no businessUnits:read on Business unit <id>'));
  });
});
