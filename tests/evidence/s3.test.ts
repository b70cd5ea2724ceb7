import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eq } from 'drizzle-orm';
import { evidenceFiles } from '../../db/schema';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken } from '../helpers/factories';
import { checkPackage } from '../../src/modules/evidence/package-verify';
import { bytesSource } from '../../src/platform/storage/zip';
import { restClient, sha256 } from './helpers';

/**
 * Evidence files in S3-compatible storage through Bun's S3 client, against a real S3 API server (s3rver, from npm,
 * run with Node on loopback): upload in several parts, download with Range, Verify files and the auditor package.
 */

const S3RVER = resolve(import.meta.dir, '../../node_modules/s3rver/bin/s3rver.js');
const node = Bun.which('node');
if (!node) console.warn('evidence/s3: skipped, node is not on the PATH to run the s3rver test server');

let server: ReturnType<typeof Bun.spawn> | undefined;
let env: TestEnv;
let api: ReturnType<typeof restClient>;
let token: string;

async function startS3(): Promise<string> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const folder = mkdtempSync(join(tmpdir(), 'grc-s3-'));
  server = Bun.spawn([node!, S3RVER, '-d', folder, '-p', String(port), '-a', '127.0.0.1', '--configure-bucket', 'evidence', '--silent'], { stdout: 'ignore', stderr: 'pipe' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i += 1) {
    if (await fetch(`${endpoint}/`).then(() => true, () => false)) return endpoint;
    await Bun.sleep(100);
  }
  throw new Error('s3rver did not start');
}

beforeAll(async () => {
  if (!node) return;
  const endpoint = await startS3();
  env = await startTestEnv({ S3_BUCKET: 'evidence', S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' });
  token = await makeToken(env, await adminActor(env), ['evidence:read', 'evidence:create', 'evidence:update']);
  api = restClient(env, token);
}, 60_000);

afterAll(() => {
  server?.kill();
});

describe.skipIf(!node)('evidence files in S3-compatible storage', () => {
  test('a 20 MB file goes up in parts, comes back whole and by range, verifies and packages', async () => {
    expect(env.ctx.storage.kind).toBe('s3');
    const id = await api.created('/api/v1/evidence', { title: 'Cloud trail export' });
    const bytes = new Uint8Array(20 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i % 251;
    const res = await api.upload(id, 'trail.bin', bytes);
    expect(res.status, await res.clone().text()).toBe(201);
    const file = await api.json<{ id: string; sha256: string }>(res);
    expect(file.sha256).toBe(sha256(bytes));

    const whole = await api.send('GET', `/api/v1/evidence/${id}/files/${file.id}/content`);
    expect(whole.headers.get('x-content-sha256')).toBe(sha256(bytes));
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(bytes));
    const part = await env.request(`/api/v1/evidence/${id}/files/${file.id}/content`, { headers: { authorization: `Bearer ${token}`, range: 'bytes=4096-4100' } });
    expect(part.status).toBe(206);
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([4096 % 251, 0, 0, 0, 0]);

    const run = await api.json<{ id: string }>(await api.send('POST', '/api/v1/evidence/verify'));
    let result: { status: string; problems: unknown[]; checked: number };
    do {
      await Bun.sleep(100);
      result = await api.json(await api.send('GET', `/api/v1/evidence/verify/${run.id}`));
    } while (result.status === 'running');
    expect(result).toMatchObject({ status: 'finished', problems: [], checked: 1 });

    const zip = await api.send('GET', `/api/v1/evidence/package?evidenceId=${id}`);
    const check = await checkPackage(bytesSource(new Uint8Array(await zip.arrayBuffer())));
    expect(check).toMatchObject({ problems: [], filesChecked: 1 });

    const [{ storageKey }] = await env.ctx.db.select({ storageKey: evidenceFiles.storageKey }).from(evidenceFiles).where(eq(evidenceFiles.id, file.id));
    expect(await env.ctx.storage.size(storageKey)).toBe(bytes.length);
    expect((await api.send('DELETE', `/api/v1/evidence/${id}/files/${file.id}`)).status).toBe(204);
    expect(await env.ctx.storage.size(storageKey)).toBeNull();
  }, 120_000);
});
