import { beforeAll, describe, expect, test } from 'bun:test';
import { assetKind } from '../../src/modules/assets/service';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeToken, unique } from '../helpers/factories';
import { postCsv, riskByTitle, rowAt } from './helpers';

/** What each row will create or change, old -> new with names, and links to the records once imported. */

let env: TestEnv;
let admin: Actor;
let token: string;
let b: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:read', 'risks:create', 'risks:update', 'assets:read']);
  b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const makeAsset = async (name: string) => (await env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name }))).id as string;

async function upload(path: string, csv: string) {
  const form = new FormData();
  form.append('file', new File([csv], 'risks.csv', { type: 'text/csv' }));
  return env.request(path, { method: 'POST', body: form, headers: { cookie: b.cookie!, 'x-csrf-token': b.csrf!, 'hx-request': 'true' } });
}

describe('CSV check results', () => {
  test('an update row lists each change old -> new with linked records by name; a create row what it sets; only kept rows carry new ids', async () => {
    const [laptop, server] = [unique('Laptop fleet'), unique('Mail server')];
    const laptopId = await makeAsset(laptop);
    const serverId = await makeAsset(server);
    const title = unique('Stolen laptop');
    await makeRisk(env, admin, { title, assetId: laptopId });
    const { id } = await riskByTitle(env, title);
    const created = unique('Phishing');
    const csv = `id,title,classification,inherent_likelihood,inherent_impact,asset\n${id},${title},Operational,3,4,${server}\n,${created},Operational,2,2,${laptop}\n`;

    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(rowAt(checked.data, 2)).toEqual({ line: 2, outcome: 'update', id, title, changes: [{ column: 'asset', old: laptop, new: server }] });
    const create = rowAt(checked.data, 3);
    expect(create.id).toBeUndefined();
    expect(create.changes).toEqual(expect.arrayContaining([{ column: 'title', old: '', new: created }, { column: 'asset', old: '', new: laptop }]));
    expect(JSON.stringify(checked.data)).not.toContain(serverId);

    const applied = await postCsv(env, token, 'risks', csv, 'apply');
    expect(applied.data.outcome, applied.text).toBe('imported');
    expect(rowAt(applied.data, 3).id).toBe((await riskByTitle(env, created)).id);
    expect(rowAt(applied.data, 2).id).toBe(id);
  });

  test('the screen shows labels and old → new, and after Import rows links to each record created or changed', async () => {
    const [before, after] = [unique('Old asset'), unique('New asset')];
    const title = unique('Screen risk');
    await makeRisk(env, admin, { title, assetId: await makeAsset(before) });
    await makeAsset(after);
    const { id } = await riskByTitle(env, title);
    const created = unique('Screen new risk');
    const csv = `id,title,classification,inherent_likelihood,inherent_impact,asset,business_unit\n${id},${title},Operational,3,4,${after},\n,${created},Operational,2,2,,\n`;

    const res = await upload('/risks/import/check', csv);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<li><strong>Asset</strong>: <span>${before}</span> → <span>${after}</span></li>`);
    expect(html).toContain(`<li><strong>Title</strong>: <span>${created}</span></li>`);
    expect(html).toContain(`<a href="/risks/${id}">${title}</a>`);

    const form = new URLSearchParams({ _csrf: b.csrf!, fileName: 'risks.csv', csv });
    const applied = await env.request('/risks/import/apply', {
      method: 'POST', body: form.toString(), headers: { cookie: b.cookie!, 'content-type': 'application/x-www-form-urlencoded', 'hx-request': 'true' },
    });
    const done = await applied.text();
    expect(applied.status, done.slice(0, 500)).toBe(200);
    const newId = (await riskByTitle(env, created)).id;
    expect(done).toContain(`<a href="/risks/${newId}">${created}</a>`);
    expect(done).toContain(`<a href="/risks/${id}">${title}</a>`);
  });
});
