import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../../db/client';
import type { Config } from '../../config';
import { evidenceFiles } from '../../../db/schema';
import { runWrite, type AppContext } from '../../platform/http/context';
import { AppError, invalidField, notFound } from '../../platform/core/errors';
import { recordChange, recordChanges } from '../../platform/audit/history';
import { log } from '../../platform/core/log';
import type { Actor } from '../../platform/permissions/permissions';
import { loadForAction } from '../../platform/records/records';
import { sniffContentType, storeHashed, type StoredDigest } from '../../platform/storage/storage';
import type { EvidenceFileView } from './schema';
import { evidenceForUpdate, evidenceKind } from './service';

type FileRow = typeof evidenceFiles.$inferSelect;

/** Characters that change how a name reads without showing: bidirectional overrides, isolates and marks (a right-to-left
 * override turns `invoice‮fdp.exe` into what reads as `invoiceexe.pdf`), and zero-width characters. */
const INVISIBLE = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
/** Characters drawn as a slash or backslash (division and fraction slashes, full-width and mathematical ones). */
const LOOK_ALIKE_SLASHES = /[\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9\u3033\ufe68\uff0f\uff3c]/;
/** Names Windows keeps for devices, with or without an extension (`CON`, `nul.txt`, `COM1`, `LPT¹`). */
const RESERVED_WINDOWS = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** Why a file name is refused, or null: what a download may carry in Content-Disposition and an archive as an entry name. */
export function fileNameProblem(name: string): string | null {
  if (name.trim() === '') return 'must not be blank';
  if ([...name].length > 255) return 'must be at most 255 characters';
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return 'must not contain control characters';
  if (/[/\\]/.test(name)) return 'must not contain path separators (/ or \\)';
  if (LOOK_ALIKE_SLASHES.test(name)) return 'must not contain characters that look like a slash or backslash';
  if (INVISIBLE.test(name)) return 'must not contain invisible characters (direction overrides, zero-width characters)';
  if (/^[A-Za-z]:/.test(name)) return 'must not begin with a drive letter (C:)';
  if (RESERVED_WINDOWS.test(name.trim().replace(/[. ]+$/, ''))) return 'must not be a name Windows reserves for devices (CON, PRN, AUX, NUL, COM1-9, LPT1-9)';
  if (name === '.' || name === '..') return 'must name a file';
  return null;
}

/**
 * The name as an entry of an auditor package: a name stored before these rules (or through a path that did not check
 * them) has whatever would mislead an unzip tool or a Windows desktop replaced by `_`, so no entry can leave its folder
 * or read as something else. The manifest keeps the stored name beside the path.
 */
export function archiveEntryName(name: string): string {
  const replaced = [...name].map((c) => (/[\u0000-\u001f\u007f-\u009f\u2028\u2029/\\:*?"<>|]/.test(c) || INVISIBLE.test(c) || LOOK_ALIKE_SLASHES.test(c) ? '_' : c)).join('');
  const trimmed = replaced.replace(/[. ]+$/, '') || '_';
  return trimmed === '.' || trimmed === '..' || RESERVED_WINDOWS.test(trimmed) ? `_${trimmed}` : trimmed;
}

export const fileView = (row: FileRow): EvidenceFileView => ({
  id: row.id, evidenceId: row.evidenceId, name: row.name, size: row.size, sha256: row.sha256, contentType: row.contentType,
  uploadedBy: row.uploadedBy, createdAt: row.createdAt.toISOString(),
});

/** History and the Audit Log name each file by name and SHA-256. */
const fileFields = (row: FileRow) => ({ fileId: row.id, fileName: row.name, sha256: row.sha256, size: row.size, contentType: row.contentType });

export async function listFiles(db: DbOrTx, actor: Actor, evidenceId: string): Promise<EvidenceFileView[]> {
  await loadForAction(db, evidenceKind, actor, evidenceId, 'read');
  const rows = await db.select().from(evidenceFiles).where(eq(evidenceFiles.evidenceId, evidenceId)).orderBy(asc(evidenceFiles.createdAt), asc(evidenceFiles.name));
  return rows.map(fileView);
}

export const maxFileBytes = (ctx: { config: Pick<Config, 'EVIDENCE_MAX_FILE_MB'> }) => ctx.config.EVIDENCE_MAX_FILE_MB * 1024 * 1024;
export const fileTooLarge = (ctx: { config: Pick<Config, 'EVIDENCE_MAX_FILE_MB'> }) => `file: larger than the ${ctx.config.EVIDENCE_MAX_FILE_MB} MB an evidence file may be`;

/** Bytes streamed into storage under a key of the server's making, with their digest. */
export interface StoredBytes {
  storageKey: string;
  digest: StoredDigest;
}

/** Streams a file into storage while hashing it: 413 past the limit and 400 when empty, leaving nothing stored. */
export async function storeFile(ctx: AppContext, body: ReadableStream<Uint8Array> | null, declaredSize?: number, maxBytes = maxFileBytes(ctx), tooLarge = fileTooLarge(ctx)): Promise<StoredBytes> {
  if (declaredSize !== undefined && declaredSize > maxBytes) throw new AppError('TOO_LARGE', tooLarge);
  if (!body || declaredSize === 0) throw invalidField('file', 'the file is empty');
  const storageKey = crypto.randomUUID();
  return { storageKey, digest: await storeHashed(ctx.storage, storageKey, body, maxBytes, tooLarge) };
}

/** Records stored bytes as a file of the evidence, with its History and Audit Log entries (in the caller's transaction). */
export async function recordStoredFile(tx: DbOrTx, actor: Actor, evidenceId: string, name: string, stored: StoredBytes): Promise<EvidenceFileView> {
  await loadForAction(tx, evidenceKind, actor, evidenceId, 'update');
  const { storageKey, digest } = stored;
  const [row] = await tx.insert(evidenceFiles).values({
    evidenceId, name, storageKey, size: digest.size, sha256: digest.sha256, crc32: digest.crc32, contentType: sniffContentType(digest.head),
    uploadedBy: actor.userId,
  }).returning();
  await recordChange(tx, actor, { module: 'evidence', recordType: 'evidence', recordId: evidenceId, action: 'file.upload', before: null, after: fileFields(row) });
  return fileView(row);
}

/**
 * Records many stored files, each as recordStoredFile does (evidence:update on its evidence, not locked; History and
 * Audit Log entries naming the file and its SHA-256), with one read of the evidence, one INSERT and one recordChanges
 * call for the batch. The whole batch is refused on the first problem.
 */
export async function recordStoredFiles(tx: DbOrTx, actor: Actor, items: readonly { evidenceId: string; name: string; stored: StoredBytes }[]): Promise<EvidenceFileView[]> {
  if (items.length === 0) return [];
  for (const item of items) {
    const problem = fileNameProblem(item.name);
    if (problem) throw invalidField('name', problem);
  }
  await evidenceForUpdate(tx, actor, items.map((i) => i.evidenceId));
  const rows = await tx.insert(evidenceFiles).values(items.map(({ evidenceId, name, stored: { storageKey, digest } }) => ({
    evidenceId, name, storageKey, size: digest.size, sha256: digest.sha256, crc32: digest.crc32, contentType: sniffContentType(digest.head), uploadedBy: actor.userId,
  }))).returning();
  await recordChanges(tx, actor, rows.map((row) => ({ module: 'evidence', recordType: 'evidence', recordId: row.evidenceId, action: 'file.upload', before: null, after: fileFields(row) })));
  return rows.map(fileView);
}

/**
 * Runs `write` (which records the stored bytes) in one transaction; when it fails or is refused, the stored bytes are
 * removed, so no file is ever left without its record.
 */
export async function recordOrDiscard<T>(ctx: AppContext, stored: StoredBytes, write: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await runWrite(ctx, write);
  } catch (error) {
    await ctx.storage.remove(stored.storageKey).catch((cause) => log.error('stored file left after a failed upload', { storageKey: stored.storageKey, error: String(cause) }));
    throw error;
  }
}

/**
 * Stores one file on evidence the actor may update: streamed to storage while hashed (never whole in memory), then
 * recorded with its Audit Log and History entries in one transaction. Refusals come before any byte is stored where
 * they can (name, permission, lock, declared size); a refusal or failure after storing removes the stored bytes.
 */
export async function uploadFile(
  ctx: AppContext, actor: Actor, evidenceId: string, name: string, body: ReadableStream<Uint8Array> | null, declaredSize?: number,
): Promise<EvidenceFileView> {
  const problem = fileNameProblem(name);
  if (problem) throw invalidField('name', problem);
  await loadForAction(ctx.db, evidenceKind, actor, evidenceId, 'update');
  const stored = await storeFile(ctx, body, declaredSize);
  return recordOrDiscard(ctx, stored, (tx) => recordStoredFile(tx, actor, evidenceId, name, stored));
}

export async function loadFile(db: DbOrTx, actor: Actor, evidenceId: string, fileId: string): Promise<FileRow> {
  await loadForAction(db, evidenceKind, actor, evidenceId, 'read');
  const [row] = await db.select().from(evidenceFiles).where(and(eq(evidenceFiles.id, fileId), eq(evidenceFiles.evidenceId, evidenceId)));
  if (!row) throw notFound(`File ${fileId} of evidence ${evidenceId}`);
  return row;
}

/** Removes a file (evidence:update; refused while locked). The stored bytes go after the commit. */
export async function removeFile(ctx: AppContext, actor: Actor, evidenceId: string, fileId: string): Promise<void> {
  const removed = await runWrite(ctx, async (tx) => {
    await loadForAction(tx, evidenceKind, actor, evidenceId, 'update');
    const [row] = await tx.delete(evidenceFiles).where(and(eq(evidenceFiles.id, fileId), eq(evidenceFiles.evidenceId, evidenceId))).returning();
    if (!row) throw notFound(`File ${fileId} of evidence ${evidenceId}`);
    await recordChange(tx, actor, { module: 'evidence', recordType: 'evidence', recordId: evidenceId, action: 'file.remove', before: fileFields(row), after: null });
    return row;
  });
  await ctx.storage.remove(removed.storageKey).catch((error) => log.error('stored file not removed', { storageKey: removed.storageKey, error: String(error) }));
}

/** RFC 6266 / RFC 8187: an ASCII fallback for old clients and the exact UTF-8 name for the rest. */
export function contentDisposition(name: string): string {
  const fallback = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** The byte range a Range header asks for (one range; RFC 9110 14.1.2), 'unsatisfiable', or null for the whole file. */
export function requestedRange(header: string | null, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * The download response: the stored bytes with their SHA-256, the original name, and Range support. A stored file
 * that is gone or no longer has its recorded size is answered 503 rather than sent cut short.
 */
export async function fileResponse(ctx: AppContext, file: FileRow, rangeHeader: string | null): Promise<Response> {
  const storedSize = await ctx.storage.size(file.storageKey);
  if (storedSize !== file.size) {
    throw new AppError('UNAVAILABLE', `The stored bytes of file "${file.name}" are ${storedSize === null ? 'missing' : 'not the size recorded'}; run Verify files and restore it from a backup`);
  }
  const headers: Record<string, string> = {
    'content-type': file.contentType,
    'content-disposition': contentDisposition(file.name),
    'x-content-sha256': file.sha256,
    'accept-ranges': 'bytes',
    etag: `"${file.sha256}"`,
    'cache-control': 'private, no-store',
  };
  const range = requestedRange(rangeHeader, file.size);
  if (range === 'unsatisfiable') {
    const error = `The requested range lies outside the file's ${file.size} bytes`;
    return Response.json({ error }, { status: 416, headers: { ...headers, 'content-type': 'application/json', 'content-range': `bytes */${file.size}` } });
  }
  if (range) {
    return new Response(ctx.storage.read(file.storageKey, range), {
      status: 206,
      headers: { ...headers, 'content-range': `bytes ${range.start}-${range.end}/${file.size}`, 'content-length': String(range.end - range.start + 1) },
    });
  }
  return new Response(ctx.storage.read(file.storageKey), { status: 200, headers: { ...headers, 'content-length': String(file.size) } });
}
