import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { accountReviewItems, projects } from '../../db/schema';
import { programKind } from '../../src/modules/accountReviews/service';
import { currentItemsCsv, importReviewItems } from '../../src/modules/accountReviews/import';
import { projectImport } from '../../src/modules/projects/import';
import { projectKind } from '../../src/modules/projects/service';
import { csvCurrentRecords } from '../../src/platform/csv/engine';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { postCsv, rowAt } from './helpers';

/**
 * CSV files speak like the screens where the import reads it back: stored keys are written as their labels ("In
 * progress"), which the import accepts beside the keys, so a download imports back unchanged. People stay e-mails in
 * the file (a name may be shared, an e-mail not) and check results name them as the screens do.
 */

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['projects:read', 'projects:create', 'projects:update']);
});

const lines = (csv: string) => csv.replace(/^\uFEFF/, '').trimEnd().split('\r\n');

describe('labels in CSV downloads, with the round trip kept', () => {
  test('current records write a project status by its label; the download imports back with every row unchanged', async () => {
    const title = unique('Label project');
    const { id } = await env.ctx.db.transaction((tx) => createRecord(tx, projectKind, admin, { title, status: 'in_progress' }));
    const { csv } = await csvCurrentRecords(env.ctx.db, projectImportType(), admin);
    const header = lines(csv)[0].split(',');
    const line = lines(csv).find((l) => l.startsWith(id))!;
    expect(line.split(',')[header.indexOf('status')]).toBe('In progress');
    expect(csv).not.toContain('in_progress');

    const back = await postCsv(env, token, 'projects', csv, 'check');
    expect(back.status, back.text).toBe(200);
    expect(back.data.counts.error, back.text).toBe(0);
    expect(back.data.counts.create + back.data.counts.update, back.text).toBe(0);
    expect(rowAt(back.data, lines(csv).indexOf(line) + 1)).toMatchObject({ outcome: 'unchanged', id });
  });

  test('a label typed in a download changes the record; the stored key is still accepted', async () => {
    const [a, b] = [unique('Label A'), unique('Label B')];
    const first = await env.ctx.db.transaction((tx) => createRecord(tx, projectKind, admin, { title: a }));
    const second = await env.ctx.db.transaction((tx) => createRecord(tx, projectKind, admin, { title: b }));
    const csv = `id,title,status\n${first.id},${a},Completed\n${second.id},${b},in_progress\n`;
    const applied = await postCsv(env, token, 'projects', csv, 'apply');
    expect(applied.data.outcome, applied.text).toBe('imported');
    expect(rowAt(applied.data, 2).changes).toEqual([{ column: 'status', old: 'Planned', new: 'Completed' }]);
    expect(rowAt(applied.data, 3).changes).toEqual([{ column: 'status', old: 'Planned', new: 'In progress' }]);
    const stored = async (id: string) => (await env.ctx.db.select({ status: projects.status }).from(projects).where(eq(projects.id, id)))[0].status;
    expect(await stored(first.id as string)).toBe('completed');
    expect(await stored(second.id as string)).toBe('in_progress');
  });
});

describe('check results name people as the screens do', () => {
  test('an owner changed by e-mail reads old -> new by name; a new row names its owner; the download keeps the e-mail', async () => {
    const [ann, bob] = [await makeUser(env, {}, unique('Ann Owner')), await makeUser(env, {}, unique('Bob Owner'))];
    const title = unique('Owned project');
    const { id } = await env.ctx.db.transaction((tx) => createRecord(tx, projectKind, admin, { title, ownerId: ann.id }));
    const created = unique('New owned project');
    const csv = `id,title,owner\n${id},${title},${bob.email}\n,${created},${ann.email}\n`;
    const checked = await postCsv(env, token, 'projects', csv, 'check');
    expect(rowAt(checked.data, 2).changes).toEqual([{ column: 'owner', old: nameOf(ann.email), new: nameOf(bob.email) }]);
    expect(rowAt(checked.data, 3).changes).toEqual(expect.arrayContaining([{ column: 'owner', old: '', new: nameOf(ann.email) }]));
    expect(checked.text).not.toContain(bob.email);

    // The check result screen says the same.
    const browser = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const form = new FormData();
    form.append('file', new File([csv], 'projects.csv', { type: 'text/csv' }));
    const res = await env.request('/projects/import/check', { method: 'POST', body: form, headers: { cookie: browser.cookie!, 'x-csrf-token': browser.csrf!, 'hx-request': 'true' } });
    const html = await res.text();
    expect(res.status, html.slice(0, 300)).toBe(200);
    expect(html).toContain(`<span>${nameOf(ann.email)}</span> → <span>${nameOf(bob.email)}</span>`);

    const { csv: download } = await csvCurrentRecords(env.ctx.db, projectImportType(), admin);
    expect(lines(download).find((l) => l.startsWith(id))).toContain(ann.email);
  });

  test('account review items: the decision is written by its label and read back; check results name the owner', async () => {
    const [ann, bob] = [await makeUser(env, {}, unique('Ann Reviewed')), await makeUser(env, {}, unique('Bob Reviewed'))];
    const program = await env.ctx.db.transaction((tx) => createRecord(tx, programKind, admin, { name: unique('Quarterly access review') }));
    const programId = program.id as string;
    const file = (text: string) => ({ name: 'items.csv', bytes: new TextEncoder().encode(text) });
    const first = await importReviewItems(env.ctx.db, admin, programId, file(`account,system,owner,decision\nalice,ERP,${ann.email},revoke\n`), 'apply');
    expect(first.outcome, JSON.stringify(first)).toBe('imported');
    const [item] = await env.ctx.db.select().from(accountReviewItems).where(eq(accountReviewItems.programId, programId));

    const { csv } = await currentItemsCsv(env.ctx.db, admin, programId);
    const row = lines(csv)[1].split(',');
    expect(row[lines(csv)[0].split(',').indexOf('decision')]).toBe('Revoke');
    const back = await importReviewItems(env.ctx.db, admin, programId, file(csv), 'check');
    expect(back.rows, JSON.stringify(back.rows)).toEqual([{ line: 2, outcome: 'unchanged' }]);

    const changed = await importReviewItems(env.ctx.db, admin, programId, file(`id,account,system,owner,decision\n${item.id},alice,ERP,${bob.email},Keep\n`), 'check');
    expect(changed.rows[0].changes).toEqual(expect.arrayContaining([
      { column: 'owner', old: nameOf(ann.email), new: nameOf(bob.email) },
      { column: 'decision', old: 'Revoke', new: 'Keep' },
    ]));
  });
});

/** makeUser names an account by the part of its e-mail before the @. */
const nameOf = (email: string) => email.slice(0, email.indexOf('@'));

const projectImportType = () => projectImport;
