// Mutation testing of the core (docs/testing.md): `npm run test:mutation` runs every target below, one at a time;
// `npm run test:mutation -- audit-verify` runs one. Stryker's command runner starts `bun test` on the target's test
// files for every mutant, so each target names only the fastest test files that guard its source file: first those
// that boot no service, then those that do, each with --bail (a mutant is killed at its first failing test).
import { targets } from './scripts/mutation-targets.mjs';

const name = process.env.MUTATION_TARGET;
const target = targets[name];
if (!target) {
  throw new Error(`MUTATION_TARGET must be one of ${Object.keys(targets).join(', ')}; run it through npm run test:mutation`);
}

const bunTest = (files, env = '') => `${env}bun test --timeout 60000 --bail ${files.join(' ')}`;
const steps = [
  ...(target.unbooted?.length ? [bunTest(target.unbooted, 'TEST_PRELOAD_BOOT=off ')] : []),
  ...(target.booted?.length ? [bunTest(target.booted)] : []),
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'command',
  commandRunner: { command: steps.join(' && ') },
  // The command runner starts a new process per mutant and knows nothing of coverage: every mutant runs the command.
  coverageAnalysis: 'off',
  // MUTATION_LINES=29-34,40-41 mutates only those lines (to run again the mutants a run could not judge).
  mutate: process.env.MUTATION_LINES ? process.env.MUTATION_LINES.split(',').map((lines) => `${target.file}:${lines}`) : [target.file],
  // Two shared cores: one mutant at a time leaves room for the database and for everyone else on the machine.
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  // A mutant that loops (a batch loop that never ends) is killed after this much more than the clean run took.
  timeoutMS: 60_000,
  timeoutFactor: 2,
  // The clean run boots a service on a shared, busy machine: give it time.
  dryRunTimeoutMinutes: 30,
  // The sandbox lives outside the checkout, so `bun test` never finds a second copy of the tests.
  tempDirName: process.env.MUTATION_TMP ?? `/tmp/grc-mutation-${name}`,
  cleanTempDir: true,
  // Anchored at the checkout's root: a bare 'reports' would also leave src/platform/reports out of the sandbox.
  ignorePatterns: ['/data', '/test-results', '/reports'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}${process.env.MUTATION_LINES ? '-lines' : ''}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
};
