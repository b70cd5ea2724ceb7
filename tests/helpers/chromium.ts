import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright';

/** The system Chromium; browsers are never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

export const launchChromium = (): Promise<Browser> => chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
