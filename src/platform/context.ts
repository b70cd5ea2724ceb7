import type { Database, Db, Tx } from '../../db/client';
import type { Config } from '../config';
import type { Mailer } from './mail';
import { afterWrite } from './notifications/rule-mails';
import type { Storage } from './storage';

/** What every route plugin needs; built once in server.ts (or by the tests) and handed to createApp. */
export interface AppContext {
  database: Database;
  db: Db;
  config: Config;
  mailer: Mailer;
  /** Stored files (evidence). */
  storage: Storage;
}

/**
 * Runs a service write in one transaction; mail queued by it is delivered after the commit, never before, and the rule
 * mails its History entries call for are made then too (src/platform/notifications/rule-mails.ts).
 */
export async function runWrite<T>(ctx: AppContext, write: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await ctx.db.transaction(write);
  void ctx.mailer.deliverOutbox().catch(() => {});
  afterWrite(ctx);
  return result;
}
