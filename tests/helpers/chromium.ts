import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';

/** The system Chromium; browsers are never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

export const launchChromium = (): Promise<Browser> => chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** A page in a context of its own (axe-core needs one to run its checks across frames), signed in when given an account. */
export async function openPage(browser: Browser, base: string, account?: { email: string; password: string }, width = 1366): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  if (account) {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/sign-in');
  }
  return page;
}
