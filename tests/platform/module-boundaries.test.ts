import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { MODULES } from '../../src/modules';

/**
 * The platform never imports a module: what it needs from one comes through the manifest (src/platform/modules/module.ts).
 * Followed through every file the platform imports (views, db), so a screen component cannot carry a module in.
 */

const ROOT = resolve(import.meta.dir, '../..');
const MODULES_DIR = join(ROOT, 'src/modules');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The project files a file imports (type imports included: they tie the platform to a module just the same). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2];
    if (!specifier.startsWith('.')) continue;
    const base = resolve(dirname(file), specifier);
    const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
    const target = candidates.find((c) => existsSync(c) && statSync(c).isFile());
    if (target) found.push(target);
  }
  return found;
}

describe('module boundaries', () => {
  test('nothing under src/platform imports src/modules, directly or through the files it imports', () => {
    const start = filesUnder(join(ROOT, 'src/platform'));
    const cameFrom = new Map<string, string | null>(start.map((f) => [f, null]));
    const queue = [...start];
    const crossings: string[] = [];
    while (queue.length) {
      const file = queue.shift()!;
      for (const target of importsOf(file)) {
        if (target.startsWith(MODULES_DIR)) {
          const chain = [target, file];
          for (let at = cameFrom.get(file); at; at = cameFrom.get(at)) chain.push(at);
          crossings.push(chain.reverse().map((f) => relative(ROOT, f)).join(' -> '));
        } else if (!cameFrom.has(target)) {
          cameFrom.set(target, file);
          queue.push(target);
        }
      }
    }
    expect(crossings).toEqual([]);
    expect(cameFrom.size).toBeGreaterThan(start.length);
  });

  test('src/app.ts imports no module but the list of them', () => {
    const imports = importsOf(join(ROOT, 'src/app.ts')).filter((f) => f.startsWith(MODULES_DIR));
    expect(imports.map((f) => relative(ROOT, f))).toEqual(['src/modules/index.ts']);
  });

  test('every module folder has a manifest in the one list, and every listed name is its folder', () => {
    const folders = readdirSync(MODULES_DIR).filter((name) => statSync(join(MODULES_DIR, name)).isDirectory()).sort();
    expect(MODULES.map((m) => m.name).sort()).toEqual(folders);
  });
});
