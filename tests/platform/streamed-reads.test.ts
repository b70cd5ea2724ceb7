import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { openDatabase, STREAM_CONNECTIONS, streamValues, type DbOrTx } from '../../db/client';
import { testEnv } from '../helpers/app';

/** The numbers 1..n in order, as a select a reader of a whole register pages through. */
const numbers = (db: DbOrTx, n: number) => () => db.select({ n: sql<number>`g` }).from(sql`generate_series(1, ${n}::int) g`).orderBy(sql`g`);

async function read(pages: AsyncGenerator<unknown[][]>, stopAfter = Infinity): Promise<number[][]> {
  const seen: number[][] = [];
  for await (const page of pages) {
    seen.push(page.map((row) => Number(row[0])));
    if (seen.length >= stopAfter) break;
  }
  return seen;
}

describe('a whole select read a page at a time', () => {
  test('every row once, in order, pageSize rows a page (the last one shorter)', async () => {
    const env = await testEnv();
    const pages = await read(streamValues(env.ctx.db, numbers(env.ctx.db, 25), 10));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  test.skipIf(!process.env.DATABASE_URL)('a reader that stops early (the next page already asked for) leaves its connection free for the next statement', async () => {
    const env = await testEnv();
    // One connection: a cursor left open would keep the next statement waiting until the test's timeout.
    const database = await openDatabase({ databaseUrl: env.ctx.config.DATABASE_URL!, maxConnections: 1 });
    try {
      const first = await read(streamValues(database.db, numbers(database.db, 10_000), 100), 1);
      expect(first).toEqual([Array.from({ length: 100 }, (_, i) => i + 1)]);
      expect(await database.raw<{ ok: number }>('select 1 as ok')).toEqual([{ ok: 1 }]);
      // And a whole read after it, on the same connection.
      expect((await read(streamValues(database.db, numbers(database.db, 250), 100))).flat().length).toBe(250);
    } finally {
      await database.close();
    }
  });

  test.skipIf(!process.env.DATABASE_URL)('readers left half-read (slow downloads) hold connections of their own, never the pool other requests need', async () => {
    const env = await testEnv();
    const database = await openDatabase({ databaseUrl: env.ctx.config.DATABASE_URL!, maxConnections: 1 });
    try {
      // As many readers as there are stream connections, each with its first page read and the rest not yet.
      const readers = Array.from({ length: STREAM_CONNECTIONS }, () => streamValues(database.db, numbers(database.db, 10_000), 100));
      for (const reader of readers) expect(((await reader.next()).value as unknown[][]).length).toBe(100);
      // The pool's one connection still answers.
      expect(await database.raw<{ ok: number }>('select 1 as ok')).toEqual([{ ok: 1 }]);
      for (const reader of readers) await reader.return(undefined);
    } finally {
      await database.close();
    }
  });
});
