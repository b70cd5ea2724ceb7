import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToken } from '../../src/modules/apiTokens/service';
import { savePolicySettings } from '../../src/modules/policies/settings-service';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { runLoader } from '../../scripts/bundle/run';
import type { Summary } from '../../scripts/bundle/report';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, unique } from '../helpers/factories';

export const ROOT = join(import.meta.dir, '..', '..');
export const SMALL_BUNDLE = join(ROOT, 'docs', 'examples', 'small-bundle.json');

/** The specification's table "Bundle loader token scopes", as token scopes. */
export const LOADER_SCOPES: Permission[] = [
  'risks:read', 'risks:create', 'risks:update',
  'controls:read', 'controls:create', 'controls:update',
  'policies:read', 'policies:create', 'policies:update', 'policies:review',
  'compliance:read', 'compliance:create', 'compliance:update',
  'settings:create', 'settings:update',
];

/** A service of its own (its own database: the loader changes the risk scale) answering on a real local socket. */
export interface Instance {
  env: TestEnv;
  url: string;
  admin: Actor;
  token(scopes?: Permission[], actor?: Actor): Promise<string>;
  allowOutsideApprovals(on: boolean): Promise<void>;
  stop(): void;
}

export async function startInstance(): Promise<Instance> {
  const env = await startTestEnv();
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => env.app.handle(request) });
  const admin = await adminActor(env);
  return {
    env,
    url: `http://127.0.0.1:${server.port}`,
    admin,
    async token(scopes = LOADER_SCOPES, actor = admin) {
      const { secret } = await env.ctx.db.transaction((tx) => createToken(tx, actor, { name: unique('loader'), scopes }));
      return secret;
    },
    async allowOutsideApprovals(on) {
      await env.ctx.db.transaction((tx) => savePolicySettings(tx, admin, { allowOutsideApprovals: on }));
    },
    stop: () => server.stop(true),
  };
}

const dirs: string[] = [];
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'grc-bundle-'));
  dirs.push(dir);
  return dir;
}
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes a bundle (an object, or raw text) to a file of its own and returns the path. */
export function bundleFile(bundle: unknown, name = 'bundle.json'): string {
  const file = join(tempDir(), name);
  writeFileSync(file, typeof bundle === 'string' ? bundle : JSON.stringify(bundle));
  return file;
}

export interface LoadResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The --json summary, when the run printed one. */
  json?: Summary & { error?: string; problems?: { path: string; message: string }[] };
  /** HTTP requests the loader sent (through the counting fetch). */
  requests: { method: string; path: string; body: string }[];
}

/** Runs the loader in-process, as `npm run load -- <args>` would, with GRC_API_TOKEN set to `token` unless null. */
export async function load(args: string[], options: { token?: string | null; terminal?: boolean } = {}): Promise<LoadResult> {
  let stdout = '';
  let stderr = '';
  const requests: LoadResult['requests'] = [];
  const counting = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    requests.push({ method: request.method, path: url.pathname + url.search, body: await request.clone().text() });
    return fetch(input, init);
  }) as typeof fetch;
  const code = await runLoader(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    progressToTerminal: options.terminal ?? false,
    env: options.token === null ? {} : { GRC_API_TOKEN: options.token ?? '' },
    fetch: counting,
  });
  let json: LoadResult['json'];
  if (args.includes('--json')) json = JSON.parse(stdout) as LoadResult['json'];
  return { code, stdout, stderr, json, requests };
}

/**
 * The requests that could write: every one but reads and the scope check's, whose empty body `{}` the API refuses
 * before anything is written (scripts/bundle/scopes.ts).
 */
export const writes = (result: LoadResult) => result.requests.filter((r) => r.method !== 'GET' && r.body !== '{}');

/** A small valid bundle touching every record kind; `tag` makes its refs and package name its own. */
export function baseBundle(tag = '') {
  const c = `${tag}C-1`;
  const p = `${tag}P-1`;
  const r = `${tag}R-1`;
  return {
    format: 'grc-bundle',
    version: 1,
    source: 'tests/bundle',
    classifications: [{ name: 'Operational' }],
    controls: [{ ref: c, name: `${c} Nightly backups`, type: 'technical' }] as Record<string, unknown>[],
    policies: [{ ref: p, title: `${p} Backup policy`, status: 'published', content: '# Backups\n\nEvery night.' }] as Record<string, unknown>[],
    risks: [{
      ref: r, title: `${r} Loss of the ledger`, classification: 'Operational',
      inherentLikelihood: 3, inherentImpact: 4, residualLikelihood: 2, residualImpact: 3,
      residualBasis: 'Nightly backups, restored each quarter.', controls: [c],
    }] as Record<string, unknown>[],
    package: {
      name: `${tag}Test framework`,
      items: [{ code: 'H', name: 'Operations', kind: 'heading' }, { code: 'OP-1', name: 'Backups', parentCode: 'H' }, { code: 'OP-2', name: 'Restores', parentCode: 'H' }],
    } as Record<string, unknown>,
    requirements: [{ code: 'OP-1', status: 'compliant', controls: [c], policies: [p], risks: [r] }] as Record<string, unknown>[],
  };
}
