import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDatabase } from './lib';

const SCRIPT = join(import.meta.dir, '..', 'scripts', 'demo-data.ts');

/**
 * `bun run db:demo -- --size large` as a person runs it (its own process, a new database): 10,000 risks, 5,000
 * controls and 2,000 evidence files. Target from the demo data issue: under 60 s on PostgreSQL. The loader's own
 * time excludes starting the process and migrating the new database; the wall time includes them.
 */
export async function benchDemoData(): Promise<Record<string, string>> {
  const database = await benchDatabase('demo');
  const dataDir = mkdtempSync(join(tmpdir(), 'grc-bench-demo-'));
  try {
    const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'error', DATA_DIR: dataDir, DATABASE_URL: database.url };
    if (!database.url) delete env.DATABASE_URL;
    delete env.ADMIN_PASSWORD;
    const started = performance.now();
    const child = Bun.spawn([process.execPath, SCRIPT, '--size', 'large'], { env, stdout: 'pipe', stderr: 'pipe' });
    const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    const wall = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`db:demo --size large failed (exit ${code}): ${err || out}`);
    const loader = out.match(/^Time: (\S+) s$/m)?.[1] ?? '?';
    const count = (kind: string) => out.match(new RegExp(`^ {2}${kind} +([\\d,]+)$`, 'm'))?.[1] ?? '?';
    return {
      'db:demo --size large': `${loader} s loading (target < 60 s), ${wall.toFixed(1)} s with start and migrations`,
      '  records': `${count('risks')} risks, ${count('controls')} controls, ${count('treatments')} treatments, ${count('evidence files')} evidence files`,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}
