import { createInflateRaw } from 'node:zlib';
import { collectEvery } from './storage';
import { chunksOf } from '../core/streams';

/**
 * Zip archives (APPNOTE 6.3) written as a stream and read from a file without loading it: the auditor package and its
 * offline verifier. Entries are stored (no compression: evidence files are mostly compressed formats already) with
 * their CRC and sizes known up front, so each header goes out before its bytes and memory stays flat. Zip64 records
 * are added only when a size, an offset or the entry count needs them.
 */

export interface ZipEntry {
  name: string;
  size: number;
  crc32: number;
  modified: Date;
  /** The entry's bytes; exactly `size` of them are written (see `onSizeMismatch`). */
  body(): ReadableStream<Uint8Array> | Uint8Array;
}

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const UTF8_NAMES = 0x0800;
const encoder = new TextEncoder();

function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

class Bytes {
  private readonly view: DataView;
  readonly bytes: Uint8Array;
  private at = 0;
  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.view = new DataView(this.bytes.buffer);
  }
  u16(v: number) { this.view.setUint16(this.at, v, true); this.at += 2; return this; }
  u32(v: number) { this.view.setUint32(this.at, v >>> 0, true); this.at += 4; return this; }
  u64(v: number) { this.view.setBigUint64(this.at, BigInt(v), true); this.at += 8; return this; }
  raw(b: Uint8Array) { this.bytes.set(b, this.at); this.at += b.length; return this; }
}

/** The zip64 extended information extra field holding the values that overflowed, in the order the format fixes. */
function zip64Extra(values: number[]): Uint8Array {
  if (values.length === 0) return new Uint8Array(0);
  const extra = new Bytes(4 + 8 * values.length).u16(0x0001).u16(8 * values.length);
  for (const v of values) extra.u64(v);
  return extra.bytes;
}

/**
 * A zip of `entries` as a byte stream. `onSizeMismatch` hears of an entry whose body yielded a different number of
 * bytes than declared: the entry is cut or padded with zeros to its declared size so the archive stays readable, and
 * its recorded CRC no longer matches (every reader, and the verifier, reports it).
 */
export function zipStream(entries: AsyncIterable<ZipEntry>, onSizeMismatch?: (entry: ZipEntry, actual: number) => void): ReadableStream<Uint8Array> {
  const collect = collectEvery();
  async function* archive(): AsyncGenerator<Uint8Array> {
    const central: Uint8Array[] = [];
    let offset = 0;
    let count = 0;
    for await (const entry of entries) {
      const name = encoder.encode(entry.name);
      const { time, date } = dosDateTime(entry.modified);
      const big = entry.size >= MAX32;
      const localExtra = big ? zip64Extra([entry.size, entry.size]) : new Uint8Array(0);
      const header = new Bytes(30 + name.length + localExtra.length)
        .u32(0x04034b50).u16(big ? 45 : 20).u16(UTF8_NAMES).u16(0).u16(time).u16(date)
        .u32(entry.crc32).u32(big ? MAX32 : entry.size).u32(big ? MAX32 : entry.size)
        .u16(name.length).u16(localExtra.length).raw(name).raw(localExtra);
      const headerOffset = offset;
      yield header.bytes;
      offset += header.bytes.length;
      let written = 0;
      const body = entry.body();
      const chunks = body instanceof Uint8Array ? [body] : chunksOf(body);
      for await (const chunk of chunks) {
        collect(chunk.byteLength);
        const room = entry.size - written;
        if (room > 0) yield chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
        written += chunk.byteLength;
      }
      if (written < entry.size) {
        for (let missing = entry.size - written; missing > 0; missing -= 65536) yield new Uint8Array(Math.min(missing, 65536));
      }
      if (written !== entry.size) onSizeMismatch?.(entry, written);
      offset += entry.size;
      count += 1;
      const overflowed = [...(big ? [entry.size, entry.size] : []), ...(headerOffset >= MAX32 ? [headerOffset] : [])];
      const extra = zip64Extra(overflowed);
      central.push(new Bytes(46 + name.length + extra.length)
        .u32(0x02014b50).u16((3 << 8) | 45).u16(overflowed.length ? 45 : 20).u16(UTF8_NAMES).u16(0).u16(time).u16(date)
        .u32(entry.crc32).u32(big ? MAX32 : entry.size).u32(big ? MAX32 : entry.size)
        .u16(name.length).u16(extra.length).u16(0).u16(0).u16(0).u32(0o100644 << 16).u32(Math.min(headerOffset, MAX32))
        .raw(name).raw(extra).bytes);
    }
    const centralOffset = offset;
    let centralSize = 0;
    for (const record of central) {
      yield record;
      centralSize += record.length;
    }
    const needs64 = count >= MAX16 || centralOffset >= MAX32 || centralSize >= MAX32;
    if (needs64) {
      const end64Offset = centralOffset + centralSize;
      yield new Bytes(56).u32(0x06064b50).u64(44).u16((3 << 8) | 45).u16(45).u32(0).u32(0).u64(count).u64(count)
        .u64(centralSize).u64(centralOffset).bytes;
      yield new Bytes(20).u32(0x07064b50).u32(0).u64(end64Offset).u32(1).bytes;
    }
    yield new Bytes(22).u32(0x06054b50).u16(0).u16(0).u16(Math.min(count, MAX16)).u16(Math.min(count, MAX16))
      .u32(Math.min(centralSize, MAX32)).u32(Math.min(centralOffset, MAX32)).u16(0).bytes;
  }
  const source = archive();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await source.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await source.return(undefined);
    },
  });
}

/* ---------- Reading ---------- */

/** Random access to an archive's bytes (a file on disk, or bytes in memory in tests). */
export interface ZipSource {
  size: number;
  read(start: number, end: number): Promise<Uint8Array>;
  stream(start: number, end: number): ReadableStream<Uint8Array>;
}

export const fileSource = (path: string): ZipSource => {
  const file = Bun.file(path);
  return {
    size: file.size,
    read: async (start, end) => new Uint8Array(await file.slice(start, end).arrayBuffer()),
    stream: (start, end) => file.slice(start, end).stream(),
  };
};

export const bytesSource = (bytes: Uint8Array): ZipSource => ({
  size: bytes.length,
  read: async (start, end) => bytes.slice(start, end),
  stream: (start, end) => new Blob([bytes.slice(start, end)]).stream(),
});

export interface ZipListing {
  name: string;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  headerOffset: number;
}

export class ZipFormatError extends Error {}

const le = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The archive's entries from its central directory (zip64 aware); throws ZipFormatError on anything malformed. */
export async function listZip(source: ZipSource): Promise<ZipListing[]> {
  const tailStart = Math.max(0, source.size - (22 + MAX16));
  const tail = await source.read(tailStart, source.size);
  let end = -1;
  for (let i = tail.length - 22; i >= 0; i -= 1) {
    if (tail[i] === 0x50 && tail[i + 1] === 0x4b && tail[i + 2] === 0x05 && tail[i + 3] === 0x06) { end = i; break; }
  }
  if (end < 0) throw new ZipFormatError('not a zip archive: no end of central directory record');
  const eocd = le(tail.subarray(end));
  let count = eocd.getUint16(10, true);
  let centralSize = eocd.getUint32(12, true);
  let centralOffset = eocd.getUint32(16, true);
  if (count === MAX16 || centralSize === MAX32 || centralOffset === MAX32) {
    const locator = le(tail.subarray(end - 20, end));
    if (end < 20 || locator.getUint32(0, true) !== 0x07064b50) throw new ZipFormatError('zip64 end of central directory locator missing');
    const end64 = le(await source.read(Number(locator.getBigUint64(8, true)), Number(locator.getBigUint64(8, true)) + 56));
    if (end64.getUint32(0, true) !== 0x06064b50) throw new ZipFormatError('zip64 end of central directory record missing');
    count = Number(end64.getBigUint64(32, true));
    centralSize = Number(end64.getBigUint64(40, true));
    centralOffset = Number(end64.getBigUint64(48, true));
  }
  if (centralOffset + centralSize > source.size) throw new ZipFormatError('central directory lies outside the file');
  const central = await source.read(centralOffset, centralOffset + centralSize);
  const view = le(central);
  const entries: ZipListing[] = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    if (at + 46 > central.length || view.getUint32(at, true) !== 0x02014b50) throw new ZipFormatError(`central directory entry ${i + 1} is malformed`);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const entry: ZipListing = {
      name: new TextDecoder().decode(central.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      crc32: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      headerOffset: view.getUint32(at + 42, true),
    };
    readZip64Extra(central.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), entry);
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function readZip64Extra(extra: Uint8Array, entry: ZipListing): void {
  const view = le(extra);
  for (let at = 0; at + 4 <= extra.length;) {
    const id = view.getUint16(at, true);
    const length = view.getUint16(at + 2, true);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => { const v = Number(view.getBigUint64(field, true)); field += 8; return v; };
      if (entry.size === MAX32) entry.size = next();
      if (entry.compressedSize === MAX32) entry.compressedSize = next();
      if (entry.headerOffset === MAX32) entry.headerOffset = next();
    }
    at += 4 + length;
  }
}

/** An entry's uncompressed bytes as a stream (stored or deflated entries). */
export async function entryStream(source: ZipSource, entry: ZipListing): Promise<ReadableStream<Uint8Array>> {
  const header = le(await source.read(entry.headerOffset, entry.headerOffset + 30));
  if (header.byteLength < 30 || header.getUint32(0, true) !== 0x04034b50) throw new ZipFormatError(`${entry.name}: local header missing`);
  const start = entry.headerOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  if (start + entry.compressedSize > source.size) throw new ZipFormatError(`${entry.name}: data runs past the end of the file`);
  const raw = source.stream(start, start + entry.compressedSize);
  if (entry.method === 0) return raw;
  if (entry.method !== 8) throw new ZipFormatError(`${entry.name}: compression method ${entry.method} is not supported`);
  const inflate = createInflateRaw();
  void (async () => {
    try {
      for await (const chunk of chunksOf(raw)) {
        if (!inflate.write(chunk)) await new Promise((resolve) => inflate.once('drain', resolve));
      }
      inflate.end();
    } catch (error) {
      inflate.destroy(error as Error);
    }
  })();
  // Pulled chunk by chunk, so a reader that stops or reads slowly holds one chunk, not the whole entry; an entry that
  // inflates past the size its central directory declares (a zip bomb) is cut off there.
  const inflated = inflate[Symbol.asyncIterator]();
  let produced = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await inflated.next();
        if (next.done) return controller.close();
        produced += (next.value as Buffer).byteLength;
        if (produced > entry.size) {
          inflate.destroy();
          return controller.error(new ZipFormatError(`${entry.name}: inflates to more than the ${entry.size} bytes its entry declares`));
        }
        controller.enqueue(new Uint8Array(next.value as Buffer));
      } catch (error) {
        controller.error(new ZipFormatError(`${entry.name}: ${(error as Error).message}`));
      }
    },
    cancel() {
      inflate.destroy();
    },
  });
}
