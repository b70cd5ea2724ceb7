import { afterAll } from 'bun:test';
import { closeTestEnvs, testEnv } from './app';
import { dropTestDatabases } from './db';

process.env.LOG_LEVEL ??= 'error';

// Booting (migrations, reference data, first administrator) takes seconds on PGlite; do it once, before any hook timer runs.
await testEnv();

afterAll(async () => {
  await closeTestEnvs();
  await dropTestDatabases();
});
