import { openDatabase, runMigrations, type Database } from '../../db/client';
import { applyReferenceData } from '../../db/reference-data';
import type { Config } from '../config';
import type { AppContext } from './context';
import { createMailer } from './mail';
import { platformService } from './module';
import { storageFor } from './storage';

export interface Booted extends AppContext {
  generatedAdminPassword?: string;
  close(): Promise<void>;
}

/** Opens the database, applies migrations and reference data, creates the first administrator: the same for server, CLI and tests. */
export async function boot(config: Config, options: { memory?: boolean; database?: Database } = {}): Promise<Booted> {
  const database = options.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, memory: options.memory }));
  try {
    await runMigrations(database);
    await applyReferenceData(database.db);
    const admin = await platformService('ensureFirstAdministrator')(database.db, config.ADMIN_EMAIL, config.ADMIN_PASSWORD);
    const mailer = createMailer(database.db, config);
    return {
      database,
      db: database.db,
      config,
      mailer,
      storage: storageFor(config),
      generatedAdminPassword: admin.generatedPassword,
      async close() {
        mailer.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
