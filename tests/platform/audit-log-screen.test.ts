import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

/**
 * Settings › Audit log: filtered by person, module, action, record and days, searched, paged with the total, and
 * downloaded as CSV with the same filters; entries worded like History, and a record the reader may not read never named.
 */

let env: TestEnv;
let admin: Browser;
let adminToken: string;
let clerk: TestUser;
const CLERK = unique('Clerk');
let clerkToken: string;
const TAG = unique('Audited');
let controlId: string;

const create = async (secret: string, path: string, body: Record<string, unknown>) => {
  const res = await env.request(path, bearer(secret, { method: 'POST', body: JSON.stringify(body) }));
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
};

/** The screen's total ("12 entries") and the entry numbers of its rows. */
async function screen(query: string): Promise<{ status: number; total: number; seqs: number[]; html: string }> {
  const res = await admin.get(`/settings/audit${query}`);
  const html = await res.text();
  const total = Number(/<span class="muted">(\d+) entr(?:y|ies)<\/span>/.exec(html)?.[1] ?? NaN);
  const table = html.slice(html.indexOf('id="audit-table"'));
  const seqs = [...table.matchAll(/<td class="num" data-label="#"><span>(\d+)<\/span><\/td>/g)].map((m) => Number(m[1]));
  return { status: res.status, total, seqs, html };
}

const today = () => new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  env = await testEnv();
  adminToken = await makeToken(env, await adminActor(env), ['controls:read', 'controls:create', 'controls:update', 'assets:read', 'assets:create']);
  clerk = await makeUser(env, { 'assets:read': 'all', 'assets:create': 'all', 'apiTokens:create': 'own' }, CLERK);
  clerkToken = await makeToken(env, await clerk.actor(), ['assets:read', 'assets:create']);
  controlId = await create(adminToken, '/api/v1/controls', { name: `${TAG} control` });
  const res = await env.request(`/api/v1/controls/${controlId}`, bearer(adminToken, { method: 'PATCH', body: JSON.stringify({ status: 'retired' }) }));
  expect(res.status).toBe(200);
  // 55 assets by the clerk: more than one page of 50.
  for (let i = 0; i < 55; i++) await create(clerkToken, '/api/v1/assets', { name: `${TAG} asset ${i}` });
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 120_000);

describe('Settings › Audit log filters', () => {
  test('by record: that record\'s entries only, newest first, worded by label and named', async () => {
    const { status, total, seqs, html } = await screen(`?record=${controlId}`);
    expect(status).toBe(200);
    expect(total).toBe(2);
    expect(seqs).toHaveLength(2);
    expect(seqs[0]).toBeGreaterThan(seqs[1]);
    expect(html).toContain(`<a href="/controls/${controlId}">${TAG} control</a><br/><span class="muted">Control</span>`);
    expect(html).toContain('<strong>Status</strong>: <span>Active</span> → <span>Retired</span>');
    expect(html).toContain('<span>Changed</span><br/><span class="muted">Controls</span>');
  });

  test('by person and module, paged with the total: 55 entries are 50 on page 1 and 5 on page 2', async () => {
    const first = await screen(`?actor=${clerk.id}&module=assets`);
    expect(first.total).toBe(55);
    expect(first.seqs).toHaveLength(50);
    expect(first.html).toContain('1–50 of 55');
    const second = await screen(`?actor=${clerk.id}&module=assets&page=2`);
    expect(second.seqs).toHaveLength(5);
    expect(second.html).toContain('51–55 of 55');
    expect(new Set([...first.seqs, ...second.seqs]).size).toBe(55);
    // The person filter names them, never their id alone.
    expect(first.html).toContain(`<span>${CLERK}</span>`);
  });

  test('by action, days and a search in what the entries changed', async () => {
    expect((await screen(`?record=${controlId}&action=update`)).total).toBe(1);
    // The action as the entries read it, whatever its case: "Changed" is an update, "Created" a create.
    expect((await screen(`?record=${controlId}&action=Changed`)).total).toBe(1);
    expect((await screen(`?record=${controlId}&action=created`)).total).toBe(1);
    expect((await screen(`?actor=${clerk.id}&module=assets&action=Created`)).total).toBe(55);
    const { actionsNamed } = await import('../../src/platform/records/history-format');
    expect(actionsNamed('Control linked')).toContain('control.link');
    expect(actionsNamed('Sub processor added')).toContain('subProcessor.add');
    expect(actionsNamed('Refused: no permission')).toContain('permission.denied');
    expect(actionsNamed('Signed in')).toContain('signin');
    expect((await screen(`?record=${controlId}&from=${today()}&to=${today()}`)).total).toBe(2);
    expect((await screen(`?record=${controlId}&from=${dayOffset(1)}`)).total).toBe(0);
    expect((await screen(`?record=${controlId}&to=${dayOffset(-1)}`)).total).toBe(0);
    expect((await screen(`?q=${encodeURIComponent(`${TAG} asset 42`)}`)).total).toBe(1);
    // The name is in the create entry's changes only (the edit changed the status).
    expect((await screen(`?q=${encodeURIComponent(`${TAG} control`)}&module=controls`)).total).toBe(1);
  });

  test('a filter that cannot be meant is refused beside its field, the filters kept', async () => {
    const { status, html } = await screen('?from=yesterday&record=abc');
    expect(status).toBe(400);
    expect(html).toContain('id="filter-from-error" class="error">must be a date (YYYY-MM-DD)</small>');
    expect(html).toContain('<input type="hidden" name="record" value="abc"/>');
    const backwards = await screen(`?from=${today()}&to=${dayOffset(-2)}`);
    expect(backwards.status).toBe(400);
    expect(backwards.html).toContain('must not be before From');
  });
});

describe('Settings › Audit log: entries read as the screens do', () => {
  test("an account review decision: the item and its program by name, the decision by its label, in the changes and the details", async () => {
    const token = await makeToken(env, await adminActor(env), ['accountReviews:read', 'accountReviews:create', 'accountReviews:update']);
    const programName = unique('Access review');
    const program = await create(token, '/api/v1/account-reviews', { name: programName });
    const account = unique('jdoe');
    const item = await create(token, `/api/v1/account-reviews/${program}/items`, { account, system: 'Payroll' });
    const decided = await env.request(`/api/v1/account-reviews/${program}/items/${item}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ decision: 'modify' }) }));
    expect(decided.status, await decided.clone().text()).toBe(200);
    const { html, total } = await screen(`?record=${item}&action=Changed`);
    expect(total).toBe(1);
    expect(html).toContain(`<a href="/account-reviews/items/${item}">${account} on Payroll</a><br/><span class="muted">Account review item</span>`);
    expect(html).toContain('<strong>Decision</strong>: <span>—</span> → <span>Modify</span>');
    expect(html).toContain(`<dt>Program</dt><dd>${programName}</dd>`);
    expect(html).toContain('<dt>Decision</dt><dd>Modify</dd>');
    expect(html).not.toContain(`>${program}<`);
    // The item's address leads to its program's items.
    const to = await admin.get(`/account-reviews/items/${item}`);
    expect(to.status).toBe(303);
    expect(to.headers.get('location')).toBe(`/account-reviews/${program}/items`);
  });
});

describe('Settings › Audit log download', () => {
  test('the filtered entries as CSV: byte order mark, a header, one row per entry, formula-like cells neutralised', async () => {
    const formula = `=HYPERLINK("http://evil.example","${unique('x')}")`;
    const id = await create(adminToken, '/api/v1/controls', { name: formula });
    const res = await admin.get(`/settings/audit/export.csv?record=${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes.slice(3));
    const lines = text.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('Entry,At (UTC),Who,Through,Module,Action,Record type,Record,Record id,Changes,Details,Hash');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(',Controls,Created,Control,');
    // The record's name starts with "=": written with a leading apostrophe, never as a formula.
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example""`);
    expect(lines[1]).not.toMatch(/,=HYPERLINK/);
  });

  test('the download follows the filters: the clerk\'s 55 entries', async () => {
    const text = await (await admin.get(`/settings/audit/export.csv?actor=${clerk.id}&module=assets`)).text();
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(56);
  });
});

describe('Settings › Audit log and records its reader may not read', () => {
  test('an administrator of settings without controls sees "(restricted)" and no changes: the name is never shown, searched or downloaded', async () => {
    const auditor = await makeUser(env, { 'settings:read': 'all' });
    const b = await signedInBrowser(env, auditor.email, auditor.password);
    const html = await (await b.get(`/settings/audit?record=${controlId}`)).text();
    expect(html).toContain('<span>(restricted)</span><br/><span class="muted">Control</span>');
    expect(html).toContain('Changes not shown: you may not read this record.');
    expect(html).not.toContain(TAG);
    const found = await (await b.get(`/settings/audit?q=${encodeURIComponent(`${TAG} control`)}`)).text();
    expect(found).toContain('<span class="muted">0 entries</span>');
    const csv = await (await b.get(`/settings/audit/export.csv?record=${controlId}`)).text();
    expect(csv).toContain('(restricted)');
    expect(csv).not.toContain(TAG);
  });

  test('the screen and the download are for settings:read at level all', async () => {
    const user = await makeUser(env, { 'settings:read': 'own' });
    const b = await signedInBrowser(env, user.email, user.password);
    expect(await refusalOf(env, async () => b.get('/settings/audit/export.csv'))).toEqual(refusedWith(403, undefined, 'settings:read at level all needed'));
  });
});

