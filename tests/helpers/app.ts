import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app';
import { readConfig } from '../../src/config';
import { boot, type Booted } from '../../src/platform/modules/bootstrap';
import { createTestDatabaseUrl } from './db';

export const ADMIN_EMAIL = 'admin@test.example';
export const ADMIN_PASSWORD = 'correct horse battery staple';

export interface TestEnv {
  ctx: Booted;
  app: App;
  /** Sends a request through the app in-process (no socket). */
  request(path: string, init?: RequestInit): Promise<Response>;
}

let shared: Promise<TestEnv> | undefined;

/** One booted service per test process, shared by every test file; tests make their own data and never assume an empty database. */
export function testEnv(overrides: Record<string, string> = {}): Promise<TestEnv> {
  shared ??= startTestEnv(overrides);
  return shared;
}

/** A separate service with its own database, for tests that need other settings (SMTP, for example). */
export async function startTestEnv(overrides: Record<string, string> = {}): Promise<TestEnv> {
  const databaseUrl = await createTestDatabaseUrl();
  const config = readConfig({
    ADMIN_EMAIL, ADMIN_PASSWORD, LOG_LEVEL: 'error', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    // In-process requests have no client address, so every test would share one client's refusal limit and folded
    // entries; tests of those (tests/platform/refusals.test.ts) turn them on in a service of their own.
    REFUSAL_WINDOW_SECONDS: '0',
    // Stored files (evidence) go to a folder of this service's own, never the checkout's ./data.
    DATA_DIR: mkdtempSync(join(tmpdir(), 'grc-test-')),
    ...overrides,
  });
  const ctx = await boot(config, { memory: !databaseUrl });
  const app = createApp(ctx);
  closers.push(() => ctx.close());
  return {
    ctx,
    app,
    request: (path, init) => app.handle(new Request(`http://localhost${path}`, init)),
  };
}

const closers: (() => Promise<void>)[] = [];
export async function closeTestEnvs(): Promise<void> {
  for (const close of closers.splice(0)) await close().catch(() => {});
}
