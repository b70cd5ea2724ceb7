import { lt, sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { loginAttempts, sessions } from '../../db/schema';
import type { AppContext } from './context';
import { log } from './log';
import { compactRowCounts } from './row-counts';

const SWEEP_LOCK = 7231004;

/**
 * Periodic housekeeping: expired sessions, old login attempts, the list counts' deltas, queued mail. Several instances may run against one
 * PostgreSQL; a transaction-scoped try-lock lets exactly one of them sweep at a time, and nobody waits.
 */
export async function sweepOnce(ctx: AppContext): Promise<boolean> {
  const swept = await ctx.db.transaction(async (tx) => {
    const [{ locked }] = await selectRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as locked`);
    if (!locked) return false;
    await tx.delete(sessions).where(lt(sessions.expiresAt, new Date()));
    await tx.delete(loginAttempts).where(lt(loginAttempts.at, new Date(Date.now() - 7 * 86_400_000)));
    await compactRowCounts(tx);
    return true;
  });
  if (swept) await ctx.mailer.deliverOutbox();
  return swept;
}

export function startBackgroundSweep(ctx: AppContext, everyMs = 60_000) {
  const timer = setInterval(() => {
    sweepOnce(ctx).catch((error) => log.error('sweep failed', { error: String(error) }));
  }, everyMs);
  return { stop: () => clearInterval(timer) };
}
