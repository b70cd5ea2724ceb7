import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { copyCsvOut, openDatabase, STREAM_CONNECTIONS, withValuesWritten } from '../../db/client';
import { MalformedCsvError, PostgresCsvRewriter, rewritePostgresCsv } from '../../src/platform/csv/postgres-csv';
import { csvLine } from '../../src/platform/csv/write';
import { inTurn, Semaphore } from '../../src/platform/core/semaphore';
import { testEnv } from '../helpers/app';

type Cell = string | number | boolean | null;
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (chunks: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks));

/** A field as PostgreSQL's COPY (FORMAT csv) writes it: quoted when it holds a comma, quote, CR or LF, or is an empty string, or is `\.`. */
function postgresField(value: Cell): string {
  if (value === null) return '';
  const s = String(value);
  return s === '' || s === '\\.' || /[,"\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
const postgresCsv = (rows: Cell[][]) => rows.map((row) => `${row.map(postgresField).join(',')}\n`).join('');
const serviceCsv = (rows: Cell[][]) => rows.map((row) => `${csvLine(row)}\r\n`).join('');

/** The rewriter fed `input` in pieces cut at `cuts`, its output as text. */
function rewritten(input: Uint8Array, cuts: number[] = []): string {
  const rewriter = new PostgresCsvRewriter();
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    const piece = rewriter.write(input.subarray(from, cut));
    if (piece) out.push(piece);
    from = cut;
  }
  const rest = rewriter.end();
  if (rest) out.push(rest);
  return text(out);
}

const TRICKY: Cell[][] = [
  ['plain', 'with, comma', 'semi;colon', 'a "quoted" word', 'two\nlines', 'carriage\rreturn', ''],
  ['=SUM(A1)', '+1', '-2', '@cmd', '\tindented', '\rreturned', '\\.'],
  [null, 'Zürich – ünïcödé 日本', '"', ';', ',', '=a;b', '-"x"'],
  ['', '', null],
];

describe('PostgreSQL\'s CSV rewritten as the service writes CSV (write.ts)', () => {
  test('quotes exactly where write.ts quotes (semicolons too, not empty strings), guards formulas, ends lines with CRLF', () => {
    expect(rewritten(bytes(postgresCsv(TRICKY)))).toBe(serviceCsv(TRICKY));
  });

  test('a chunk may end anywhere: inside a quoted field, between doubled quotes, before a semicolon, mid-character', () => {
    const input = bytes(postgresCsv(TRICKY));
    const expected = serviceCsv(TRICKY);
    for (let cut = 0; cut <= input.length; cut++) expect(rewritten(input, [cut])).toBe(expected);
    // Every byte a chunk of its own.
    expect(rewritten(input, Array.from({ length: input.length }, (_, i) => i))).toBe(expected);
  });

  test('random fields: the same text as csvLine writes from the values', () => {
    const alphabet = ['a', 'b', ' ', ',', ';', '"', '\n', '\r', '\t', '=', '+', '-', '@', 'é', '€', '\\', '.'];
    let seed = 7;
    const random = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
    const rows: Cell[][] = Array.from({ length: 2000 }, () => Array.from({ length: 1 + random(6) }, () =>
      (random(10) === 0 ? null : Array.from({ length: random(6) }, () => alphabet[random(alphabet.length)]).join(''))));
    const input = bytes(postgresCsv(rows));
    expect(rewritten(input, [1, 97, 4096, 65_000])).toBe(serviceCsv(rows));
  });

  test('whole records are handed on in pieces of about 64 KiB, never a record cut in two', () => {
    const rows: Cell[][] = Array.from({ length: 5000 }, (_, i) => [`Risk ${i}`, 'x'.repeat(40), i]);
    const rewriter = new PostgresCsvRewriter();
    const pieces: Uint8Array[] = [];
    for (const line of postgresCsv(rows).split(/(?<=\n)/)) {
      const piece = rewriter.write(bytes(line));
      if (piece) pieces.push(piece);
    }
    pieces.push(rewriter.end()!);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) expect(new TextDecoder().decode(piece)).toEndWith('\r\n');
    expect(text(pieces)).toBe(serviceCsv(rows));
  });

  test('text that is not PostgreSQL\'s CSV is refused, not passed on half-read', () => {
    expect(() => rewritten(bytes('"closed"x,1\n'))).toThrow(MalformedCsvError);
    expect(() => rewritten(bytes('a,b\nc,"open'))).toThrow('the CSV ends inside a record');
  });
});

describe('a statement\'s values written into its text (COPY takes no parameters)', () => {
  test('each $n becomes its value as a string literal, quotes doubled; literals and quoted names keep their own $n', () => {
    expect(withValuesWritten({ sql: `select "$1", '$2 it''s', $1, $2 from t where a = $10`, params: ['x', "it's", 3, 4, 5, 6, 7, 8, 9, true] }))
      .toBe(`select "$1", '$2 it''s', 'x', 'it''s' from t where a = 'true'`);
    expect(withValuesWritten({ sql: 'select $1, $2, $3', params: [null, -2.5, new Date('2026-11-28T06:00:00Z')] }))
      .toBe(`select null, '-2.5', '2026-11-28T06:00:00.000Z'`);
  });

  test('a value it cannot write as text, or an escape string in the statement, leaves the statement unwritten', () => {
    expect(withValuesWritten({ sql: 'select $1', params: [['a', 'b']] })).toBeUndefined();
    expect(withValuesWritten({ sql: 'select $1', params: [Number.NaN] })).toBeUndefined();
    expect(withValuesWritten({ sql: 'select $1', params: ['nul\0'] })).toBeUndefined();
    expect(withValuesWritten({ sql: `select E'\\'', $1`, params: ['x'] })).toBeUndefined();
    expect(withValuesWritten({ sql: 'select $2', params: ['x'] })).toBeUndefined();
  });
});

describe.skipIf(!process.env.DATABASE_URL)('COPY of a select on PostgreSQL, as the service\'s CSV', () => {
  test('the values PostgreSQL writes give the same text as csvLine of the values read through the driver', async () => {
    const env = await testEnv();
    const tricky = ['plain', 'with, comma', 'semi;colon', 'a "quoted" word', 'two\nlines', '=SUM(A1)', '-2', '@cmd', '\tx', '', '\\.', "it's $1", 'Zürich – 日本'];
    const query = sql`select v, length(v), v like '%;%', null::text from unnest(array[${sql.join(tricky.map((t) => sql`${t}::text`), sql`, `)}]) with ordinality as t(v, n) order by n`;
    const copied = copyCsvOut(env.ctx.db, sql`select (v)::text, (length)::text, (semi)::text, (nothing)::text from (${query}) q(v, length, semi, nothing)`);
    expect(copied).toBeDefined();
    const chunks: Uint8Array[] = [];
    for await (const piece of rewritePostgresCsv(copied!)) chunks.push(piece);
    expect(text(chunks)).toBe(serviceCsv(tricky.map((t) => [t, t.length, t.includes(';'), null])));
  });

  test('inside a transaction there is no COPY (its one connection is the transaction\'s): the caller reads through the driver', async () => {
    const env = await testEnv();
    await env.ctx.db.transaction(async (tx) => {
      expect(copyCsvOut(tx, sql`select 1`)).toBeUndefined();
    });
  });

  test('a reader that stops after its first piece ends the COPY and its connection; more downloads than STREAM_CONNECTIONS take turns', async () => {
    const env = await testEnv();
    const database = await openDatabase({ databaseUrl: env.ctx.config.DATABASE_URL!, maxConnections: 1 });
    const tag = `copy-test-${process.pid}`;
    const copies = () => database.raw<{ n: number }>(`select count(*)::int as n from pg_stat_activity where query like 'copy (%' and query like '%${tag}%' and pid <> pg_backend_pid()`);
    const big = sql`select g::text, ${tag}::text from generate_series(1, 2000000) g`;
    try {
      // As the report's CSV takes them (listValuesCsv): a turn of STREAM_CONNECTIONS each.
      const turns = new Semaphore(STREAM_CONNECTIONS, 10);
      const first = async () => {
        const reader = rewritePostgresCsv(inTurn(turns, copyCsvOut(database.db, big)!));
        const piece = await reader.next();
        expect(new TextDecoder().decode(piece.value as Uint8Array)).toStartWith(`1,${tag}\r\n2,${tag}\r\n`);
        return reader;
      };
      // Twice as many readers as turns: the first STREAM_CONNECTIONS read, the others wait for one to stop.
      const readers = await Promise.all(Array.from({ length: STREAM_CONNECTIONS }, first));
      const waiting = first();
      await Bun.sleep(200);
      expect((await copies())[0].n).toBe(STREAM_CONNECTIONS);
      expect(turns.peak).toBe(STREAM_CONNECTIONS);
      await readers[0].return(undefined);
      const late = await waiting;
      for (const reader of [...readers.slice(1), late]) await reader.return(undefined);
      // Every COPY ended with its reader (PostgreSQL sees its connection close).
      for (let i = 0; i < 30 && (await copies())[0].n > 0; i++) await Bun.sleep(100);
      expect((await copies())[0].n).toBe(0);
    } finally {
      await database.close();
    }
  });
});
