import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright';

/** The impacts a page may not have (WCAG 2.1 AA rules and axe's best practices, landmarks included). */
const BLOCKING = new Set(['critical', 'serious', 'moderate']);

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe-core over the page as it stands and returns every critical, serious or moderate violation. */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  // Only violations are reported in full: axe then skips building the details of every passing check (much faster).
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).options({ resultTypes: ['violations'] }).analyze();
  return results.violations
    .filter((v) => BLOCKING.has(v.impact ?? ''))
    .map((v) => ({ rule: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}

/** Where screenshots go: `SCREENSHOT_DIR`, else test-results/screens (ignored by git). */
const screenshotDir = process.env.SCREENSHOT_DIR ?? join(import.meta.dir, '..', '..', 'test-results', 'screens');

/** Full-page screenshots of the page at a desktop (1366 px) and a phone (390 px) width, named after the screen. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  const before = page.viewportSize() ?? { width: 1366, height: 900 };
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(screenshotDir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}

/**
 * Opens each address in a fresh tab of `context` and collects what axe finds, by address (addresses without findings
 * left out); every page must also answer 200 and have its header, nav and main landmarks.
 */
export async function auditPages(context: BrowserContext, base: string, paths: readonly string[]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const path of paths) {
    // A fresh tab per page: one tab kept through dozens of axe runs grew until Chromium's renderer gave up.
    const page = await context.newPage();
    const started = Date.now();
    try {
      const res = await page.goto(`${base}${path}`);
      const problems = (await axeViolations(page)).map((v) => `${v.rule} (${v.impact}): ${v.targets.join(' | ')}`);
      if (res?.status() !== 200) problems.push(`answered ${res?.status()}`);
      for (const landmark of ['header', 'nav', 'main']) {
        if ((await page.locator(landmark).count()) === 0) problems.push(`no <${landmark}> landmark`);
      }
      if (problems.length) found[path] = problems;
    } finally {
      await page.close();
    }
    if (process.env.AXE_TIMINGS) console.log(`${path}: ${Date.now() - started} ms`);
  }
  return found;
}
