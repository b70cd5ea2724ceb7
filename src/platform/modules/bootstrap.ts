import { openDatabase, runMigrations, type Database } from '../../../db/client';
import { applyReferenceData } from './reference-data';
import { ConfigError, type Config } from '../../config';
import { passwordProblem } from '../core/password-policy';
import type { AppContext } from '../http/context';
import { smtpSettings } from '../notifications/settings';
import { createMailer } from '../mail/mail';
import { platformService } from '../http/installed';
import { storageFor } from '../storage/storage';

export interface Booted extends AppContext {
  generatedAdminPassword?: string;
  close(): Promise<void>;
}

/** Opens the database, applies migrations and reference data, creates the first administrator: the same for server, CLI and tests. */
export async function boot(config: Config, options: { memory?: boolean; database?: Database } = {}): Promise<Booted> {
  // The first administrator's password follows the same rules as every password set in the service; refused before
  // anything is opened, as an invalid setting is.
  const weak = config.ADMIN_PASSWORD !== undefined && passwordProblem(config.ADMIN_PASSWORD, { email: config.ADMIN_EMAIL });
  if (weak) throw new ConfigError(`Invalid configuration:\n  ADMIN_PASSWORD: ${weak}`);
  const database = options.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, memory: options.memory }));
  try {
    await runMigrations(database);
    await applyReferenceData(database.db);
    const admin = await platformService('ensureFirstAdministrator')(database.db, config.ADMIN_EMAIL, config.ADMIN_PASSWORD);
    const mailer = createMailer(database.db, config, () => smtpSettings(database.db, config));
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
