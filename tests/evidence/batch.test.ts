import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { controlKind } from '../../src/modules/controls/service';
import { recordStoredFiles, storeFile } from '../../src/modules/evidence/files';
import { evidenceKind, linkEvidenceBatch, listLinks, lockEvidence } from '../../src/modules/evidence/service';
import { listHistory } from '../../src/platform/audit/history';
import { AppError } from '../../src/platform/core/errors';
import { createRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeUser, unique } from '../helpers/factories';

/** The evidence batch writes (used by the demonstration data): the single writes' rules, a whole batch at a time. */
const env = await testEnv();

const store = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  return storeFile(env.ctx, new Blob([bytes]).stream(), bytes.length);
};
const newEvidence = (actor: Actor) => env.ctx.db.transaction((tx) => createRecord(tx, evidenceKind, actor, { title: unique('Evidence') }));
const newControl = (actor: Actor) => env.ctx.db.transaction((tx) => createRecord(tx, controlKind, actor, { name: unique('Control') }));

async function refusal(write: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await write.then(() => null, (e: unknown) => e);
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

const fileCount = async (env: TestEnv, ids: string[]) =>
  (await selectRows<{ n: number }>(env.ctx.db, sql`select count(*)::int as n from evidence_files where evidence_id in ${sql`(${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`}`))[0].n;

describe('recording many stored files', () => {
  test('records each file on its evidence with a History entry naming it and its SHA-256', async () => {
    const admin = await adminActor(env);
    const [a, b] = [await newEvidence(admin), await newEvidence(admin)];
    const [first, second] = [await store('first file'), await store('second file')];
    const files = await env.ctx.db.transaction((tx) => recordStoredFiles(tx, admin, [
      { evidenceId: a.id, name: 'one.txt', stored: first },
      { evidenceId: b.id, name: 'two.txt', stored: second },
    ]));
    expect(files.map((f) => [f.evidenceId, f.name, f.size])).toEqual([[a.id, 'one.txt', 10], [b.id, 'two.txt', 11]]);
    const history = await listHistory(env.ctx.db, 'evidence', b.id);
    expect(history.some((h) => h.action === 'file.upload' && JSON.stringify(h.changes).includes(files[1].sha256))).toBe(true);
  });

  test('refuses the whole batch when one evidence is locked or not the actor\'s to change; nothing is recorded', async () => {
    const admin = await adminActor(env);
    const [open, locked] = [await newEvidence(admin), await newEvidence(admin)];
    await env.ctx.db.transaction((tx) => lockEvidence(tx, admin, locked.id));
    const [ok, late] = [await store('fine'), await store('too late')];
    const lockedRefusal = await refusal(env.ctx.db.transaction((tx) => recordStoredFiles(tx, admin, [
      { evidenceId: open.id, name: 'ok.txt', stored: ok },
      { evidenceId: locked.id, name: 'late.txt', stored: late },
    ])));
    expect(lockedRefusal.code).toBe('CONFLICT');
    expect(lockedRefusal.message).toContain(locked.id);
    expect(await fileCount(env, [open.id, locked.id])).toBe(0);

    // Everything a write needs is read before its transaction: PGlite has one connection, which the transaction holds.
    const reader = await (await makeUser(env, { 'evidence:read': 'all' })).actor();
    const fine = await store('fine');
    const readOnly = await refusal(env.ctx.db.transaction((tx) => recordStoredFiles(tx, reader, [{ evidenceId: open.id, name: 'ok.txt', stored: fine }])));
    expect(readOnly.code).toBe('FORBIDDEN');
    expect(await fileCount(env, [open.id])).toBe(0);
  });

  test('refuses a file name the single upload refuses', async () => {
    const admin = await adminActor(env);
    const evidence = await newEvidence(admin);
    const x = await store('x');
    const bad = await refusal(env.ctx.db.transaction((tx) => recordStoredFiles(tx, admin, [{ evidenceId: evidence.id, name: '../escape.txt', stored: x }])));
    expect(bad.code).toBe('INVALID');
    const problems = await env.ctx.db.transaction((tx) => recordStoredFiles(tx, admin, [{ evidenceId: evidence.id, name: 'a\\b.txt', stored: x }])).catch((e: AppError) => e.problems);
    expect(JSON.stringify(problems)).toContain('path separators');
  });
});

describe('linking many evidence records', () => {
  test('links each evidence to its record, with History entries', async () => {
    const admin = await adminActor(env);
    const [a, b, control] = [await newEvidence(admin), await newEvidence(admin), await newControl(admin)];
    await env.ctx.db.transaction((tx) => linkEvidenceBatch(tx, admin, [
      { evidenceId: a.id, recordType: 'control', recordId: control.id },
      { evidenceId: b.id, recordType: 'control', recordId: control.id },
    ]));
    for (const evidence of [a, b]) {
      expect((await listLinks(env.ctx.db, admin, evidence.id)).map((l) => l.recordId)).toEqual([control.id]);
      expect((await listHistory(env.ctx.db, 'evidence', evidence.id)).some((h) => h.action === 'link')).toBe(true);
    }
  });

  test('refuses the whole batch for a record the actor may not read, or a link already there; nothing is linked', async () => {
    const admin = await adminActor(env);
    const user = await makeUser(env, { 'evidence:read': 'all', 'evidence:update': 'all', 'evidence:create': 'all', 'controls:read': 'own' });
    const actor = await user.actor();
    const [mine, theirs] = [await newControl(actor).catch(() => null), await newControl(admin)];
    expect(mine).toBeNull(); // no controls:create: every control here is someone else's
    const evidence = await newEvidence(actor);
    const unreadable = await refusal(env.ctx.db.transaction((tx) => linkEvidenceBatch(tx, actor, [{ evidenceId: evidence.id, recordType: 'control', recordId: theirs.id }])));
    expect(unreadable.code).toBe('NOT_FOUND');
    expect(await listLinks(env.ctx.db, admin, evidence.id)).toEqual([]);

    await env.ctx.db.transaction((tx) => linkEvidenceBatch(tx, admin, [{ evidenceId: evidence.id, recordType: 'control', recordId: theirs.id }]));
    const other = await newEvidence(admin);
    const twice = await refusal(env.ctx.db.transaction((tx) => linkEvidenceBatch(tx, admin, [
      { evidenceId: other.id, recordType: 'control', recordId: theirs.id },
      { evidenceId: evidence.id, recordType: 'control', recordId: theirs.id },
    ])));
    expect(twice.code).toBe('CONFLICT');
    expect(await listLinks(env.ctx.db, admin, other.id)).toEqual([]);
  });
});
