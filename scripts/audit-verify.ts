/**
 * `bun run audit:verify [--since <seq>:<hash>] [--history]`
 *
 * Recomputes the Audit Log hash chain, names the first entry that does not match, prints a checkpoint to keep
 * outside the database and, given an earlier one, proves the log still extends it. With --history it also checks every
 * History entry against the seal (changesSha256) its audit entry carries.
 * Exit codes: 0 verified; 1 mismatch, checkpoint not extended or any other failure; 2 could not start
 * (bad configuration, or the embedded database is held by the running server).
 *
 * It opens the database the way the server does (DATABASE_URL, else DATA_DIR) but applies no migrations and
 * writes nothing: a verifier must not change what it verifies.
 */
import { parseArgs } from 'node:util';
import { parseCheckpoint, verifyAuditLog, type VerifyResult } from '../src/platform/audit/audit-verify';
import { verifyHistorySeals, type SealResult } from '../src/platform/audit/history-seals';
import { openExistingDatabase, runCommand } from './cli';

const USAGE = 'Usage: bun run audit:verify [--since <seq>:<hash>] [--history]';

function report(result: VerifyResult): string[] {
  const lines: string[] = [];
  if (result.firstBad) lines.push(`MISMATCH at entry ${result.firstBad.seq}: ${result.firstBad.reason}`);
  else lines.push(`OK: ${result.count} entries verified`);
  if (result.prunedThrough !== undefined) {
    lines.push(`Entries 1 to ${result.prunedThrough} were pruned; the log starts at entry ${result.prunedThrough + 1}.`);
  }
  lines.push(`Checkpoint: ${result.checkpoint ?? 'none (the log is empty)'}`);
  if (result.firstBad && result.checkpoint) lines.push('(That checkpoint is of a log that failed verification: do not keep it.)');
  if (result.since) {
    lines.push(
      result.since.extended
        ? `Since ${result.since.checkpoint}: extended`
        : `Since ${result.since.checkpoint}: NOT EXTENDED: ${result.since.reason}`,
    );
  }
  return lines;
}

function reportSeals(seals: SealResult): string[] {
  const lines = [seals.firstBad
    ? `HISTORY MISMATCH at audit entry ${seals.firstBad.seq}: ${seals.firstBad.reason}`
    : `History: ${seals.checked} entries match their seals`];
  if (seals.unsealed) lines.push(`History: ${seals.unsealed} entries name no audit entry (not written through a service)`);
  if (seals.beforeLog) lines.push(`History: ${seals.beforeLog} entries belong to pruned audit entries and were not checked`);
  return lines;
}

async function main(): Promise<number> {
  let since: string | undefined;
  let withHistory = false;
  try {
    const { values } = parseArgs({ options: { since: { type: 'string' }, history: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    withHistory = values.history ?? false;
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    since = values.since;
    if (since !== undefined) parseCheckpoint(since); // refuse a mistyped checkpoint before touching the database
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 1;
  }

  const database = await openExistingDatabase();
  if (!database) return 1;
  try {
    const result = await verifyAuditLog(database.db, { since });
    for (const line of report(result)) console.log(line);
    if (!withHistory) return result.ok ? 0 : 1;
    const seals = await verifyHistorySeals(database.db);
    for (const line of reportSeals(seals)) console.log(line);
    return result.ok && seals.ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

runCommand(main);
