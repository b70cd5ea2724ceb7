/**
 * `bun run evidence:verify <package.zip>`: checks an auditor package offline (docs/evidence.md). Exit status 0 when
 * every check passes, 1 when any fails, 2 for a usage error or a file that cannot be read.
 */
import { existsSync } from 'node:fs';
import { checkPackage } from '../src/modules/evidence/package-verify';
import { fileSource } from '../src/platform/storage/zip';

const path = process.argv[2];
if (!path || path === '--help' || path === '-h') {
  console.log('Usage: bun run evidence:verify <package.zip>\n\nChecks an evidence package exported from the service: every file against the SHA-256 and size in its\nmanifest.json, nothing added or missing, and the manifest against the Audit Log entry that recorded the export.');
  process.exit(path ? 0 : 2);
}
if (!existsSync(path)) {
  console.error(`No such file: ${path}`);
  process.exit(2);
}
const result = await checkPackage(fileSource(path)).catch((error: unknown) => {
  // Not a finding about the package (a folder given, the file unreadable): one line saying so, never a stack.
  console.error(`Could not check ${path}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
});
for (const problem of result.problems) console.log(`FAIL ${problem}`);
if (result.checkpoint) {
  console.log(`Audit Log checkpoint: entry ${result.checkpoint.seq} at ${result.checkpoint.at}, hash ${result.checkpoint.hash}`);
  console.log('  (compare it with the service: Audit Log, or bun run audit:verify on the instance)');
}
console.log(result.problems.length
  ? `${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} found; ${result.filesChecked} file(s) read.`
  : `OK: ${result.filesChecked} file(s) match the manifest; nothing added or missing.`);
process.exit(result.problems.length ? 1 : 0);
