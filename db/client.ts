import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { PgDialect, PgTransaction, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { Column, is, SQL, sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import postgres from 'postgres';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as schema from './schema';
import { claimDataDir, releaseDataDir } from './data-dir-lock';
import { guardConnectionLoss } from './connection-loss';

export type Schema = typeof schema;
/** Both drivers expose the same Drizzle API; services only ever see this type. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Plain SQL through the driver, bypassing Drizzle: used by benchmarks for the floor, and by tests. */
  raw<T = Record<string, unknown>>(text: string, params?: unknown[], options?: { prepare?: boolean }): Promise<T[]>;
  close(): Promise<void>;
}

const migrationsFolder = join(import.meta.dir, 'migrations');

export interface OpenOptions {
  databaseUrl?: string;
  dataDir?: string;
  /** An in-memory PGlite (tests, benchmarks): no lock, nothing written to disk. */
  memory?: boolean;
  maxConnections?: number;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.maxConnections ?? 10);
  return openPglite(options.memory ? undefined : (options.dataDir ?? './data'));
}

/**
 * Connections of their own for whole-register reads through a cursor (report and export downloads): a download holds
 * its connection for as long as its client takes to read it, so slow clients take these, never the pool every other
 * request needs. More downloads at once than this wait for one to end.
 */
export const STREAM_CONNECTIONS = 3;

/** The connections a cursor reads through, by the handle the service holds (none under PGlite). */
const streamClients = new WeakMap<object, postgres.Sql>();

/** Where a COPY opens its connection, and the pool that can end it early, by handle. */
const copyTargets = new WeakMap<object, { url: string; pool: postgres.Sql }>();

async function openPostgres(url: string, max: number): Promise<Database> {
  const connect = (connections: number) => guardConnectionLoss(postgres(url, {
    max: connections,
    onnotice: () => {},
    connect_timeout: 10,
    // Reconnect attempts after failed ones wait at most a second (postgres.js grows the wait to 20 s), so the service
    // answers again as soon as PostgreSQL does; until then each request fails fast with 503.
    backoff: (attempts: number) => Math.min(0.05 * 2 ** attempts, 1),
  }));
  const client = connect(max);
  // Opened on first use (postgres.js connects lazily).
  const streams = connect(STREAM_CONNECTIONS);
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  streamClients.set(db, streams);
  copyTargets.set(db, { url, pool: client });
  return {
    db,
    kind: 'postgres',
    raw: async <T>(text: string, params: unknown[] = [], options: { prepare?: boolean } = {}) =>
      (await client.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: options.prepare ?? false })) as unknown as T[],
    close: async () => {
      await Promise.all([client.end({ timeout: 5 }), streams.end({ timeout: 5 })]);
    },
  };
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    claimDataDir(dataDir);
  }
  // pg_trgm ships with PGlite as a loadable extension; the search migration creates it like on PostgreSQL.
  const options = { extensions: { pg_trgm } };
  const client = dataDir ? new PGlite(join(dataDir, 'pgdata'), options) : new PGlite(options);
  await client.waitReady;
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    raw: async <T>(text: string, params: unknown[] = []) => (await client.query<T>(text, params)).rows,
    close: async () => {
      await client.close();
      if (dataDir) releaseDataDir(dataDir);
    },
  };
}

/** Applies the committed migrations; on PostgreSQL under an advisory lock so instances starting together take turns. */
export async function runMigrations(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as never, { migrationsFolder });
    return;
  }
  await database.raw('select pg_advisory_lock(7231001)');
  try {
    await migratePostgres(database.db as never, { migrationsFolder });
  } finally {
    await database.raw('select pg_advisory_unlock(7231001)');
  }
}

/** Rows of a raw Drizzle `execute`, whichever driver answered (postgres.js returns an array, PGlite `{ rows }`). */
export async function selectRows<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

const dialect = new PgDialect();

/**
 * Runs a statement as a prepared statement. postgres.js sends an unprepared statement that has parameters as
 * Parse + Describe, waits a round trip for the parameter types, and only then binds them, sending nothing else
 * meanwhile; a prepared statement is described once per connection, so statements sent one after another (bulk
 * writes) travel together. PGlite runs in this process and treats both alike.
 */
export function executePrepared(db: DbOrTx, query: SQL): Promise<unknown> {
  return db._.session.prepareQuery(dialect.sqlToQuery(query), undefined, 'bulk', false).execute();
}

export { sql };

type FlatField = Column | SQL | SQL.Aliased;
interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

/** A field's decoder as Drizzle's own mapping picks it (an SQL field's `decoder` is set by `.mapWith`, internal in the types). */
const decoderOf = (field: FlatField): Decoder => {
  if (is(field, Column)) return field;
  const expression = is(field, SQL) ? field : (field as SQL.Aliased).sql;
  return (expression as unknown as { decoder: Decoder }).decoder;
};

/**
 * Runs a select of a FLAT field map (`db.select(fields)`, no nested objects) as a prepared statement and maps each row
 * with one decoder per field, chosen once. Drizzle's own mapping re-examines every field of every row, which costs
 * about 1 ms for a 200-row page of twenty fields; list pages are the hot path. The select list is in the order of the
 * map's keys (Drizzle orders a flat selection that way), so values are taken by position.
 */
export function selectFlat<T>(db: DbOrTx, fields: Record<string, FlatField>, query: { getSQL(): SQL }): Promise<T[]> {
  return flatStatement<T>(db, fields, query).execute();
}

/** selectFlat's statement, to keep and run again: values given as `sql.placeholder(name)` are passed to `execute`. */
export function flatStatement<T>(db: DbOrTx, fields: Record<string, FlatField>, query: { getSQL(): SQL }) {
  const toObjects = flatMapper<T>(fields);
  const statement = db._.session.prepareQuery(dialect.sqlToQuery(query.getSQL()), undefined, 'flat', true, toObjects);
  return { execute: (values: Record<string, unknown> = {}) => statement.execute(values) as Promise<T[]> };
}

/** The rows of a flat selection as objects: one decoder per field, chosen once, values taken by position. */
function flatMapper<T>(fields: Record<string, FlatField>): (rows: unknown[][]) => T[] {
  const keys = Object.keys(fields);
  const decoders = keys.map((key) => decoderOf(fields[key]));
  return (rows) => rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i += 1) {
      const value = values[i];
      row[keys[i]] = value === null || value === undefined ? null : decoders[i].mapFromDriverValue(value);
    }
    return row as T;
  });
}

/** A select that can be cut into pages (a Drizzle select builder): built afresh for each page where one is needed. */
export interface PageableSelect {
  getSQL(): SQL;
  limit(limit: number): { offset(offset: number): { getSQL(): SQL } };
}

/**
 * The stream connections of the service's handle (STREAM_CONNECTIONS); none under PGlite, nor in a transaction: its
 * one connection, busy with the cursor, would queue the reader's other statements (names, latest tests) behind it
 * until the cursor ends, which it never would.
 */
function cursorClient(db: DbOrTx): postgres.Sql | undefined {
  if (is(db, PgTransaction)) return undefined;
  return streamClients.get(db);
}

/**
 * Every row of a select of a FLAT field map (as selectFlat maps them), `pageSize` rows at a time, so a reader of a
 * whole register holds one page at a time. On PostgreSQL one statement read through a cursor (postgres.js sends
 * Execute with a row limit on one connection): the register is planned and scanned once, whatever its size, where
 * LIMIT/OFFSET pages would sort and skip ever more rows (quadratic in the register's size). In a transaction, and on
 * PGlite (in this process, no such protocol cursor), each page is the statement with LIMIT and OFFSET.
 */
export async function* streamFlat<T>(db: DbOrTx, fields: Record<string, FlatField>, build: () => PageableSelect, pageSize = 1000): AsyncGenerator<T[]> {
  const toObjects = flatMapper<T>(fields);
  for await (const rows of streamValues(db, build, pageSize)) yield toObjects(rows);
}

/**
 * Every row of a select as the driver reads its values, in the select list's order, `pageSize` rows at a time (as
 * streamFlat reads them, without making objects): for a reader that only writes the values out, such as a report whose
 * cells PostgreSQL computes.
 */
export async function* streamValues(db: DbOrTx, build: () => PageableSelect, pageSize = 1000): AsyncGenerator<unknown[][]> {
  const client = cursorClient(db);
  if (client) {
    const query = dialect.sqlToQuery(build().getSQL());
    yield* readAhead(client.unsafe(query.sql, query.params as postgres.ParameterOrJSON<never>[]).values().cursor(pageSize)[Symbol.asyncIterator]());
    return;
  }
  for (let offset = 0; ; offset += pageSize) {
    const query = dialect.sqlToQuery(build().limit(pageSize).offset(offset).getSQL());
    // Array mode with a mapper that keeps the arrays: without a mapper the driver answers its raw result.
    const rows = (await db._.session.prepareQuery(query, undefined, undefined, true, (values: unknown[][]) => values).execute()) as unknown[][];
    if (rows.length) yield rows;
    if (rows.length < pageSize) return;
  }
}

/**
 * A cursor's pages, each next one asked for as soon as the last arrives: PostgreSQL reads it while the reader writes
 * the last one out, instead of waiting for the reader. A reader that stops early leaves the cursor closed: the page
 * asked for ahead is awaited first, so the driver's close reaches the portal (postgres.js closes it from the page
 * being read; without that wait the connection would wait for ever).
 */
async function* readAhead(pages: AsyncIterator<readonly unknown[][]>): AsyncGenerator<unknown[][]> {
  let ahead: Promise<IteratorResult<readonly unknown[][]>> | undefined = pages.next();
  try {
    for (;;) {
      const asked: Promise<IteratorResult<readonly unknown[][]>> = ahead;
      ahead = undefined;
      const page = await asked;
      if (page.done) return;
      ahead = pages.next();
      yield page.value as unknown[][];
    }
  } finally {
    if (ahead && !(await ahead.catch(() => ({ done: true }))).done) await pages.return?.();
  }
}

/**
 * A select's rows as PostgreSQL writes them as CSV (`COPY (select …) TO STDOUT WITH (FORMAT csv)`: fields quoted
 * when they hold a comma, quote or line break, records ended by LF), the bytes as they arrive; for a download of a
 * whole register, where PostgreSQL writing the text is the floor. Undefined under PGlite (no COPY to a client), in a
 * transaction, and for a statement whose values cannot be written into its text (COPY takes no parameters).
 *
 * Each COPY has a connection of its own, opened for it and closed after (or as soon as its reader stops, its backend
 * ended too): postgres.js 3.4 can leave a connection that ran a COPY paused for good (porsager/postgres#1016),
 * so none goes back to a pool. How many run at once is the caller's to limit.
 */
export function copyCsvOut(db: DbOrTx, query: SQL): AsyncGenerator<Uint8Array> | undefined {
  if (is(db, PgTransaction)) return undefined;
  const target = copyTargets.get(db);
  if (!target) return undefined;
  const text = withValuesWritten(dialect.sqlToQuery(query));
  return text === undefined ? undefined : copyOut(target, `copy (${text}) to stdout with (format csv)`);
}

async function* copyOut({ url, pool }: { url: string; pool: postgres.Sql }, statement: string): AsyncGenerator<Uint8Array> {
  const connection = postgres(url, {
    max: 1, onnotice: () => {}, connect_timeout: 10,
    // The statement's values are written into it as standard strings (withValuesWritten).
    connection: { standard_conforming_strings: 'on' },
  });
  let read = false;
  let backend: number | undefined;
  try {
    [{ backend }] = await connection<{ backend: number }[]>`select pg_backend_pid() as backend`;
    for await (const chunk of await connection.unsafe(statement).readable()) yield chunk as Uint8Array;
    read = true;
  } finally {
    // A reader that stopped early leaves PostgreSQL blocked writing the rest to a socket nobody reads (closing ours only
    // half-closes it): the backend is ended from the pool, which a role may do to its own connections.
    if (!read && backend !== undefined) await pool`select pg_terminate_backend(${backend})`.catch(() => undefined);
    await connection.end({ timeout: 0 });
  }
}

/**
 * A statement's text with each `$n` replaced by its value as a string literal ('…', quotes doubled): untyped, as
 * the parameter it replaces was, so PostgreSQL reads it the same way. Only strings, numbers, booleans, dates and null
 * are written; for anything else (an array, a buffer), and for a text holding an escape string (E'…', whose
 * backslashes would need care), undefined.
 */
export function withValuesWritten(query: { sql: string; params: unknown[] }): string | undefined {
  const literals: string[] = [];
  for (const value of query.params) {
    const literal = literalOf(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  let written = '';
  let from = 0;
  const text = query.sql;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      // A literal or a quoted name: skipped whole (a doubled quote inside stays inside).
      for (i++; i < text.length; i++) {
        if (text[i] === c) {
          if (text[i + 1] === c) i++;
          else break;
        }
      }
    } else if ((c === 'E' || c === 'e') && text[i + 1] === "'" && !/[\w$]/.test(text[i - 1] ?? ' ')) {
      return undefined;
    } else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '')) {
      let end = i + 1;
      while (end < text.length && /[0-9]/.test(text[end])) end++;
      const literal = literals[Number(text.slice(i + 1, end)) - 1];
      if (literal === undefined) return undefined;
      written += text.slice(from, i) + literal;
      from = end;
      i = end - 1;
    }
  }
  return written + text.slice(from);
}

function literalOf(value: unknown): string | undefined {
  let text: string;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'boolean' || typeof value === 'bigint') text = String(value);
  else if (value instanceof Date) text = value.toISOString();
  else return undefined;
  // PostgreSQL text holds no NUL; a value with one could never have matched as a parameter either.
  if (text.includes('\0')) return undefined;
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * A flat field map with every timestamp column read as its ISO-8601 text (`2026-11-22T18:21:13.123Z`, what
 * `Date.toISOString` writes, milliseconds truncated alike), formatted by PostgreSQL: a page then parses no dates in
 * JavaScript only to print them again (~0.7 ms for 200 rows).
 */
export function withIsoTimestamps<F extends Record<string, FlatField>>(fields: F): F {
  const out: Record<string, FlatField> = {};
  for (const [key, field] of Object.entries(fields)) {
    out[key] = is(field, Column) && field.getSQLType().startsWith('timestamp')
      ? sql<string>`to_char(${field} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : field;
  }
  return out as F;
}

/**
 * A statement built once per database handle and reused: `build` returns a Drizzle prepared query whose varying values
 * are `sql.placeholder`s, so a hot path (bearer authentication, every list page) neither rebuilds its SQL text nor
 * re-plans it. Keyed by the handle, so a statement made on the pool is never run inside someone's transaction.
 */
export function preparedOnce<Q>(build: (db: DbOrTx) => Q): (db: DbOrTx) => Q {
  const built = new WeakMap<DbOrTx, Q>();
  return (db) => {
    let statement = built.get(db);
    if (statement === undefined) built.set(db, (statement = build(db)));
    return statement;
  };
}
