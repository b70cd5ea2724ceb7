import { Elysia } from 'elysia';
import { and, eq, lte, sql } from 'drizzle-orm';
import type { Server } from 'bun';
import type { Db, DbOrTx } from '../../../db/client';
import { clientRefusals, refusalWindows } from '../../../db/schema';
import type { Config } from '../../config';
import { appendAudit, type AuditEvent } from '../audit/audit';
import { canonicalJson, sha256Hex } from '../core/canonical-json';
import type { AppContext } from './context';
import { systemActor, type Actor } from '../permissions/permissions';
import { originalRequest } from './screen-limits';

/**
 * Refused requests are audited, but bounded (docs/refusals.md): identical refusals from one client are folded into
 * one Audit Log entry per window plus a summary entry with the count once the window has ended, and a client address
 * with more refused requests in a window than the limit is answered 429 until the window ends. The counts live in
 * PostgreSQL, so several instances share them; each instance also remembers the clients it found over the limit, to
 * answer their next requests without a database round trip.
 */

export const TOO_MANY_REFUSALS = 'Too many refused requests from this address. Try again later.';

/** The client's address: the socket's peer, or behind a trusted reverse proxy the last X-Forwarded-For entry. */
export function clientAddress(request: Request, server: Server<unknown> | null | undefined, config: Pick<Config, 'TRUST_PROXY'>): string {
  if (config.TRUST_PROXY) {
    const last = request.headers.get('x-forwarded-for')?.split(',').pop()?.trim();
    if (last) return last.slice(0, 64);
  }
  return server?.requestIP(originalRequest(request))?.address ?? '';
}

export type RefusalOutcome = { limited: false } | { limited: true; retryAfterSeconds: number };

interface Window {
  start: Date;
  end: Date;
}

/** What a summary entry needs to repeat the refusal it counts. */
interface FoldedEvent {
  actor: Pick<Actor, 'kind' | 'userId' | 'tokenId' | 'via'>;
  event: AuditEvent;
}

const retryAfter = (until: number, now: number) => Math.max(1, Math.ceil((until - now) / 1000));

export class RefusalLimiter {
  /** Clients this instance found over the limit, with the end of that window (ms). */
  private readonly blocked = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'REFUSAL_WINDOW_SECONDS' | 'REFUSALS_PER_CLIENT'> & Partial<Pick<Config, 'REFUSAL_ENTRIES_PER_WINDOW'>>,
  ) {}

  private windowAt(now: number): Window {
    const length = this.config.REFUSAL_WINDOW_SECONDS * 1000;
    const start = Math.floor(now / length) * length;
    return { start: new Date(start), end: new Date(start + length) };
  }

  /** Seconds until a client this instance found over the limit may be answered again, or null. */
  blockedFor(client: string, now = Date.now()): number | null {
    const until = this.blocked.get(client);
    if (until === undefined) return null;
    if (until > now) return retryAfter(until, now);
    this.blocked.delete(client);
    return null;
  }

  private block(client: string, until: number, now: number) {
    // Bounded: entries of ended windows are dropped before the map grows past what one window can fill.
    if (this.blocked.size >= 10_000) for (const [key, end] of this.blocked) if (end <= now) this.blocked.delete(key);
    this.blocked.set(client, until);
  }

  /**
   * Records one refusal of `client`: counts it against the client's limit and, unless that is exceeded, writes the
   * refusal's Audit Log entry if it is the first of its kind in the window (otherwise only its count grows).
   * Returns whether the client is over the limit (the request is then answered 429 instead).
   */
  async record(client: string, actor: Actor, event: AuditEvent, now = Date.now()): Promise<RefusalOutcome> {
    if (this.config.REFUSAL_WINDOW_SECONDS === 0) {
      await this.db.transaction((tx) => appendAudit(tx, actor, [event]));
      return { limited: false };
    }
    const window = this.windowAt(now);
    const limit = this.config.REFUSALS_PER_CLIENT;
    const limited = await this.db.transaction(async (tx) => {
      if (limit > 0) {
        const [{ count }] = await tx.insert(clientRefusals)
          .values({ client, windowStart: window.start, windowEnd: window.end, count: 1 })
          .onConflictDoUpdate({ target: [clientRefusals.client, clientRefusals.windowStart], set: { count: sql`${clientRefusals.count} + 1` } })
          .returning({ count: clientRefusals.count });
        if (count > limit) {
          // The one request that crosses the limit, on whichever instance, records that the client was limited.
          if (count === limit + 1) {
            await appendAudit(tx, systemActor(actor.via), [{
              module: 'security', action: 'refusals.limited',
              details: { client, limit, windowStart: window.start.toISOString(), windowEnd: window.end.toISOString() },
            }]);
          }
          return true;
        }
      }
      if (await overAllClientsBudget(tx, this.config.REFUSAL_ENTRIES_PER_WINDOW ?? 0, actor, window)) {
        await foldRefusal(tx, ALL_CLIENTS, beyondBudgetActor(actor), beyondBudget(event), window);
      } else {
        await foldRefusal(tx, client, actor, event, window);
      }
      return false;
    });
    if (!limited) return { limited: false };
    this.block(client, window.end.getTime(), now);
    return { limited: true, retryAfterSeconds: retryAfter(window.end.getTime(), now) };
  }
}

/** The row counting every client's refusals of a window (no address is written this way). */
const ALL_CLIENTS = '(all addresses)';

/**
 * Counts one refusal against the budget of all clients together and says whether it is over it: a flood from many
 * addresses (400 loopback addresses once wrote 476 entries in 10 s) must not add an entry per address and path. The
 * refusal that crosses the budget records that refusals are being folded.
 */
async function overAllClientsBudget(tx: DbOrTx, budget: number, actor: Actor, window: Window): Promise<boolean> {
  if (budget === 0) return false;
  const [{ count }] = await tx.insert(clientRefusals)
    .values({ client: ALL_CLIENTS, windowStart: window.start, windowEnd: window.end, count: 1 })
    .onConflictDoUpdate({ target: [clientRefusals.client, clientRefusals.windowStart], set: { count: sql`${clientRefusals.count} + 1` } })
    .returning({ count: clientRefusals.count });
  if (count === budget + 1) {
    await appendAudit(tx, systemActor(actor.via), [{
      module: 'security', action: 'refusals.folded',
      details: { budget, windowStart: window.start.toISOString(), windowEnd: window.end.toISOString() },
    }]);
  }
  return count > budget;
}

/**
 * A refusal beyond the budget of all clients, folded with every other of its module and action: its address, path,
 * token and reason are left out (each can be chosen by whoever floods), the summary at the window's end counts them.
 */
const beyondBudget = (event: AuditEvent): AuditEvent => ({
  module: event.module, action: event.action,
  details: { reason: 'refused while the refusals of all addresses were over their budget', client: ALL_CLIENTS },
});
const beyondBudgetActor = (actor: Actor): Actor => systemActor(actor.via);

/** The first identical refusal in the window is an entry; later ones only count, for the summary at the window's end. */
async function foldRefusal(tx: DbOrTx, client: string, actor: Actor, event: AuditEvent, window: Window): Promise<void> {
  const folded: FoldedEvent = {
    actor: { kind: actor.kind, userId: actor.userId, tokenId: actor.tokenId, via: actor.via },
    event: { ...event, details: { ...event.details, client } },
  };
  const fingerprint = sha256Hex(canonicalJson(folded));
  const [{ count }] = await tx.insert(refusalWindows)
    .values({ fingerprint, windowStart: window.start, windowEnd: window.end, count: 1, event: folded })
    .onConflictDoUpdate({ target: [refusalWindows.fingerprint, refusalWindows.windowStart], set: { count: sql`${refusalWindows.count} + 1` } })
    .returning({ count: refusalWindows.count });
  if (count > 1) return;
  const [entry] = await appendAudit(tx, actor, [{
    ...folded.event,
    details: { ...folded.event.details, window: { start: window.start.toISOString(), end: window.end.toISOString() } },
  }]);
  await tx.update(refusalWindows).set({ firstSeq: entry.seq })
    .where(and(eq(refusalWindows.fingerprint, fingerprint), eq(refusalWindows.windowStart, window.start)));
}

/**
 * For every window that has ended: one summary entry (`<action>.repeated`) for each refusal that was repeated in it,
 * with the count and the first entry's seq, then the window's rows go. Runs in the sweep; the rows are deleted and
 * summarised in one transaction, so however many instances sweep, each window is summarised once.
 */
export async function summarizeEndedRefusals(tx: DbOrTx, now = new Date()): Promise<number> {
  await tx.delete(clientRefusals).where(lte(clientRefusals.windowEnd, now));
  const ended = await tx.delete(refusalWindows).where(lte(refusalWindows.windowEnd, now)).returning();
  const repeated = ended.filter((row) => row.count > 1).sort((a, b) => (a.firstSeq ?? 0) - (b.firstSeq ?? 0));
  for (const row of repeated) {
    const { actor, event } = row.event as FoldedEvent;
    await appendAudit(tx, { ...systemActor(actor.via), ...actor, email: null }, [{
      ...event,
      action: `${event.action}.repeated`,
      details: {
        ...event.details,
        count: row.count,
        firstSeq: row.firstSeq,
        window: { start: row.windowStart.toISOString(), end: row.windowEnd.toISOString() },
      },
    }]);
  }
  return repeated.length;
}

const limiters = new WeakMap<AppContext, RefusalLimiter>();

/** The one limiter of an app (its memory of limited clients is shared by the error handler and the request guard). */
export function refusalLimiter(ctx: AppContext): RefusalLimiter {
  let limiter = limiters.get(ctx);
  if (!limiter) limiters.set(ctx, (limiter = new RefusalLimiter(ctx.db, ctx.config)));
  return limiter;
}

/** Paths never refused for a client's earlier refusals: the health check and static assets carry no credentials. */
const UNGUARDED = /^\/(api\/health$|static\/)/;

/** Answers 429 up front to a client this instance found over its refusal limit, until that window ends. */
export const refusalGuard = (ctx: AppContext) =>
  new Elysia({ name: 'platform:refusal-guard' }).onRequest(({ request, server }) => {
    if (ctx.config.REFUSAL_WINDOW_SECONDS === 0) return undefined;
    const limiter = refusalLimiter(ctx);
    const seconds = limiter.blockedFor(clientAddress(request, server, ctx.config));
    if (seconds === null || UNGUARDED.test(new URL(request.url).pathname)) return undefined;
    return tooManyRefusals(request, seconds);
  });

/** The 429 answer: the error envelope for the API and JSON clients, a short page for screens. */
export function tooManyRefusals(request: Request, retryAfterSeconds: number): Response {
  const headers = { 'retry-after': String(retryAfterSeconds), 'cache-control': 'no-store' };
  const path = new URL(request.url).pathname;
  if (path.startsWith('/api/') || request.headers.get('accept')?.includes('application/json')) {
    return Response.json({ error: TOO_MANY_REFUSALS }, { status: 429, headers });
  }
  const page = `<!doctype html><html lang="en"><head><title>429</title><link rel="stylesheet" href="/static/app.css"></head><body><main class="narrow"><h1>Too many requests</h1><div class="flash flash-error" role="alert">${TOO_MANY_REFUSALS}</div></main></body></html>`;
  return new Response(page, { status: 429, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } });
}
