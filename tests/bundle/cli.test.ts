import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateBundle } from '../../docs/examples/generate-bundle';
import { BUNDLE_SCHEMA_FILE, bundleSchemaText } from '../../scripts/bundle-schema';
import { validateBundle } from '../../scripts/bundle/validate';
import { baseBundle, bundleFile, removeTempDirs, ROOT, startInstance, type Instance } from './helpers';

/** The command as people run it (`npm run load`, `bun run load`), its published schema, examples and packaging. */

let instance: Instance;
let token: string;
beforeAll(async () => {
  instance = await startInstance();
  token = await instance.token();
});
afterAll(() => {
  instance.stop();
  removeTempDirs();
});

/** Runs a command in the checkout with the token in GRC_API_TOKEN; standard output and error are pipes, not a terminal. */
async function run(command: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(command, {
    cwd: ROOT, stdout: 'pipe', stderr: 'pipe',
    env: { ...process.env, GRC_API_TOKEN: token, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, ...env },
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

describe('the command', () => {
  test('npm run load and bun run load both run scripts/load-bundle.ts (--help)', async () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.load).toBe('bun scripts/load-bundle.ts');
    for (const command of [['bun', 'run', 'load', '--', '--help'], ['npm', 'run', '--silent', 'load', '--', '--help']]) {
      const result = await run(command);
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('Usage:\n  npm run load -- <bundle.json> --url <base_url> [--apply] [--token-file <path>] [--ca-file <path>]');
    }
  });

  test('as its own process, quiet on a pipe: the report on standard output, no progress lines; exit 0', async () => {
    const result = await run(['bun', 'scripts/load-bundle.ts', bundleFile(baseBundle('process-')), '--url', instance.url, '--apply']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Done: every write succeeded.');
    expect(result.stderr).not.toContain('\r');
    expect(result.stderr).not.toContain(token.slice(4));
    expect(result.stdout).not.toContain(token.slice(4));
  });

  test('on a terminal it shows progress per kind', async () => {
    const command = `bun scripts/load-bundle.ts ${bundleFile(baseBundle('terminal-'))} --url ${instance.url} --apply`;
    // `script` runs the command on a pseudo-terminal (util-linux).
    const result = await run(['script', '-qefc', command, '/dev/null']);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('controls: 1 written');
    expect(result.stdout).toContain('mappings: 3 written');
    expect(result.stdout).toContain('\r\x1b[2K');
  });

  test('a usage error exits 2 and says how to get help', async () => {
    const result = await run(['bun', 'scripts/load-bundle.ts', bundleFile(baseBundle())]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('--url <base_url> is required (the instance\'s address)\nRun with --help for the options.\n');
  });
});

describe('what ships with it', () => {
  test('docs/bundle.schema.json is the loader\'s schema as it is now (bun run bundle:schema writes it)', () => {
    expect(readFileSync(BUNDLE_SCHEMA_FILE, 'utf8') === bundleSchemaText(), 'run bun run bundle:schema').toBe(true);
    const schema = JSON.parse(readFileSync(BUNDLE_SCHEMA_FILE, 'utf8')) as { properties: Record<string, { const?: unknown }>; required: string[] };
    expect(schema.properties.format.const).toBe('grc-bundle');
    expect(schema.properties.version.const).toBe(1);
    expect(schema.required).toEqual(['format', 'version']);
    expect(Object.keys(schema.properties)).toEqual(['$schema', 'format', 'version', 'source', 'riskScale', 'package', 'classifications', 'controls', 'policies', 'risks', 'requirements']);
    // Integers are plain JSON integers in the published schema (no numeric strings).
    expect(JSON.stringify(schema)).not.toContain('"format":"integer"');
  });

  test('the generator writes a valid bundle, the same every time', () => {
    const options = { controls: 30, policies: 20, risks: 40, mappings: 60, signatories: true };
    const bundle = generateBundle(options);
    expect(validateBundle(bundle)).toEqual([]);
    expect(JSON.stringify(generateBundle(options))).toBe(JSON.stringify(bundle));
    expect(bundle.package!.items.filter((i) => (i.kind || 'requirement') === 'requirement')).toHaveLength(287);
    const mapped = bundle.requirements!.reduce((n, r) => n + (r.controls?.length ?? 0) + (r.policies?.length ?? 0) + (r.risks?.length ?? 0), 0);
    expect(mapped).toBe(60);
  });

  test('the container image leaves the loader out: the Dockerfile copies only the maintenance commands from scripts/', () => {
    const copies = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n').filter((line) => /^COPY\s/.test(line) && /scripts/.test(line));
    expect(copies.length).toBeGreaterThan(0);
    for (const line of copies) {
      const sources = line.replace(/^COPY\s+(--\S+\s+)*/, '').split(/\s+/).slice(0, -1);
      for (const source of sources) {
        // Single commands, and the demonstration data's own folder (db:demo).
        expect(source, line).toMatch(/^scripts\/([a-z-]+\.ts|demo)$/);
        expect(source, line).not.toMatch(/load-bundle|bundle/);
        expect(existsSync(join(ROOT, source)), `${source} exists`).toBe(true);
      }
    }
  });
});
