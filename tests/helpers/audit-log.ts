import { openDatabase, runMigrations, type Database } from '../../db/client';
import { appendAudit } from '../../src/platform/audit/audit';
import { systemActor } from '../../src/platform/permissions/permissions';
import { createTestDatabaseUrl } from './db';

/** A database with migrations only (no service booted), so its Audit Log holds exactly what a test appends. */
export async function bareDatabase(): Promise<Database> {
  const databaseUrl = await createTestDatabaseUrl();
  const database = await openDatabase(databaseUrl ? { databaseUrl } : { memory: true });
  await runMigrations(database);
  return database;
}

/** Appends `count` entries in one transaction; entry i carries `{ step: i }` in its details. */
export async function appendEvents(database: Database, count: number): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => ({ module: 'risks', action: 'update', recordType: 'risk', recordId: `r-${i}`, details: { step: i } }));
  await database.db.transaction((tx) => appendAudit(tx, systemActor('cli'), events));
}
