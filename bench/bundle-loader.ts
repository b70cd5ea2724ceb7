import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateBundle } from '../docs/examples/generate-bundle';
import type { Summary } from '../scripts/bundle/report';
import { createApp } from '../src/app';
import { createToken } from '../src/modules/apiTokens/service';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import type { Permission } from '../src/platform/permissions/permissions';
import { bootBenchService } from './lib';

const SCOPES: Permission[] = [
  'risks:read', 'risks:create', 'risks:update', 'controls:read', 'controls:create', 'controls:update',
  'policies:read', 'policies:create', 'policies:update', 'compliance:read', 'compliance:create', 'compliance:update',
  'settings:create', 'settings:update',
];

const LOADER = join(import.meta.dir, '..', 'scripts', 'load-bundle.ts');

/** The loader as `npm run load` runs it: its own process, talking to the server over loopback HTTP; its --json summary. */
async function load(args: string[], token: string): Promise<{ code: number; summary: Summary; ms: number }> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, LOADER, ...args, '--json'], {
    env: { ...process.env, GRC_API_TOKEN: token }, stdout: 'pipe', stderr: 'pipe',
  });
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const ms = performance.now() - started;
  if (!out.trim()) throw new Error(`the loader printed no summary (exit ${code}): ${err}`);
  return { code, summary: JSON.parse(out) as Summary, ms };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * `--apply` of a generated bundle (1,000 controls, 1,000 policies, 2,000 risks, the 287-requirement NIST package
 * with 1,000 mappings) against a fresh instance, then the same bundle again (everything unchanged): time and HTTP
 * requests of each. Targets from the loader issue: under 60 s and under 15 s on PostgreSQL.
 */
export async function benchBundleLoader(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('loader');
  const dir = mkdtempSync(join(tmpdir(), 'grc-bench-loader-'));
  const figures: Record<string, string> = {};
  try {
    const admin = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'screen');
    const { secret } = await ctx.db.transaction((tx) => createToken(tx, admin, { name: 'bench loader', scopes: SCOPES }));
    const file = join(dir, 'large-bundle.json');
    writeFileSync(file, JSON.stringify(generateBundle({ controls: 1000, policies: 1000, risks: 2000, mappings: 1000, signatories: false })));
    const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
    const url = `http://127.0.0.1:${server.server!.port}`;
    try {
      const first = await load([file, '--url', url, '--apply'], secret);
      if (first.code !== 0) throw new Error(`the first load failed: ${JSON.stringify(first.summary.failures.slice(0, 5))}`);
      const written = Object.values(first.summary.counts).reduce((n, c) => n + c!.create + c!.update, 0);
      figures['--apply of the generated bundle'] = `${seconds(first.ms)} (target < 60 s): ${written.toLocaleString('en')} records written, `
        + `${first.summary.requests.read.toLocaleString('en')} requests to read + ${first.summary.requests.write.toLocaleString('en')} to write`;
      figures['  seconds per kind'] = Object.entries(first.summary.seconds.writeByKind ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
      const again = await load([file, '--url', url, '--apply'], secret);
      const unchanged = Object.values(again.summary.counts).every((c) => c!.create === 0 && c!.update === 0);
      if (again.code !== 0 || !unchanged || again.summary.requests.write !== 0) throw new Error('the re-run was not all unchanged');
      figures['the same bundle again (all unchanged)'] = `${seconds(again.ms)} (target < 15 s): `
        + `${again.summary.requests.read.toLocaleString('en')} requests to read, ${again.summary.requests.write} to write`;
    } finally {
      server.stop(true);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await ctx.dispose();
  }
  return figures;
}
