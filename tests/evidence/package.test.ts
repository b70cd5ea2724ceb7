import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { evidenceFiles } from '../../db/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser } from '../helpers/factories';
import { checkPackage, MAX_MANIFEST_BYTES } from '../../src/modules/evidence/package-verify';
import { filesDigest, PACKAGE_FORMAT, type PackageManifest } from '../../src/modules/evidence/package';
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

  test('names stored before the name rules are neutralised in package paths: no entry leaves its folder or reads as another', async () => {
    const id = await api.created('/api/v1/evidence', { title: 'Legacy names', collectedOn: '2026-03-01' });
    const legacy = ['CON', 'C:evil.txt', 'invoice\u202Efdp.exe', '..\u2215..\u2215x', 'nul.txt.', 'fine.txt'];
    for (const [i] of legacy.entries()) await api.upload(id, `file${i}.txt`, `content ${i}`);
    for (const [i, name] of legacy.entries()) await env.ctx.db.update(evidenceFiles).set({ name }).where(and(eq(evidenceFiles.evidenceId, id), eq(evidenceFiles.name, `file${i}.txt`)));
    const { res, bytes } = await download(`evidenceId=${id}`);
    expect(res.status).toBe(200);
    const entries = await unzip(bytes);
    const paths = [...entries.keys()].filter((p) => p.startsWith('files/')).map((p) => p.slice(`files/${id}/`.length)).sort();
    expect(paths).toEqual(['C_evil.txt', '_CON', '_nul.txt', '.._.._x', 'fine.txt', 'invoice_fdp.exe'].sort());
    const manifest = JSON.parse(new TextDecoder().decode(entries.get('manifest.json')!)) as PackageManifest;
    expect(manifest.files.map((f) => f.name).sort()).toEqual([...legacy].sort());
  });

  test('an id that is not a UUID is a 400 naming the parameter, one id or a list of them', async () => {
    for (const [query, field] of [['evidenceId=abc', 'evidenceId'], ['controlId=1', 'controlId'], ['analysisId=x', 'analysisId'], ['packageId=abc', 'packageId'],
      [`evidenceId=${crypto.randomUUID()}&evidenceId=zz`, 'evidenceId']]) {
      const { res } = await download(query);
      expect(res.status, query).toBe(400);
      expect(await errorOf(res), query).toStartWith(`${field}: expected`);
    }
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

/** A zip made by the zip command (deflated, as an attacker's would be) of `files`, name → content. */
function deflatedZip(files: Record<string, string | Uint8Array>): Uint8Array {
  const folder = mkdtempSync(join(tmpdir(), 'grc-hostile-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
  const zipped = Bun.spawnSync(['zip', '-q', '-9', 'out.zip', ...Object.keys(files)], { cwd: folder });
  if (zipped.exitCode !== 0) throw new Error(`zip failed: ${zipped.stderr}`);
  return new Uint8Array(readFileSync(join(folder, 'out.zip')));
}

/** The archive with `name`'s uncompressed size rewritten to `size` in its local and central headers: a lying entry. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const bytes = zip.slice();
  const view = new DataView(bytes.buffer);
  const nameAt = (at: number, length: number) => new TextDecoder().decode(bytes.subarray(at, at + length));
  for (let at = 0; at + 46 < bytes.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50 && nameAt(at + 30, view.getUint16(at + 26, true)) === name) view.setUint32(at + 22, size, true);
    if (signature === 0x02014b50 && nameAt(at + 46, view.getUint16(at + 28, true)) === name) view.setUint32(at + 24, size, true);
  }
  return bytes;
}

describe('a hostile package', () => {
  test('a manifest over 64 MB is refused unread, and one inflating past the size it declares is cut off there', async () => {
    const huge = deflatedZip({ 'manifest.json': ' '.repeat(MAX_MANIFEST_BYTES + 1) });
    expect((await checkPackage(bytesSource(huge))).problems).toEqual(['manifest.json: not readable JSON (larger than 64 MB)']);
    const lying = declareSize(deflatedZip({ 'manifest.json': `${' '.repeat(1_000_000)}{}` }), 'manifest.json', 100);
    expect((await checkPackage(bytesSource(lying))).problems).toEqual([
      'manifest.json: not readable JSON (manifest.json: inflates to more than the 100 bytes its entry declares)',
    ]);
  });

  test('a file inflating past the size its entry declares is reported, not read to its end', async () => {
    const { control } = await scenario();
    const original = await unzip((await download(`controlId=${control}`)).bytes);
    const manifest = JSON.parse(new TextDecoder().decode(original.get('manifest.json'))) as PackageManifest;
    const [listed] = manifest.files;
    const folder = mkdtempSync(join(tmpdir(), 'grc-bomb-'));
    for (const [name, content] of original) await Bun.write(join(folder, name), name === listed.path ? new Uint8Array(50_000_000) : content);
    const zipped = Bun.spawnSync(['zip', '-qr', '-9', join(folder, 'bomb.zip'), 'manifest.json', 'files'], { cwd: folder });
    if (zipped.exitCode !== 0) throw new Error(`zip failed: ${zipped.stderr}`);
    const bomb = declareSize(new Uint8Array(readFileSync(join(folder, 'bomb.zip'))), listed.path, listed.size);
    expect((await checkPackage(bytesSource(bomb))).problems).toEqual([
      `${listed.path}: unreadable (${listed.path}: inflates to more than the ${listed.size} bytes its entry declares)`,
    ]);
  });

  test('a manifest of the wrong shape is refused naming where, never thrown on', async () => {
    const base = { format: PACKAGE_FORMAT, version: 1, filesDigest: 'x', files: [] as unknown[] };
    const check = async (manifest: unknown) => (await checkPackage(bytesSource(deflatedZip({ 'manifest.json': JSON.stringify(manifest) })))).problems;
    expect(await check({ ...base, files: [42] })).toEqual([expect.stringMatching(new RegExp(`^manifest.json: not a ${PACKAGE_FORMAT} version 1 manifest \\(/files/0: `))]);
    expect(await check({ ...base, files: [{ path: 'a', size: -1, sha256: 'x' }] })).toEqual([expect.stringContaining('(/files/0/size: ')]);
    expect(await check({ ...base, auditCheckpoint: 'yes' })).toEqual([expect.stringContaining('(/auditCheckpoint: ')]);
    expect(await check(null)).toEqual([expect.stringContaining(`not a ${PACKAGE_FORMAT} version 1 manifest`)]);
  });

  test('names carrying terminal escape codes or direction overrides are printed escaped, and the command says so', async () => {
    const manifest = { format: PACKAGE_FORMAT, version: 1, filesDigest: filesDigest([]), files: [] };
    const hostileName = 'files/\u001b[2J\u202etxt.exe';
    const zip = await rezip(new Map([['manifest.json', new TextEncoder().encode(JSON.stringify(manifest))], [hostileName, new Uint8Array([1])]]));
    const { problems } = await checkPackage(bytesSource(zip));
    expect(problems).toContain('files/\\u{1b}[2J\\u{202e}txt.exe: in the zip but not listed in the manifest');
    expect(problems.join('\n')).not.toMatch(/[\u001b\u202e]/u);

    const folder = mkdtempSync(join(tmpdir(), 'grc-escape-'));
    writeFileSync(join(folder, 'escape.zip'), zip);
    const run = (path: string) => Bun.spawnSync(['bun', 'run', 'evidence:verify', path], { cwd: `${import.meta.dir}/../..`, env: { ...process.env, PATH: `${import.meta.dir}/../../node_modules/.bin:${process.env.PATH}` } });
    const escaped = run(join(folder, 'escape.zip'));
    expect(escaped.exitCode).toBe(1);
    expect(escaped.stdout.toString()).not.toContain('\u001b');
    const notAFile = run(folder);
    expect(notAFile.exitCode).toBe(2);
    expect(notAFile.stderr.toString()).toContain(`Could not check ${folder}: `);
    expect(notAFile.stderr.toString()).not.toContain('    at ');
  });
});
