import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique } from '../helpers/factories';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const idFrom = (location: string | null) => /\/account-reviews\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

async function newProgram(browser = admin, fields: Record<string, string> = {}): Promise<string> {
  const created = await browser.post('/account-reviews', { name: unique('Access review'), ...fields });
  expect(created.status, await created.clone().text()).toBe(303);
  return idFrom(created.headers.get('location'));
}

const itemIdOn = (html: string, account: string) =>
  new RegExp(`/items/([0-9a-f-]{36})/decision"[^>]*>[\\s\\S]*?aria-label="Decision for ${account} on`).exec(html)?.[1] ?? '';

describe('account review screens', () => {
  test('a program created on the form is listed, and accounts added on its page show as pending', async () => {
    const name = unique('Q3 review');
    const created = await admin.post('/account-reviews', { name, dueOn: '2026-09-30' });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = idFrom(created.headers.get('location'));
    expect(await (await admin.get(`/account-reviews?q=${encodeURIComponent(name)}`)).text()).toContain(`/account-reviews/${id}`);

    const added = await admin.post(`/account-reviews/${id}/items`, { account: 'frank', system: 'Salesforce', owner: ADMIN_EMAIL });
    expect(added.status, await added.clone().text()).toBe(303);
    const page = await (await admin.get(`/account-reviews/${id}`)).text();
    expect(page).toContain('Accounts to review');
    expect(page).toContain('frank');
    expect(page).toContain('Salesforce');
    expect(page).toContain('1 pending');
  });

  test('a refused account shows the problems inline and keeps what was typed', async () => {
    const id = await newProgram();
    const res = await admin.post(`/account-reviews/${id}/items`, { account: 'kept-account', system: '', owner: 'nobody@test.example' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('kept-account');
    expect(html).toMatch(/id="f-system-error"[^>]*>is required/);
    expect(html).toMatch(/id="f-owner-error"[^>]*>no user with email nobody@test.example/);
  });

  test('a decision recorded on the page shows with the reviewer and lands in the item History', async () => {
    const id = await newProgram();
    await admin.post(`/account-reviews/${id}/items`, { account: 'grace', system: 'GitHub' });
    const itemId = itemIdOn(await (await admin.get(`/account-reviews/${id}`)).text(), 'grace');
    expect(itemId).not.toBe('');
    const decided = await admin.post(`/account-reviews/${id}/items/${itemId}/decision`, { decision: 'revoke' });
    expect(decided.status, await decided.clone().text()).toBe(303);
    const page = await (await admin.get(`/account-reviews/${id}`)).text();
    expect(page).toContain('1 revoke');
    expect(page).toMatch(/<span>revoke<\/span>/);
    const { listHistory } = await import('../../src/platform/history');
    const history = await listHistory(env.ctx.db, 'accountReviewItem', itemId);
    expect(history[0]).toMatchObject({ action: 'update', via: 'screen', actor: ADMIN_EMAIL, changes: { decision: { before: null, after: 'revoke' } } });
  });

  test('a closed program shows no decision forms and refuses a posted decision', async () => {
    const id = await newProgram();
    await admin.post(`/account-reviews/${id}/items`, { account: 'heidi', system: 'Jira' });
    const itemId = itemIdOn(await (await admin.get(`/account-reviews/${id}`)).text(), 'heidi');
    const closed = await admin.post(`/account-reviews/${id}`, { name: unique('Closed review'), status: 'closed' });
    expect(closed.status, await closed.clone().text()).toBe(303);
    const page = await (await admin.get(`/account-reviews/${id}`)).text();
    expect(page).toContain('This program is closed');
    expect(page).not.toContain('/decision"');
    expect((await admin.post(`/account-reviews/${id}/items/${itemId}/decision`, { decision: 'keep' })).status).toBe(409);
  });

  test('the items pager answers htmx with the section alone', async () => {
    const id = await newProgram();
    const res = await admin.get(`/account-reviews/${id}/items?page=1`, { 'hx-request': 'true', 'hx-target': `items-${id}` });
    const html = await res.text();
    expect(html.startsWith(`<section id="items-${id}"`)).toBe(true);
    expect(html).not.toContain('<html');
  });

  test('a reader at level own sees only their programs and no decision forms', async () => {
    const user = await makeUser(env, { 'accountReviews:read': 'own', 'accountReviews:create': 'own' });
    const browser = await signedInBrowser(env, user.email, user.password);
    const mine = await newProgram(browser, { name: unique('Mine') });
    const theirs = await newProgram();
    const list = await (await browser.get('/account-reviews?pageSize=200')).text();
    expect(list).toContain(`/account-reviews/${mine}`);
    expect(list).not.toContain(`/account-reviews/${theirs}`);
    expect((await browser.get(`/account-reviews/${theirs}`)).status).toBe(404);
    const page = await (await browser.get(`/account-reviews/${mine}`)).text();
    expect(page).not.toContain('Add an account');
    expect((await browser.post(`/account-reviews/${mine}/items`, { account: 'x', system: 'y' })).status).toBe(403);
  });
});
