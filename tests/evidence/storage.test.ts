import { beforeAll, describe, expect, test } from 'bun:test';
import { rmSync, writeFileSync } from 'node:fs';
import { startTestEnv, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken } from '../helpers/factories';
import { deleteRecord } from '../../src/platform/records/records';
import { evidenceKind } from '../../src/modules/evidence/service';
import { errorOf, restClient, sha256, storedFiles, storedPath } from './helpers';

/** A service whose evidence files may be at most 1 MB, so the limit is reached quickly. */
let small: TestEnv;
let smallApi: ReturnType<typeof restClient>;
let env: TestEnv;
let api: ReturnType<typeof restClient>;

beforeAll(async () => {
  env = await testEnv();
  api = restClient(env, await makeToken(env, await adminActor(env), ['evidence:read', 'evidence:create', 'evidence:update', 'evidence:delete']));
  small = await startTestEnv({ EVIDENCE_MAX_FILE_MB: '1' });
  smallApi = restClient(small, await makeToken(small, await adminActor(small), ['evidence:read', 'evidence:create', 'evidence:update']));
});

/** A request body handed out chunk by chunk: `waitForRead` resolves once the server has started reading it. */
function trickle(chunks: Uint8Array[]) {
  let started: () => void = () => {};
  const reading = new Promise<void>((resolve) => { started = resolve; });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => { release = resolve; });
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === 1) {
        started();
        await released;
      }
      if (index < chunks.length) controller.enqueue(chunks[index++]);
      else controller.close();
    },
  });
  return { body, reading, release };
}

describe('the per-file limit', () => {
  test('a file declared larger than the limit is refused 413 before anything is read or stored', async () => {
    const id = await smallApi.created('/api/v1/evidence', { title: 'Big' });
    const before = storedFiles(small).length;
    const res = await smallApi.upload(id, 'big.bin', new Uint8Array(1024 * 1024 + 1), undefined, { 'content-length': String(1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toBe('file: larger than the 1 MB an evidence file may be');
    expect(storedFiles(small)).toHaveLength(before);
  });

  test('a streamed file without a length is cut off at the limit with 413, leaving no partial file behind', async () => {
    const id = await smallApi.created('/api/v1/evidence', { title: 'Streamed' });
    const before = storedFiles(small).length;
    const chunk = new Uint8Array(256 * 1024).fill(1);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 6; i += 1) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await smallApi.upload(id, 'stream.bin', body);
    expect(res.status).toBe(413);
    expect(storedFiles(small)).toHaveLength(before);
    expect((await smallApi.json<unknown[]>(await smallApi.send('GET', `/api/v1/evidence/${id}/files`)))).toEqual([]);
  });

  test('a file of exactly the limit is accepted', async () => {
    const id = await smallApi.created('/api/v1/evidence', { title: 'Exact' });
    const bytes = new Uint8Array(1024 * 1024).fill(7);
    const res = await smallApi.upload(id, 'exact.bin', bytes);
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await smallApi.json<{ sha256: string }>(res)).sha256).toBe(sha256(bytes));
  });
});

describe('nothing half-written', () => {
  test('when the database write fails after the file is stored, the stored file is removed', async () => {
    const admin = await adminActor(env);
    const id = await api.created('/api/v1/evidence', { title: 'Deleted mid-upload' });
    const before = storedFiles(env).length;
    const { body, reading, release } = trickle([new TextEncoder().encode('first part '), new TextEncoder().encode('second part')]);
    const pending = api.upload(id, 'racing.txt', body);
    await reading;
    // The file is being stored; the evidence goes before its record can be written, so that write fails.
    await env.ctx.db.transaction((tx) => deleteRecord(tx, evidenceKind, admin, id));
    release();
    const res = await pending;
    expect(res.status).toBe(404);
    expect(storedFiles(env)).toHaveLength(before);
  });
});

describe('Verify files', () => {
  test('re-reads every stored file and reports a changed and a missing one by evidence and file name', async () => {
    const id = await api.created('/api/v1/evidence', { title: 'Firewall export' });
    const changed = await api.json<{ id: string }>(await api.upload(id, 'rules.txt', 'allow 443'));
    const missing = await api.json<{ id: string }>(await api.upload(id, 'nat.txt', 'nat on'));
    const intact = await api.json<{ id: string }>(await api.upload(id, 'ok.txt', 'fine'));
    writeFileSync(await storedPath(env, changed.id), 'allow 22!');
    rmSync(await storedPath(env, missing.id));

    const started = await api.send('POST', '/api/v1/evidence/verify');
    expect(started.status, await started.clone().text()).toBe(202);
    const run = await api.json<{ id: string }>(started);
    let result: { status: string; checked: number; total: number; problems: { fileId: string; fileName: string; evidenceTitle: string; problem: string }[] };
    do {
      await Bun.sleep(50);
      result = await api.json(await api.send('GET', `/api/v1/evidence/verify/${run.id}`));
    } while (result.status === 'running');
    expect(result.status).toBe('finished');
    expect(result.checked).toBe(result.total);
    const ours = result.problems.filter((p) => [changed.id, missing.id, intact.id].includes(p.fileId));
    expect(ours.map((p) => [p.evidenceTitle, p.fileName, p.problem]).sort()).toEqual([
      ['Firewall export', 'nat.txt', 'missing'],
      ['Firewall export', 'rules.txt', 'mismatch'],
    ]);
    const latest = await api.json<{ id: string }>(await api.send('GET', '/api/v1/evidence/verify/latest'));
    expect(latest.id).toBe(run.id);
    const download = await api.send('GET', `/api/v1/evidence/${id}/files/${missing.id}/content`);
    expect(download.status).toBe(503);
    expect(await errorOf(download)).toContain('missing');
  });

  test('needs evidence:read at level all: it reads every file', async () => {
    const { makeUser } = await import('../helpers/factories');
    const user = await makeUser(env, { 'evidence:read': 'own', 'apiTokens:create': 'own' });
    const token = await makeToken(env, await user.actor(), ['evidence:read']);
    expect((await api.send('POST', '/api/v1/evidence/verify', undefined, token)).status).toBe(403);
  });
});

