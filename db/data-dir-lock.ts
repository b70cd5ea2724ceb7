import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The embedded database is owned by one process at a time; a second one must refuse, never wait or share. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid} (probably the running server). ` +
        'Stop that process first, or point DATABASE_URL at PostgreSQL so several processes can share it.',
    );
  }
}

const lockFile = (dataDir: string) => join(dataDir, 'owner.pid');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function claimDataDir(dataDir: string): void {
  const file = lockFile(dataDir);
  if (existsSync(file)) {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) throw new DataDirInUseError(dataDir, pid);
  }
  // 'wx' after removing a stale file: two processes racing here cannot both win.
  rmSync(file, { force: true });
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    throw new DataDirInUseError(dataDir, pid);
  }
}

export function releaseDataDir(dataDir: string): void {
  const file = lockFile(dataDir);
  if (existsSync(file) && readFileSync(file, 'utf8') === String(process.pid)) rmSync(file, { force: true });
}
