import { afterAll, beforeAll } from 'bun:test';
import type { Browser } from 'playwright';
import { testEnv, type TestEnv } from './app';
import { CHROMIUM, chromiumAvailable, launchChromium } from './chromium';

export interface BrowserApp {
  env: TestEnv;
  browser: Browser;
  /** The service's address, `http://127.0.0.1:<port>`. */
  base: string;
}

/**
 * The shared test service listening on a free port and a Chromium to drive it, for one browser test file: started
 * before its tests and stopped after them. The fields are filled in by the time the tests run.
 */
export function useBrowserApp(file: string): BrowserApp {
  if (!chromiumAvailable) console.warn(`e2e/${file}: skipped, ${CHROMIUM} is not installed`);
  const app = {} as BrowserApp;
  beforeAll(async () => {
    if (!chromiumAvailable) return;
    app.env = await testEnv();
    app.env.app.listen(0);
    app.base = `http://127.0.0.1:${app.env.app.server?.port}`;
    app.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    if (!chromiumAvailable) return;
    await app.browser?.close();
    await app.env?.app.stop();
  });
  return app;
}
