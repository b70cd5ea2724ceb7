import { afterAll } from 'bun:test';
import { closeTestEnvs, testEnv } from './app';
import { dropTestDatabases } from './db';

process.env.LOG_LEVEL ??= 'error';

// Booting (migrations, reference data, first administrator) takes seconds on PGlite; do it once, before any hook timer runs.
// Test files that need no database can skip it (TEST_PRELOAD_BOOT=off): mutation testing runs them once per mutant.
if (process.env.TEST_PRELOAD_BOOT !== 'off') await testEnv();

// DROP DATABASE checkpoints: about a second each on PostgreSQL, more on a busy machine; the 5 s hook default is too short.
afterAll(async () => {
  await closeTestEnvs();
  await dropTestDatabases();
}, 120_000);
