import type { Database, Db, Tx } from '../../../db/client';
import type { Config } from '../../config';
import type { Mailer } from '../mail/mail';
import type { Storage } from '../storage/storage';

/** What every route plugin needs; built once in server.ts (or by the tests) and handed to createApp. */
export interface AppContext {
  database: Database;
  db: Db;
  config: Config;
  mailer: Mailer;
  /** Stored files (evidence). */
  storage: Storage;
}

let committedHooks: ((ctx: AppContext) => void)[] = [];

/** Work to start after every committed service write (notifications make their rule mails; no import circle through here). */
export function onWriteCommitted(hook: (ctx: AppContext) => void): void {
  committedHooks = [...committedHooks.filter((h) => h !== hook), hook];
}

/**
 * Runs a service write in one transaction; mail queued by it is delivered after the commit, never before, and the
 * hooks registered for committed writes start then (the rule mails its History entries call for).
 */
export async function runWrite<T>(ctx: AppContext, write: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await ctx.db.transaction(write);
  void ctx.mailer.deliverOutbox().catch(() => {});
  for (const hook of committedHooks) hook(ctx);
  return result;
}
