import { lt, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { loginAttempts, sessions } from '../../../db/schema';
import type { AppContext } from '../http/context';
import { log } from '../core/log';
import { summarizeEndedRefusals } from '../http/refusals';
import { compactRowCounts } from '../records/row-counts';
import { claimDueDay, sendDigests } from '../notifications/reminders';
import { makeRuleMails } from '../notifications/rule-mails';
import { installedModules } from './module';
import { sendDueReports } from '../notifications/report-schedules';

export const SWEEP_LOCK = 7231004;
/**
 * An instance sweeps when the last sweep (by any instance) is at least this share of an interval ago: timers fire a
 * little early or late, and with several instances whose timers are out of step, the first to fire after most of an
 * interval sweeps and the others find it done.
 */
const DUE_AFTER_SHARE = 0.9;

/** Claims this interval's sweep: moves `last_run_at` to now if the last sweep is old enough (row locked until commit). */
async function claimSweep(tx: DbOrTx, intervalMs: number): Promise<boolean> {
  const claimed = await selectRows<{ runs: number }>(tx, sql`
    insert into sweep_runs (name, last_run_at, runs) values ('sweep', now(), 1)
    on conflict (name) do update set last_run_at = excluded.last_run_at, runs = sweep_runs.runs + 1
      where sweep_runs.last_run_at <= excluded.last_run_at - ${`${Math.round(intervalMs * DUE_AFTER_SHARE)} milliseconds`}::interval
    returning runs`);
  return claimed.length > 0;
}

/**
 * Periodic housekeeping: expired sessions, old login attempts, summaries of folded refusals, the list counts' deltas,
 * scheduled reports, queued mail. Several instances may run against one PostgreSQL: a transaction-scoped try-lock lets one of them sweep
 * at a time without anyone waiting, and the claim in `sweep_runs` makes that once per interval between them all.
 * Without an interval (a test, an operator's script) it sweeps now unless another instance is sweeping.
 */
export async function sweepOnce(ctx: AppContext, intervalMs = 0): Promise<boolean> {
  const swept = await ctx.db.transaction(async (tx) => {
    const [{ locked }] = await selectRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as locked`);
    if (!locked || !(await claimSweep(tx, intervalMs))) return false;
    await tx.delete(sessions).where(lt(sessions.expiresAt, new Date()));
    await tx.delete(loginAttempts).where(lt(loginAttempts.at, new Date(Date.now() - 7 * 86_400_000)));
    await summarizeEndedRefusals(tx);
    await compactRowCounts(tx);
    for (const module of installedModules()) await module.sweep?.(tx);
    const reminders = await claimDueDay(ctx, tx);
    // Scheduled reports due at the notifications hour: claimed and queued under this lock (docs/reports.md).
    await sendDueReports(ctx, tx);
    return { reminders };
  });
  if (!swept) return false;
  await makeRuleMails(ctx);
  if (swept.reminders) await sendDigests(ctx);
  await ctx.mailer.deliverOutbox();
  return true;
}

export function startBackgroundSweep(ctx: AppContext, everyMs = ctx.config.SWEEP_INTERVAL_SECONDS * 1000) {
  const timer = setInterval(() => {
    sweepOnce(ctx, everyMs).catch((error) => log.error('sweep failed', { error: String(error) }));
  }, everyMs);
  return { stop: () => clearInterval(timer) };
}
