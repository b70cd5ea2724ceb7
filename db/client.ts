import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { PgDialect, type PgDatabase, type PgQueryResultHKT, type PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as schema from './schema';
import { claimDataDir, releaseDataDir } from './data-dir-lock';

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

async function openPostgres(url: string, max: number): Promise<Database> {
  const client = postgres(url, { max, onnotice: () => {}, connect_timeout: 10 });
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    raw: async <T>(text: string, params: unknown[] = [], options: { prepare?: boolean } = {}) =>
      (await client.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: options.prepare ?? false })) as unknown as T[],
    close: () => client.end({ timeout: 5 }),
  };
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    claimDataDir(dataDir);
  }
  const client = dataDir ? new PGlite(join(dataDir, 'pgdata')) : new PGlite();
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
