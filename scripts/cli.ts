import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database } from '../db/client';
import { DataDirInUseError } from '../db/data-dir-lock';
import { ConfigError, readConfig } from '../src/config';

/**
 * The database a maintenance command works on, opened the way the server opens it (DATABASE_URL, else DATA_DIR) but
 * without migrations; null (after saying so) when there is no embedded database, since opening one would create it.
 */
export async function openExistingDatabase(): Promise<Database | null> {
  const config = readConfig();
  if (!config.DATABASE_URL && !existsSync(join(config.DATA_DIR, 'pgdata'))) {
    console.error(`No embedded database in ${config.DATA_DIR} (set DATA_DIR, or DATABASE_URL for PostgreSQL).`);
    return null;
  }
  return openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 1 });
}

/** Runs a command and exits with its code: 2 when it could not start (configuration, or the embedded database is held by the running server), 1 on any other failure. */
export function runCommand(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(error instanceof ConfigError || error instanceof DataDirInUseError ? 2 : 1);
    },
  );
}
