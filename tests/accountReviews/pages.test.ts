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
    expect(page).toContain('1 to revoke');
    expect(page).toMatch(/<span>revoke<\/span>/);
    const { listHistory } = await import('../../src/platform/audit/history');
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
    expect(await refusalOf(env, async () => browser.get(`/account-reviews/${theirs}`))).toEqual(refusedWith(404, undefined, 'no accountReviews:read on Review program <id>'));
    const page = await (await browser.get(`/account-reviews/${mine}`)).text();
    expect(page).not.toContain('Add an account');
    expect(await refusalOf(env, async () => browser.post(`/account-reviews/${mine}/items`, { account: 'x', system: 'y' }))).toEqual(refusedWith(403, undefined, 'user right accountReviews:update missing'));
  });

  test('Import CSV on the program page: check lists the rows and saves nothing, Import rows then adds them', async () => {
    const id = await newProgram();
    const page = await (await admin.get(`/account-reviews/${id}`)).text();
    expect(page).toContain(`href="/account-reviews/${id}/items/import"`);
    const template = await admin.get(`/account-reviews/${id}/items/import/template.csv`);
    expect(template.headers.get('content-type')).toContain('text/csv');
    expect(await template.text()).toContain('id,account,system,owner,decision,reviewer,reviewed_at');

    const form = new FormData();
    form.append('_csrf', admin.csrf!);
    form.append('file', new File(['account,system,decision\r\nivan,Okta,keep\r\njudy,Okta,\r\n'], 'okta.csv', { type: 'text/csv' }));
    const checked = await env.request(`/account-reviews/${id}/items/import/check`, { method: 'POST', body: form, headers: { cookie: admin.cookie! } });
    const checkedHtml = await checked.text();
    expect(checked.status, checkedHtml).toBe(200);
    expect(checkedHtml).toContain('Checked, nothing saved: 2 to add');
    expect(checkedHtml).toContain('Import rows');
    expect(await (await admin.get(`/account-reviews/${id}`)).text()).toContain('No accounts in this program yet.');

    const csv = /name="csv" value="([^"]*)"/.exec(checkedHtml)![1].replaceAll('&#13;', '\r').replaceAll('&#10;', '\n');
    const applied = await admin.post(`/account-reviews/${id}/items/import/apply`, { fileName: 'okta.csv', csv });
    expect(applied.status, await applied.clone().text()).toBe(200);
    expect(await applied.text()).toContain('Imported: 2 added');
    const after = await (await admin.get(`/account-reviews/${id}`)).text();
    expect(after).toContain('ivan');
    expect(after).toContain('1 pending · 1 to keep');

    // Download current records gives the items back in the import format, with their ids, ready to edit and import
    // (the decision by its label, which the import reads back).
    const current = await (await admin.get(`/account-reviews/${id}/items/import/current.csv`)).text();
    const lines = current.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('id,account,system,owner,decision,reviewer,reviewed_at');
    expect(lines).toHaveLength(3);
    expect(lines.find((line) => line.includes(',ivan,'))).toMatch(new RegExp(`^[0-9a-f-]{36},ivan,Okta,,Keep,${ADMIN_EMAIL},\\d{4}-`));
  });

  test('a file with an unknown column is refused on the import screen, naming it', async () => {
    const id = await newProgram();
    const form = new FormData();
    form.append('_csrf', admin.csrf!);
    form.append('file', new File(['account,system,colour\nx,y,red\n'], 'bad.csv', { type: 'text/csv' }));
    const res = await env.request(`/account-reviews/${id}/items/import/check`, { method: 'POST', body: form, headers: { cookie: admin.cookie! } });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('Unknown column &quot;colour&quot;');
  });
});
