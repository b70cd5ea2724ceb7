/**
 * `npm run test:mutation [-- <target> ...]`: mutation testing of the core, one target (one source file) at a time, each
 * through Stryker's command runner with the target's test files (scripts/mutation-targets.mjs, docs/testing.md).
 * Prints the score of each file and where its surviving mutants are; the full reports are in reports/mutation/.
 */
import { readFileSync } from 'node:fs';
import { targets } from './mutation-targets.mjs';

type Status = 'Killed' | 'Survived' | 'Timeout' | 'NoCoverage' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';
interface Report {
  files: Record<string, {
    mutants: { mutatorName: string; replacement?: string; status: Status; statusReason?: string; location: { start: { line: number; column: number } } }[];
  }>;
}

/**
 * A test run that failed because the database refused a connection says nothing about the mutant: such "kills" are
 * counted apart, so a busy shared server cannot lift a score (run on a PostgreSQL of your own, or on PGlite, and again).
 */
const INFRASTRUCTURE = /too many clients|ECONNREFUSED|ECONNRESET|connection (terminated|ended|closed)|the database system is (starting|shutting) down/i;

// `--report`: print the scores of the reports already in reports/mutation/ without running anything.
const reportOnly = process.argv.includes('--report');
const names = process.argv.slice(2).filter((arg) => arg !== '--report');
for (const name of names) if (!(name in targets)) throw new Error(`unknown target ${name}; targets: ${Object.keys(targets).join(', ')}`);
const chosen = names.length ? names : Object.keys(targets);

const summary: string[] = [];
let failed = false;
for (const name of chosen) {
  const started = Date.now();
  console.log(`\n== ${name}: ${targets[name as keyof typeof targets].file}`);
  const run = reportOnly ? { exitCode: 0 } : Bun.spawnSync(['npx', 'stryker', 'run', 'stryker.config.mjs'], {
    env: { ...process.env, MUTATION_TARGET: name }, stdout: 'inherit', stderr: 'inherit',
  });
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  if (run.exitCode !== 0) {
    failed = true;
    summary.push(`${name}: Stryker failed (exit ${run.exitCode}) after ${minutes} min`);
    continue;
  }
  const report = JSON.parse(readFileSync(`reports/mutation/${name}${process.env.MUTATION_LINES ? '-lines' : ''}.json`, 'utf8')) as Report;
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const doubtful = mutants.filter((m) => m.status === 'Killed' && INFRASTRUCTURE.test(m.statusReason ?? ''));
    const detected = mutants.filter((m) => (m.status === 'Killed' || m.status === 'Timeout') && !doubtful.includes(m)).length;
    const valid = mutants.filter((m) => m.status !== 'CompileError' && m.status !== 'RuntimeError' && m.status !== 'Ignored').length;
    const survivors = mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage');
    const score = valid ? ((100 * detected) / valid).toFixed(1) : 'n/a';
    summary.push(`${file}: ${score}% (${detected} of ${valid} detected, ${minutes} min)`);
    if (doubtful.length) {
      failed = true;
      summary.push(`  ${doubtful.length} more failed on a database connection, not on the mutant: counted as not detected; run again`);
    }
    for (const m of survivors) summary.push(`  survived line ${m.location.start.line}:${m.location.start.column} ${m.mutatorName} ${JSON.stringify(m.replacement ?? '')}`);
  }
}
console.log(`\n== mutation scores\n${summary.join('\n')}`);
process.exit(failed ? 1 : 0);
