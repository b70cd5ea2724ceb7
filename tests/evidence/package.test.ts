import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser } from '../helpers/factories';
import { checkPackage } from '../../src/modules/evidence/package-verify';
import type { PackageManifest } from '../../src/modules/evidence/package';
import { bytesSource, entryStream, listZip, zipStream, type ZipEntry } from '../../src/platform/storage/zip';
import { errorOf, restClient, sha256 } from './helpers';

let env: TestEnv;
let api: ReturnType<typeof restClient>;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), [
    'evidence:read', 'evidence:create', 'evidence:update', 'controls:read', 'controls:create', 'compliance:read', 'compliance:create',
  ]);
  api = restClient(env, token);
});

const download = async (query: string, secret = token) => {
  const res = await api.send('GET', `/api/v1/evidence/package?${query}`, undefined, secret);
  return { res, bytes: res.status === 200 ? new Uint8Array(await res.arrayBuffer()) : new Uint8Array() };
};

/** The archive's entries as name → bytes. */
async function unzip(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const source = bytesSource(bytes);
  const entries = new Map<string, Uint8Array>();
  for (const entry of await listZip(source)) entries.set(entry.name, new Uint8Array(await new Response(await entryStream(source, entry)).arrayBuffer()));
  return entries;
}

/** A zip of `entries`, as someone altering a package would make it. */
async function rezip(entries: Map<string, Uint8Array>): Promise<Uint8Array> {
  async function* all(): AsyncGenerator<ZipEntry> {
    for (const [name, bytes] of entries) yield { name, size: bytes.length, crc32: Bun.hash.crc32(bytes) >>> 0, modified: new Date(), body: () => bytes };
  }
  return new Uint8Array(await new Response(zipStream(all())).arrayBuffer());
}

/** A control with two pieces of evidence (one with two files of the same name), and evidence linked elsewhere. */
async function scenario() {
  const control = await api.created('/api/v1/controls', { name: 'Encryption at rest' });
  const first = await api.created('/api/v1/evidence', { title: 'KMS configuration', collectedOn: '2026-01-10' });
  const second = await api.created('/api/v1/evidence', { title: 'Disk encryption report', collectedOn: '2026-02-10' });
  const unrelated = await api.created('/api/v1/evidence', { title: 'Unrelated', collectedOn: '2026-02-11' });
  for (const id of [first, second]) await api.send('POST', `/api/v1/evidence/${id}/links`, { recordType: 'control', recordId: control });
  await api.upload(first, 'kms.json', '{"rotation":"365d"}');
  await api.upload(second, 'report.txt', 'all disks encrypted');
  await api.upload(second, 'report.txt', 'second copy, same name');
  await api.upload(unrelated, 'other.txt', 'not in the package');
  return { control, first, second, unrelated };
}

describe('auditor package', () => {
  test('holds the chosen files and a manifest with every SHA-256, size and proved record, plus the Audit Log checkpoint', async () => {
    const { control, first, second } = await scenario();
    const { res, bytes } = await download(`controlId=${control}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="evidence-package-\d{8}-\d{4}\.zip"$/);
    const entries = await unzip(bytes);
    const manifest = JSON.parse(new TextDecoder().decode(entries.get('manifest.json'))) as PackageManifest;
    expect([...entries.keys()].sort()).toEqual([
      `files/${first}/kms.json`, `files/${second}/report (2).txt`, `files/${second}/report.txt`, 'manifest.json',
    ].sort());
    expect(manifest.evidence.map((e) => e.title).sort()).toEqual(['Disk encryption report', 'KMS configuration']);
    expect(manifest.evidence.find((e) => e.id === first)?.proves).toEqual([{ recordType: 'control', recordId: control, title: 'Encryption at rest' }]);
    for (const file of manifest.files) {
      expect(sha256(entries.get(file.path)!)).toBe(file.sha256);
      expect(entries.get(file.path)!.length).toBe(file.size);
    }
    expect(manifest.auditCheckpoint).toMatchObject({ action: 'package.export', module: 'evidence' });
    expect(manifest.auditCheckpoint.seq).toBeGreaterThan(0);
    expect(manifest.auditCheckpoint.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await checkPackage(bytesSource(bytes))).problems).toEqual([]);
  });

  test('chooses by evidence, by a package’s requirements and by date range; only evidence the caller may read goes in', async () => {
    const { first, second, unrelated } = await scenario();
    const byList = await unzip((await download(`evidenceId=${first}&evidenceId=${unrelated}`)).bytes);
    expect([...byList.keys()].filter((k) => k !== 'manifest.json').map((k) => k.split('/')[1]).sort()).toEqual([first, unrelated].sort());

    const pkg = await api.created('/api/v1/compliance/packages', { name: `Pkg ${crypto.randomUUID().slice(0, 6)}`, items: [{ code: 'R1', name: 'Encrypt' }] });
    const [analysis] = (await api.json<{ rows: { id: string }[] }>(await api.send('GET', `/api/v1/compliance/analyses?packageId=${pkg}`))).rows;
    await api.send('POST', `/api/v1/evidence/${second}/links`, { recordType: 'requirement', recordId: analysis.id });
    const byPackage = JSON.parse(new TextDecoder().decode((await unzip((await download(`packageId=${pkg}`)).bytes)).get('manifest.json'))) as PackageManifest;
    expect(byPackage.evidence.map((e) => e.id)).toEqual([second]);

    const byDate = JSON.parse(new TextDecoder().decode((await unzip((await download(`evidenceId=${first}&evidenceId=${second}&from=2026-02-01&to=2026-02-28`)).bytes)).get('manifest.json'))) as PackageManifest;
    expect(byDate.evidence.map((e) => e.id)).toEqual([second]);

    const user = await makeUser(env, { 'evidence:read': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['evidence:read']);
    const mineOnly = JSON.parse(new TextDecoder().decode((await unzip((await download(`evidenceId=${first}`, own)).bytes)).get('manifest.json'))) as PackageManifest;
    expect(mineOnly.evidence).toEqual([]);
  });

  test('a package needs a choice, and the records it names must be readable', async () => {
    const { res } = await download('');
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('choose what goes in');
    const unknown = await download(`controlId=${crypto.randomUUID()}`);
    expect(unknown.res.status).toBe(404);
    const backwards = await download('from=2026-03-01&to=2026-02-01');
    expect(backwards.res.status).toBe(400);
  });
});

describe('bun run evidence:verify', () => {
  test('passes an untouched package and reports each kind of tampering', async () => {
    const { control, second } = await scenario();
    const { bytes } = await download(`controlId=${control}`);
    const original = await unzip(bytes);
    const fileName = `files/${second}/report.txt`;

    const altered = new Map(original);
    altered.set(fileName, new TextEncoder().encode('all disks encrypted?'));
    expect((await checkPackage(bytesSource(await rezip(altered)))).problems).toEqual([
      expect.stringMatching(new RegExp(`^${fileName}: 20 bytes, the manifest says 19$`)),
      expect.stringMatching(new RegExp(`^${fileName}: SHA-256 [0-9a-f]{64}, the manifest says ${sha256('all disks encrypted')}$`)),
    ]);

    const added = new Map(original);
    added.set('files/extra.pdf', new TextEncoder().encode('%PDF planted'));
    expect((await checkPackage(bytesSource(await rezip(added)))).problems).toEqual(['files/extra.pdf: in the zip but not listed in the manifest']);

    const removed = new Map(original);
    removed.delete(fileName);
    expect((await checkPackage(bytesSource(await rezip(removed)))).problems).toEqual([`${fileName}: listed in the manifest but missing from the zip`]);

    // Altering a file and its manifest entry together breaks the digest the export's Audit Log entry seals.
    const forged = new Map(original);
    const forgedBytes = new TextEncoder().encode('forged');
    forged.set(fileName, forgedBytes);
    const manifest = JSON.parse(new TextDecoder().decode(original.get('manifest.json'))) as PackageManifest;
    const entry = manifest.files.find((f) => f.path === fileName)!;
    Object.assign(entry, { sha256: sha256(forgedBytes), size: forgedBytes.length });
    forged.set('manifest.json', new TextEncoder().encode(JSON.stringify(manifest)));
    expect((await checkPackage(bytesSource(await rezip(forged)))).problems).toEqual([
      'manifest.json: the file list does not match its digest (files were added, removed or changed in the manifest)',
    ]);

    const folder = mkdtempSync(join(tmpdir(), 'grc-package-'));
    writeFileSync(join(folder, 'good.zip'), bytes);
    writeFileSync(join(folder, 'bad.zip'), await rezip(altered));
    const run = (file: string) => Bun.spawnSync(['bun', 'run', 'evidence:verify', join(folder, file)], { cwd: `${import.meta.dir}/../..`, env: { ...process.env, PATH: `${import.meta.dir}/../../node_modules/.bin:${process.env.PATH}` } });
    const good = run('good.zip');
    expect(good.exitCode, good.stderr.toString()).toBe(0);
    expect(good.stdout.toString()).toContain('OK: 3 file(s) match the manifest; nothing added or missing.');
    expect(good.stdout.toString()).toContain(`Audit Log checkpoint: entry ${manifest.auditCheckpoint.seq}`);
    const bad = run('bad.zip');
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout.toString()).toContain(`FAIL ${fileName}: SHA-256`);
    writeFileSync(join(folder, 'not.zip'), 'not a zip at all');
    const notZip = run('not.zip');
    expect(notZip.exitCode).toBe(1);
    expect(notZip.stdout.toString()).toContain('FAIL not a zip archive');
  });

  test('reads a package re-zipped with compression by the zip command, folders and all', async () => {
    const { control } = await scenario();
    const { bytes } = await download(`controlId=${control}`);
    const folder = mkdtempSync(join(tmpdir(), 'grc-rezip-'));
    const original = await unzip(bytes);
    for (const [name, content] of original) {
      const path = join(folder, 'unpacked', name);
      await Bun.write(path, content);
    }
    const zipped = Bun.spawnSync(['zip', '-qr', '-9', join(folder, 'again.zip'), '.'], { cwd: join(folder, 'unpacked') });
    if (zipped.exitCode !== 0) throw new Error(`zip failed: ${zipped.stderr}`);
    const again = new Uint8Array(await Bun.file(join(folder, 'again.zip')).arrayBuffer());
    expect((await checkPackage(bytesSource(again))).problems).toEqual([]);
  });
});
