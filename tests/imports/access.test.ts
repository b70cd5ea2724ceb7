import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { controls } from '../../db/schema';
import { createRecord } from '../../src/platform/records/records';
import { controlKind } from '../../src/modules/controls/service';
import { testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { postCsv, rowAt } from './helpers';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { controlImport } from '../../src/modules/controls/import';
import { riskExceptionImport } from '../../src/modules/exceptions/import';
import { importRightsMissing, runCsvImport } from '../../src/platform/csv/engine';
import { AppError } from '../../src/platform/core/errors';

let env: TestEnv;

beforeAll(async () => {
  env = await testEnv();
});

async function makeControl(name = unique('Control')) {
  const admin = await adminActor(env);
  return (await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name }))).id;
}

describe('Permissions', () => {
  test('a token without create or update on the module is refused (403)', async () => {
    const reader = await makeToken(env, await adminActor(env), ['controls:read']);
    // Why, not only the status: the token has neither right an import needs.
    expect(await refusalOf(env, () => env.request('/api/v1/controls/import?mode=check', {
      method: 'POST', body: 'name\nX\n', headers: { authorization: `Bearer ${reader}`, 'content-type': 'text/csv' },
    }))).toEqual(refusedWith(403, 'forbidden', "controls:create or controls:update missing (token scope and creator's right)"));
  });

  test('update alone cannot create; own level applies per row', async () => {
    const updater = await makeUser(env, { 'controls:read': 'all', 'controls:update': 'all', 'apiTokens:create': 'own' });
    const updaterToken = await makeToken(env, await updater.actor('api'), ['controls:read', 'controls:update']);
    const id = await makeControl();
    const res = await postCsv(env, updaterToken, 'controls', `id,name\n${id},${unique('Renamed')}\n,${unique('New')}\n`, 'check');
    expect(res.status, res.text).toBe(200);
    expect(rowAt(res.data, 2).outcome).toBe('update');
    expect(rowAt(res.data, 3).errors).toEqual([{ column: '', message: 'creating needs the right controls:create' }]);

    const own = await makeUser(env, { 'controls:read': 'own', 'controls:create': 'own', 'controls:update': 'own', 'apiTokens:create': 'own' });
    const ownToken = await makeToken(env, await own.actor('api'), ['controls:read', 'controls:create', 'controls:update']);
    const someoneElse = await makeUser(env, {});
    const mine = unique('Mine');
    const csv = `id,name,owner\n${id},Not mine,\n,${mine},\n,${unique('Given away')},${someoneElse.email}\n`;
    const checked = await postCsv(env, ownToken, 'controls', csv, 'check');
    // A refusal of the record as a whole names no column.
    expect(rowAt(checked.data, 2).errors).toEqual([{ column: '', message: expect.stringContaining('not found') }]);
    expect(rowAt(checked.data, 3).outcome).toBe('create');
    expect(rowAt(checked.data, 4).errors?.[0].message).toContain('level own');
    const applied = await postCsv(env, ownToken, 'controls', `name\n${mine}\n`, 'apply');
    expect(applied.status).toBe(200);
    const [row] = await env.ctx.db.select().from(controls).where(eq(controls.name, mine));
    expect(row.ownerId).toBe(own.id);
  });
});

describe('The engine refuses on its own', () => {
  test('an importer with neither right is refused by the engine itself, whoever calls it, naming the create right', async () => {
    const reader = await makeUser(env, { 'controls:read': 'all' });
    const bytes = new TextEncoder().encode(`name\n${unique('Never')}\n`);
    const refused = await runCsvImport(env.ctx.db, controlImport, await reader.actor(), { name: 'x.csv', bytes }, 'check').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', deniedReason: 'user right controls:create missing' });
  });

  test('a missing import right is named once when creating and updating need the same right', () => {
    expect(importRightsMissing(controlImport)).toBe('controls:create or controls:update missing');
    // A risk's exceptions are created and updated with the right to update risks.
    expect(importRightsMissing(riskExceptionImport)).toBe('risks:update missing');
  });
});

async function upload(b: Browser, path: string, csv: string, fileName: string) {
  const form = new FormData();
  form.append('file', new File([csv], fileName, { type: 'text/csv' }));
  return env.request(path, { method: 'POST', body: form, headers: { cookie: b.cookie!, 'x-csrf-token': b.csrf!, 'hx-request': 'true' } });
}

describe('Screens', () => {
  test('the Import button shows only to people who may create or update the records', async () => {
    const reader = await makeUser(env, { 'controls:read': 'all', 'risks:read': 'all', 'assets:read': 'all' });
    const writer = await makeUser(env, { 'controls:read': 'all', 'controls:update': 'all', 'risks:read': 'all', 'risks:create': 'all', 'assets:read': 'all', 'assets:create': 'own' });
    const asReader = await signedInBrowser(env, reader.email, reader.password);
    const asWriter = await signedInBrowser(env, writer.email, writer.password);
    for (const path of ['/controls', '/risks', '/assets']) {
      expect(await (await asReader.get(path)).text(), path).not.toContain(`href="${path}/import"`);
      expect(await (await asWriter.get(path)).text(), path).toContain(`href="${path}/import"`);
    }
    expect(await refusalOf(env, async () => asReader.get('/controls/import'))).toEqual(refusedWith(403, undefined, 'controls:create or controls:update missing'));
    const dialog = await (await asWriter.get('/controls/import')).text();
    expect(dialog).toContain('Download template');
    expect(dialog).toContain('Download current records');
    expect(dialog).toContain('hx-indicator="#import-progress"');
  });

  test('the dialog checks the file, shows the result errors first, offers Import rows only without errors, and imports', async () => {
    const admin = await import('../helpers/app');
    const b = await signedInBrowser(env, admin.ADMIN_EMAIL, admin.ADMIN_PASSWORD);
    const good = unique('Screen control');
    const bad = await upload(b, '/controls/import/check', `name,type\n${good},technical\n${unique('Bad')},sideways\n`, 'screen.csv');
    expect(bad.status).toBe(200);
    const badHtml = await bad.text();
    expect(badHtml).toContain('Type: &quot;sideways&quot; is not one of');
    expect(badHtml.indexOf('<td>Error</td>')).toBeLessThan(badHtml.indexOf('<td>Create</td>'));
    expect(badHtml).not.toContain('action="/controls/import/apply"');
    expect(badHtml).toContain('id="show-error"');

    const ok = await upload(b, '/controls/import/check', `name,type\n${good},technical\n`, 'screen.csv');
    const okHtml = await ok.text();
    expect(okHtml).toContain('Import rows (1 change)');
    const csv = /name="csv" value="([^"]*)"/.exec(okHtml)![1].replaceAll('&#10;', '\n');
    const applied = await b.post('/controls/import/apply', { csv: csv.replace(/&amp;/g, '&'), fileName: 'screen.csv' }, { headers: { 'hx-request': 'true' } });
    expect(applied.status).toBe(200);
    expect(await applied.text()).toContain('Imported screen.csv: 1 created');
    const [row] = await env.ctx.db.select().from(controls).where(eq(controls.name, good));
    expect(row.type).toBe('technical');
  });

  test('a refused file is explained in the dialog', async () => {
    const admin = await import('../helpers/app');
    const b = await signedInBrowser(env, admin.ADMIN_EMAIL, admin.ADMIN_PASSWORD);
    const res = await upload(b, '/risks/import/check', 'title,title\nA,B\n', 'dup.csv');
    expect(await res.text()).toContain('The header repeats');
  });
});
