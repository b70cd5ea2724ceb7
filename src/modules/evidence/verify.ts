import { and, asc, count, desc, eq, gt, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { evidence, evidenceFiles, evidenceVerifyRuns } from '../../../db/schema';
import { appendAudit } from '../../platform/audit/audit';
import type { AppContext } from '../../platform/http/context';
import { conflict, forbidden, notFound } from '../../platform/core/errors';
import { log } from '../../platform/core/log';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { digestStored } from '../../platform/storage/storage';
import type { VerifyProblem, VerifyRunView } from './schema';

/** A running run whose heartbeat is older than this stopped with its process (a restart, a crash). */
const STALE_AFTER_MS = 2 * 60 * 1000;
const BATCH = 200;
const PARALLEL_READS = 4;

type RunRow = typeof evidenceVerifyRuns.$inferSelect;

const runView = (row: RunRow): VerifyRunView => ({
  id: row.id, status: row.status, startedAt: row.startedAt.toISOString(), finishedAt: row.finishedAt?.toISOString() ?? null,
  total: row.total, checked: row.checked, problems: JSON.parse(row.problems) as VerifyProblem[],
});

/** Verify files covers every stored file and names every evidence record: evidence:read at level all. */
function requireVerifyRight(actor: Actor): void {
  if (levelOf(actor, 'evidence:read') !== 'all') throw forbidden('Verify files reads every evidence file: it needs evidence:read at level all');
}

async function markInterrupted(db: DbOrTx): Promise<void> {
  await db.update(evidenceVerifyRuns).set({ status: 'interrupted', finishedAt: new Date() })
    .where(and(eq(evidenceVerifyRuns.status, 'running'), lt(evidenceVerifyRuns.heartbeatAt, new Date(Date.now() - STALE_AFTER_MS))));
}

/**
 * Starts Verify files in the background and answers at once with the run to poll: one run at a time across every
 * instance (a unique index on the running run), so a second start while one runs is a 409 naming it.
 */
export async function startVerifyRun(ctx: AppContext, actor: Actor): Promise<VerifyRunView> {
  requireVerifyRight(actor);
  await markInterrupted(ctx.db);
  const [{ total }] = await ctx.db.select({ total: count() }).from(evidenceFiles);
  const run = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.insert(evidenceVerifyRuns).values({ startedBy: actor.userId, total }).onConflictDoNothing().returning();
    if (!row) return null;
    await appendAudit(tx, actor, [{ module: 'evidence', action: 'files.verify.start', recordType: 'evidenceVerifyRun', recordId: row.id, details: { files: total } }]);
    return row;
  });
  if (!run) {
    const [running] = await ctx.db.select().from(evidenceVerifyRuns).where(eq(evidenceVerifyRuns.status, 'running'));
    throw conflict(`Verify files is already running (run ${running?.id ?? 'unknown'}, ${running?.checked ?? 0} of ${running?.total ?? 0} files checked)`);
  }
  void verifyAll(ctx, actor, run).catch((error) => log.error('Verify files stopped', { run: run.id, error: String(error) }));
  return runView(run);
}

export async function getVerifyRun(db: DbOrTx, actor: Actor, id: string): Promise<VerifyRunView> {
  requireVerifyRight(actor);
  await markInterrupted(db);
  const [row] = /^[0-9a-f-]{36}$/i.test(id) ? await db.select().from(evidenceVerifyRuns).where(eq(evidenceVerifyRuns.id, id)) : [];
  if (!row) throw notFound(`Verify files run ${id}`);
  return runView(row);
}

export async function latestVerifyRun(db: DbOrTx, actor: Actor): Promise<VerifyRunView | null> {
  requireVerifyRight(actor);
  await markInterrupted(db);
  const [row] = await db.select().from(evidenceVerifyRuns).orderBy(desc(evidenceVerifyRuns.startedAt)).limit(1);
  return row ? runView(row) : null;
}

/** What is wrong with one stored file now, or null: gone, or bytes whose SHA-256 differs from the one recorded. */
async function checkFile(ctx: AppContext, file: { storageKey: string; sha256: string; size: number }): Promise<Pick<VerifyProblem, 'problem' | 'detail'> | null> {
  if ((await ctx.storage.size(file.storageKey)) === null) return { problem: 'missing', detail: 'no stored bytes' };
  try {
    const stored = await digestStored(ctx.storage, file.storageKey);
    if (stored.sha256 === file.sha256 && stored.size === file.size) return null;
    return { problem: 'mismatch', detail: `stored SHA-256 ${stored.sha256} (${stored.size} bytes), recorded ${file.sha256} (${file.size} bytes)` };
  } catch (error) {
    return { problem: 'missing', detail: `unreadable: ${(error as Error).message}` };
  }
}

/** Walks every file in id order, a batch at a time, saving progress (and the heartbeat) after each batch. */
async function verifyAll(ctx: AppContext, actor: Actor, run: RunRow): Promise<void> {
  const problems: VerifyProblem[] = [];
  let checked = 0;
  let after = '';
  for (;;) {
    const files = await ctx.db.select({
      id: evidenceFiles.id, name: evidenceFiles.name, storageKey: evidenceFiles.storageKey, sha256: evidenceFiles.sha256, size: evidenceFiles.size,
      evidenceId: evidence.id, evidenceTitle: evidence.title,
    }).from(evidenceFiles).innerJoin(evidence, eq(evidence.id, evidenceFiles.evidenceId))
      .where(after ? gt(evidenceFiles.id, after) : undefined).orderBy(asc(evidenceFiles.id)).limit(BATCH);
    if (files.length === 0) break;
    for (let i = 0; i < files.length; i += PARALLEL_READS) {
      const slice = files.slice(i, i + PARALLEL_READS);
      const found = await Promise.all(slice.map((file) => checkFile(ctx, file)));
      found.forEach((problem, j) => {
        const file = slice[j];
        if (problem) problems.push({ evidenceId: file.evidenceId, evidenceTitle: file.evidenceTitle, fileId: file.id, fileName: file.name, ...problem });
      });
    }
    checked += files.length;
    after = files[files.length - 1].id;
    await ctx.db.update(evidenceVerifyRuns)
      .set({ checked, heartbeatAt: new Date(), problems: JSON.stringify(problems), total: sql`greatest(${evidenceVerifyRuns.total}, ${checked})` })
      .where(eq(evidenceVerifyRuns.id, run.id));
  }
  await ctx.db.transaction(async (tx) => {
    await tx.update(evidenceVerifyRuns).set({ status: 'finished', finishedAt: new Date(), checked, total: checked, heartbeatAt: new Date(), problems: JSON.stringify(problems) })
      .where(eq(evidenceVerifyRuns.id, run.id));
    await appendAudit(tx, actor, [{
      module: 'evidence', action: 'files.verify.finish', recordType: 'evidenceVerifyRun', recordId: run.id,
      details: { checked, missing: problems.filter((p) => p.problem === 'missing').length, mismatched: problems.filter((p) => p.problem === 'mismatch').length },
    }]);
  });
}

