import { hashAuditEntry } from '../../platform/audit/audit';
import { entryStream, listZip, ZipFormatError, type ZipListing, type ZipSource } from '../../platform/storage/zip';
import { filesDigest, PACKAGE_FORMAT, type PackageManifest } from './package';
import { chunksOf } from '../../platform/core/streams';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** A manifest larger than this is refused unread: an export's manifest of 10,000 files is well under 10 MB. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** The parts of a manifest the check reads, with their types: anything else in a hostile file is refused, never thrown on. */
const CheckedManifest = Type.Object({
  format: Type.Literal(PACKAGE_FORMAT),
  version: Type.Literal(1),
  filesDigest: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer({ minimum: 0 }), sha256: Type.String() })),
  storeProblems: Type.Optional(Type.Array(Type.Object({ path: Type.String(), recordedSize: Type.Integer(), storedSize: Type.Integer() }))),
  auditCheckpoint: Type.Optional(Type.Object({ seq: Type.Integer(), hash: Type.String(), at: Type.String(), details: Type.Optional(Type.Unknown()) })),
});

/**
 * Text safe to print on a terminal: control characters (escape sequences), bidirectional overrides and invisible
 * characters a hostile archive can put in its file names are shown as \u{…} instead of acting on the reader's screen.
 */
export const printable = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

/** The manifest's text, read up to MAX_MANIFEST_BYTES (a deflated manifest can claim and inflate to gigabytes). */
async function manifestText(source: ZipSource, entry: ZipListing): Promise<string> {
  if (entry.size > MAX_MANIFEST_BYTES) throw new ZipFormatError(`larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MB`);
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksOf(await entryStream(source, entry))) {
    size += chunk.byteLength;
    if (size > MAX_MANIFEST_BYTES) throw new ZipFormatError(`larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MB`);
    parts.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}

/** What an offline check of an auditor package found: every problem, and the checkpoint to compare with the service. */
export interface PackageCheck {
  problems: string[];
  filesChecked: number;
  checkpoint: { seq: number; hash: string; at: string } | null;
}

async function digestOf(source: ZipSource, entry: ZipListing): Promise<{ sha256: string; size: number; crc32: number }> {
  const sha = new Bun.CryptoHasher('sha256');
  let size = 0;
  let crc = 0;
  for await (const chunk of chunksOf(await entryStream(source, entry))) {
    sha.update(chunk);
    crc = Bun.hash.crc32(chunk, crc);
    size += chunk.byteLength;
  }
  return { sha256: sha.digest('hex'), size, crc32: crc >>> 0 };
}

/**
 * Checks a package without the service: the manifest is there and well formed; every file it lists is in the zip
 * with its size and SHA-256; nothing is in the zip that the manifest does not list; the manifest's file list matches
 * the digest its Audit Log entry seals, and that entry's hash is its own.
 */
export async function checkPackage(source: ZipSource): Promise<PackageCheck> {
  const check = await checkEntries(source);
  const checkpoint = check.checkpoint && { seq: check.checkpoint.seq, hash: printable(check.checkpoint.hash), at: printable(check.checkpoint.at) };
  return { ...check, problems: check.problems.map(printable), checkpoint };
}

async function checkEntries(source: ZipSource): Promise<PackageCheck> {
  const problems: string[] = [];
  let entries: ZipListing[];
  try {
    entries = await listZip(source);
  } catch (error) {
    if (error instanceof ZipFormatError) return { problems: [error.message], filesChecked: 0, checkpoint: null };
    throw error;
  }
  const byName = new Map<string, ZipListing>();
  for (const entry of entries) {
    if (byName.has(entry.name)) problems.push(`${entry.name}: appears more than once in the zip`);
    byName.set(entry.name, entry);
  }
  const manifestEntry = byName.get('manifest.json');
  if (!manifestEntry) return { problems: [...problems, 'manifest.json: missing'], filesChecked: 0, checkpoint: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await manifestText(source, manifestEntry));
  } catch (error) {
    return { problems: [...problems, `manifest.json: not readable JSON (${(error as Error).message})`], filesChecked: 0, checkpoint: null };
  }
  if (!Value.Check(CheckedManifest, parsed)) {
    const [first] = Value.Errors(CheckedManifest, parsed);
    const where = first ? ` (${first.path || '/'}: ${first.message})` : '';
    return { problems: [...problems, `manifest.json: not a ${PACKAGE_FORMAT} version 1 manifest${where}`], filesChecked: 0, checkpoint: null };
  }
  const manifest = parsed as PackageManifest;
  const checkpoint = manifest.auditCheckpoint;
  if (!checkpoint || typeof checkpoint.hash !== 'string') problems.push('manifest.json: the Audit Log checkpoint is missing');
  else {
    const { hash, ...unhashed } = checkpoint;
    if (hashAuditEntry(unhashed) !== hash) problems.push(`manifest.json: the Audit Log entry ${checkpoint.seq} does not hash to its recorded hash`);
    if (checkpoint.details?.filesDigest !== manifest.filesDigest) problems.push('manifest.json: the file list digest differs from the one the Audit Log entry seals');
  }
  if (filesDigest(manifest.files) !== manifest.filesDigest) problems.push('manifest.json: the file list does not match its digest (files were added, removed or changed in the manifest)');
  for (const stored of manifest.storeProblems ?? []) {
    problems.push(`${stored.path}: when exported, the stored file had ${stored.storedSize} bytes, not the ${stored.recordedSize} recorded`);
  }
  const listed = new Set<string>();
  let filesChecked = 0;
  for (const file of manifest.files) {
    listed.add(file.path);
    const entry = byName.get(file.path);
    if (!entry) {
      problems.push(`${file.path}: listed in the manifest but missing from the zip`);
      continue;
    }
    try {
      const found = await digestOf(source, entry);
      filesChecked += 1;
      if (found.size !== file.size) problems.push(`${file.path}: ${found.size} bytes, the manifest says ${file.size}`);
      if (found.sha256 !== file.sha256) problems.push(`${file.path}: SHA-256 ${found.sha256}, the manifest says ${file.sha256}`);
      else if (found.crc32 !== entry.crc32) problems.push(`${file.path}: the zip entry's CRC-32 does not match its bytes`);
    } catch (error) {
      problems.push(`${file.path}: unreadable (${(error as Error).message})`);
    }
  }
  for (const [name, entry] of byName) {
    // A package unpacked and zipped again carries folder entries: they hold nothing.
    const folder = name.endsWith('/') && entry.size === 0;
    if (name !== 'manifest.json' && !folder && !listed.has(name)) problems.push(`${name}: in the zip but not listed in the manifest`);
  }
  return { problems, filesChecked, checkpoint: checkpoint ? { seq: checkpoint.seq, hash: checkpoint.hash, at: checkpoint.at } : null };
}
