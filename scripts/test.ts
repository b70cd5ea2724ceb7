/**
 * `npm test`: the whole suite in TEST_SHARDS shards run side by side (default 2, one per core of the CI machine), each a
 * `bun test --shard=i/N` process of its own, so each keeps its own shared service and database exactly as one serial
 * run does. Each shard's output is printed whole when it ends (never interleaved), then the totals of all shards in
 * Bun's own words (`N pass`, `N fail`). With test files or folders named (`npm test -- tests/platform`), one plain
 * `bun test` runs them.
 */
export {};

const TIMEOUT = ['--timeout', '60000'];
const args = process.argv.slice(2);
const named = args.some((arg) => !arg.startsWith('-'));
const shards = named ? 1 : Math.max(1, Number(process.env.TEST_SHARDS ?? 2) || 1);

if (shards === 1) {
  const run = Bun.spawn([process.execPath, 'test', ...TIMEOUT, ...args], { stdout: 'inherit', stderr: 'inherit' });
  process.exit(await run.exited);
}

interface ShardResult { shard: number; code: number; output: string; seconds: number }

async function runShard(shard: number): Promise<ShardResult> {
  const started = performance.now();
  const run = Bun.spawn([process.execPath, 'test', ...TIMEOUT, `--shard=${shard}/${shards}`, ...args], { stdout: 'pipe', stderr: 'pipe' });
  // Bun writes results to stderr and the tests' own output to stdout: both are kept, in one text per shard.
  const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
  const code = await run.exited;
  return { shard, code, output: `${out}${err}`, seconds: (performance.now() - started) / 1000 };
}

const counted = (output: string, word: string) => Number(output.match(new RegExp(`^\\s*(\\d+) ${word}$`, 'm'))?.[1] ?? 0);

const results = await Promise.all(Array.from({ length: shards }, (_, i) => runShard(i + 1).then((result) => {
  console.log(`\n===== shard ${result.shard}/${shards} (${result.seconds.toFixed(0)} s, exit ${result.code}) =====\n${result.output}`);
  return result;
})));

const failedTests = results.flatMap((r) => r.output.split('\n').filter((line) => line.startsWith('(fail)')));
console.log(`\n===== all ${shards} shards =====`);
if (failedTests.length) console.log(`${failedTests.length} test(s) failed:\n${failedTests.join('\n')}\n`);
console.log(` ${results.reduce((sum, r) => sum + counted(r.output, 'pass'), 0)} pass`);
console.log(` ${results.reduce((sum, r) => sum + counted(r.output, 'skip'), 0)} skip`);
console.log(` ${results.reduce((sum, r) => sum + counted(r.output, 'fail'), 0)} fail`);
console.log(`Shards took ${results.map((r) => `${r.seconds.toFixed(0)} s`).join(', ')}.`);
// A shard that crashed without counting a failure still fails the run.
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
