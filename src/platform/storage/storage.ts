import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../../config';
import { AppError } from '../core/errors';
import { chunksOf } from '../core/streams';

/**
 * Where stored files live (evidence): one small interface, a folder under DATA_DIR by default and S3-compatible object
 * storage (Bun's S3 client) when S3_BUCKET is set. Keys are made by the server, never taken from a file name.
 */
export interface Storage {
  readonly kind: 'local' | 's3';
  /** Stores the chunks under `key`; nothing is left under the key when writing fails. */
  write(key: string, chunks: AsyncIterable<Uint8Array>): Promise<void>;
  /** The stored bytes, or those from `start` to `end` inclusive. */
  read(key: string, range?: { start: number; end: number }): ReadableStream<Uint8Array>;
  /** The stored size in bytes; null when nothing is stored under the key. */
  size(key: string): Promise<number | null>;
  remove(key: string): Promise<void>;
}

/** Keys are the server's own (a UUID per file); anything else is refused so no key can reach outside the store. */
const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a storage key: ${key}`);
  return key;
}

export function localStorage(folder: string): Storage {
  // Two levels of fan-out keep folders small on a store of millions of files.
  const pathOf = (key: string) => join(folder, checkedKey(key).slice(0, 2), key);
  return {
    kind: 'local',
    async write(key, chunks) {
      const path = pathOf(key);
      const partial = `${path}.part`;
      await mkdir(dirname(path), { recursive: true });
      const sink = Bun.file(partial).writer({ highWaterMark: 1024 * 1024 });
      try {
        for await (const chunk of chunks) {
          sink.write(chunk);
          await sink.flush();
        }
        await sink.end();
        await rename(partial, path);
      } catch (error) {
        await Promise.resolve(sink.end()).catch(() => {});
        await rm(partial, { force: true });
        throw error;
      }
    },
    read: (key, range) => {
      const file = Bun.file(pathOf(key));
      return (range ? file.slice(range.start, range.end + 1) : file).stream();
    },
    async size(key) {
      const info = await stat(pathOf(key)).catch(() => null);
      return info?.isFile() ? info.size : null;
    },
    remove: (key) => rm(pathOf(key), { force: true }),
  };
}

export function s3Storage(options: { bucket: string; endpoint?: string; region?: string; accessKeyId?: string; secretAccessKey?: string }): Storage {
  const client = new Bun.S3Client(options);
  return {
    kind: 's3',
    async write(key, chunks) {
      const writer = client.file(checkedKey(key)).writer({ partSize: 8 * 1024 * 1024, retry: 2 });
      try {
        for await (const chunk of chunks) await writer.write(chunk);
        await writer.end();
      } catch (error) {
        // A multipart upload that never completes stores nothing; a completed one is removed.
        await client.delete(key).catch(() => {});
        throw error;
      }
    },
    read: (key, range) => {
      const file = client.file(checkedKey(key));
      return (range ? file.slice(range.start, range.end + 1) : file).stream();
    },
    async size(key) {
      const file = client.file(checkedKey(key));
      if (!(await file.exists())) return null;
      return (await file.stat()).size;
    },
    remove: (key) => client.delete(checkedKey(key)),
  };
}

export function storageFor(config: Pick<Config, 'DATA_DIR' | 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'>): Storage {
  if (!config.S3_BUCKET) return localStorage(join(config.DATA_DIR, 'evidence'));
  return s3Storage({
    bucket: config.S3_BUCKET, endpoint: config.S3_ENDPOINT, region: config.S3_REGION,
    accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY,
  });
}

export interface StoredDigest {
  size: number;
  /** Hex SHA-256 of the stored bytes. */
  sha256: string;
  crc32: number;
  /** The first bytes, for sniffing the type from the content. */
  head: Uint8Array;
}

const HEAD_BYTES = 4096;

/**
 * Streams of large files leave every chunk they pass on as garbage; with a large live heap (the embedded database's)
 * the collector lets it pile up for hundreds of megabytes. A full collection every 32 MB streamed keeps a
 * process streaming files flat in memory (bench/evidence.ts measures it).
 */
export function collectEvery(bytes = 32 * 1024 * 1024): (chunk: number) => void {
  let since = 0;
  return (chunk) => {
    since += chunk;
    if (since >= bytes) {
      since = 0;
      Bun.gc(true);
    }
  };
}

/**
 * Streams `body` into storage under `key` while hashing it, never holding the whole file: refused with 413 past
 * `maxBytes` and 400 when empty, leaving nothing stored in either case.
 */
export async function storeHashed(storage: Storage, key: string, body: ReadableStream<Uint8Array>, maxBytes: number, tooLarge: string): Promise<StoredDigest> {
  const sha = new Bun.CryptoHasher('sha256');
  let crc = 0;
  let size = 0;
  let head: Uint8Array = new Uint8Array(0);
  const collect = collectEvery();
  async function* hashed(): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunksOf(body)) {
      size += chunk.byteLength;
      collect(chunk.byteLength);
      if (size > maxBytes) throw new AppError('TOO_LARGE', tooLarge);
      sha.update(chunk);
      crc = Bun.hash.crc32(chunk, crc);
      if (head.length < HEAD_BYTES) head = concat(head, chunk.subarray(0, HEAD_BYTES - head.length));
      yield chunk;
    }
    if (size === 0) throw new AppError('INVALID', 'file: the file is empty', [{ field: 'file', message: 'the file is empty' }]);
  }
  await storage.write(key, hashed());
  return { size, sha256: sha.digest('hex'), crc32: crc >>> 0, head };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** SHA-256 and size of what is stored under `key` now (Verify files). */
export async function digestStored(storage: Storage, key: string): Promise<{ size: number; sha256: string }> {
  const sha = new Bun.CryptoHasher('sha256');
  let size = 0;
  const collect = collectEvery();
  for await (const chunk of chunksOf(storage.read(key))) {
    size += chunk.byteLength;
    collect(chunk.byteLength);
    sha.update(chunk);
  }
  return { size, sha256: sha.digest('hex') };
}

/** The media type from the first bytes (never from the name): the common document and image formats, else text or binary. */
export function sniffContentType(head: Uint8Array): string {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  const ascii = (text: string) => starts(...[...text].map((c) => c.charCodeAt(0)));
  if (ascii('%PDF-')) return 'application/pdf';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (ascii('GIF87a') || ascii('GIF89a')) return 'image/gif';
  if (ascii('RIFF') && head[8] === 0x57 && head[9] === 0x45 && head[10] === 0x42 && head[11] === 0x50) return 'image/webp';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'application/zip';
  if (starts(0x1f, 0x8b)) return 'application/gzip';
  if (starts(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) return 'application/x-ole-storage';
  if (looksLikeText(head)) return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the end of the sample is not a reason to call the file binary.
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}
