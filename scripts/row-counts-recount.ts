/**
 * `bun run counts:recount`
 *
 * Recounts the registers' list totals (row_counts) from the tables themselves, for when something wrote with the
 * triggers off (docs/decisions.md, "Exact totals from delta counts"). Prints each table whose total was wrong.
 * Exit codes: 0 done; 1 failure; 2 could not start (bad configuration, or the embedded database is held by the
 * running server: stop it first).
 *
 * It opens the database the way the server does (DATABASE_URL, else DATA_DIR) and applies no migrations.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../db/client';
import { DataDirInUseError } from '../db/data-dir-lock';
import { ConfigError, readConfig } from '../src/config';
import { recountRows } from '../src/platform/row-counts';

async function main(): Promise<number> {
  const config = readConfig();
  if (!config.DATABASE_URL && !existsSync(join(config.DATA_DIR, 'pgdata'))) {
    console.error(`No embedded database in ${config.DATA_DIR} (set DATA_DIR, or DATABASE_URL for PostgreSQL).`);
    return 1;
  }
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 1 });
  try {
    const recounts = await database.db.transaction((tx) => recountRows(tx));
    const wrong = recounts.filter((r) => r.counted !== r.rows);
    for (const r of wrong) console.log(`${r.table}: the total was ${r.counted}, the table holds ${r.rows}; corrected`);
    console.log(wrong.length ? `Recounted ${recounts.length} tables; ${wrong.length} corrected.` : `Recounted ${recounts.length} tables; every total was exact.`);
    return 0;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof DataDirInUseError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
