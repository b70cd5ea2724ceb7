import { afterAll } from 'bun:test';
import { closeTestEnvs } from './app';
import { dropTestDatabases } from './db';

process.env.LOG_LEVEL ??= 'error';

afterAll(async () => {
  await closeTestEnvs();
  await dropTestDatabases();
});
