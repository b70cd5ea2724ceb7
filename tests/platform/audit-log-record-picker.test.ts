import { beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

/**
 * Settings › Audit log: the record filter is set by picking a record by its name. Suggestions come from the platform's
 * search, which reads only what the reader may read, so a record they may not read is never named; the chosen record
 * is shown by name and type ("(restricted)" or "(deleted)" where it cannot be named) while its id stays in the address.
 */

let env: TestEnv;
let admin: Browser;
let token: string;
const TAG = unique('Picked');
let controlId: string;
let otherId: string;

const create = async (path: string, body: Record<string, unknown>) => {
  const res = await env.request(path, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
};

const page = async (b: Browser, path: string) => {
  const res = await b.get(path);
  return { status: res.status, html: await res.text() };
};

/** The record filter's part of the page (the field and its suggestions). */
const recordFilter = (html: string) => html.slice(html.indexOf('class="field record-filter'), html.indexOf('id="filter-from"'));

beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['controls:read', 'controls:create', 'controls:update', 'controls:delete']);
  controlId = await create('/api/v1/controls', { name: `${TAG} firewall review` });
  otherId = await create('/api/v1/controls', { name: `${TAG} backup test` });
  const edit = await env.request(`/api/v1/controls/${controlId}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ status: 'retired' }) }));
  expect(edit.status).toBe(200);
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 120_000);

describe('picking the record by its name', () => {
  test('typing part of a name suggests the records named so, each a link setting the record, the other filters kept', async () => {
    const { status, html } = await page(admin, `/settings/audit/record-choices?recordName=${encodeURIComponent(`${TAG} firewall`)}&module=controls&action=Changed`);
    expect(status).toBe(200);
    expect(html).toContain('<div id="record-choices" class="record-choices" aria-live="polite">');
    expect(html).toContain('1 record found: pick one');
    expect(html).toContain(`<a href="/settings/audit?module=controls&action=Changed&record=${controlId}">${TAG} firewall review</a> <span class="muted">Control</span>`);
    expect(html).not.toContain(otherId);
    const both = await page(admin, `/settings/audit/record-choices?recordName=${encodeURIComponent(TAG)}`);
    expect(both.html).toContain('2 records found');
  });

  test('without scripts, Apply with a name shows the same suggestions under the field', async () => {
    const { status, html } = await page(admin, `/settings/audit?recordName=${encodeURIComponent(`${TAG} backup`)}`);
    expect(status).toBe(200);
    const field = recordFilter(html);
    expect(field).toContain(`value="${TAG} backup"`);
    expect(field).toContain(`<a href="/settings/audit?record=${otherId}">${TAG} backup test</a>`);
  });

  test('a name nothing is called says so', async () => {
    const { html } = await page(admin, `/settings/audit/record-choices?recordName=${encodeURIComponent(`${TAG} nothing like it`)}`);
    expect(html).toContain(`No record you may read is named like “${TAG} nothing like it”.`);
  });

  test('the chosen record is shown by name and type, its id kept in the form, and its entries listed', async () => {
    const { status, html } = await page(admin, `/settings/audit?record=${controlId}&module=controls`);
    expect(status).toBe(200);
    const field = recordFilter(html);
    expect(field).toContain(`<input type="hidden" name="record" value="${controlId}"/>`);
    expect(field).toContain(`<strong>${TAG} firewall review</strong> <span class="muted">(Control)</span>`);
    expect(field).toContain('<a href="/settings/audit?module=controls">Change record</a>');
    expect(field).not.toContain('name="recordName"');
    expect(html).toContain('<span class="muted">2 entries</span>');
  });

  test('a deleted record is named by the title its entries kept, marked "(deleted)"', async () => {
    const doomed = await create('/api/v1/controls', { name: `${TAG} doomed` });
    expect((await env.request(`/api/v1/controls/${doomed}`, bearer(token, { method: 'DELETE' }))).status).toBe(204);
    const field = recordFilter((await page(admin, `/settings/audit?record=${doomed}`)).html);
    expect(field).toContain(`<strong>${TAG} doomed (deleted)</strong> <span class="muted">(Control)</span>`);
  });

  test('an id no entry names is shown as such, and the link from a record page still filters by id', async () => {
    const field = recordFilter((await page(admin, '/settings/audit?record=abc')).html);
    expect(field).toContain('<span>No entry names record </span><code>abc</code>');
    expect((await page(admin, `/controls/${controlId}`)).html).toContain(`<a href="/settings/audit?record=${controlId}">Open in Settings › Audit log</a>`);
  });
});

describe('a record the reader may not read is never named by the picker', () => {
  test('a reader of settings without controls: no suggestion, "(restricted)" for the chosen id, the name nowhere', async () => {
    const auditor = await makeUser(env, { 'settings:read': 'all' });
    const b = await signedInBrowser(env, auditor.email, auditor.password);
    const choices = await page(b, `/settings/audit/record-choices?recordName=${encodeURIComponent(TAG)}`);
    expect(choices.status).toBe(200);
    expect(choices.html).not.toContain(controlId);
    expect(choices.html).toContain('No record you may read');
    const noScripts = await page(b, `/settings/audit?recordName=${encodeURIComponent(`${TAG} firewall`)}`);
    expect(recordFilter(noScripts.html)).not.toContain(controlId);
    const chosen = await page(b, `/settings/audit?record=${controlId}`);
    expect(recordFilter(chosen.html)).toContain('<strong>(restricted)</strong> <span class="muted">(Control)</span>');
    expect(chosen.html).not.toContain('firewall review');
  });

  test('a reader of their own controls only: another\'s control is not suggested', async () => {
    const owner = await makeUser(env, { 'settings:read': 'all', 'controls:read': 'own' });
    const b = await signedInBrowser(env, owner.email, owner.password);
    const choices = await page(b, `/settings/audit/record-choices?recordName=${encodeURIComponent(TAG)}`);
    expect(choices.html).not.toContain('firewall review');
    expect(choices.html).not.toContain(controlId);
  });

  test('the suggestions are for administrators of settings, as the Audit Log is', async () => {
    const user = await makeUser(env, { 'settings:read': 'own', 'controls:read': 'all' });
    const b = await signedInBrowser(env, user.email, user.password);
    expect(await refusalOf(env, () => b.get(`/settings/audit/record-choices?recordName=${encodeURIComponent(TAG)}`)))
      .toEqual(refusedWith(403, undefined, 'settings:read at level all needed'));
  });
});

describe('the record filter keeps its index', () => {
  test('the chosen record\'s newest entry and the filtered entries are read through audit_log_record_seq_idx', async () => {
    const plans = await env.ctx.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const explain = async (statement: ReturnType<typeof sql>) =>
        (await selectRows<Record<string, string>>(tx, sql`explain ${statement}`)).map((row) => Object.values(row)[0]).join('\n');
      return Promise.all([
        explain(sql`select seq from audit_log where record_id = ${controlId} order by seq desc limit 1`),
        explain(sql`select count(*) from audit_log where record_id = ${controlId}`),
      ]);
    });
    for (const plan of plans) expect(plan).toContain('audit_log_record_seq_idx');
  });
});

describe('the download in the reader\'s zone', () => {
  test('with the zone its link carries, times are written there and the header names it; without, in UTC', async () => {
    const utc = (await (await admin.get(`/settings/audit/export.csv?record=${controlId}`)).text()).split('\r\n');
    const tokyo = (await (await admin.get(`/settings/audit/export.csv?record=${controlId}&tz=Asia%2FTokyo`)).text()).split('\r\n');
    expect(utc[0]).toStartWith('\uFEFFEntry,At (UTC),');
    expect(tokyo[0]).toStartWith('\uFEFFEntry,At (Asia/Tokyo),');
    const utcAt = utc[1].split(',')[1];
    const tokyoAt = tokyo[1].split(',')[1];
    expect(tokyoAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(Date.parse(`${tokyoAt.replace(' ', 'T')}Z`) - Date.parse(utcAt.slice(0, 19) + 'Z')).toBe(9 * 3_600_000);
    expect((await page(admin, `/settings/audit?record=${controlId}`)).html).toContain('download="" data-reader-zone="">Download CSV</a>');
  });
});
