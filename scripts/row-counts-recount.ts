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
import { MODULES } from '../src/modules';
import { installModules } from '../src/platform/modules/module';
import { recountRows } from '../src/platform/records/row-counts';
import { openExistingDatabase, runCommand } from './cli';

async function main(): Promise<number> {
  installModules(MODULES);
  const database = await openExistingDatabase();
  if (!database) return 1;
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

runCommand(main);
