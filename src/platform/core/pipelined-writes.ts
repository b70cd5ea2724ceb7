/**
 * The writes of a bulk path (CSV import) inside one transaction, sent without waiting for each to finish, so the
 * database inserts one chunk while JavaScript prepares the next. A transaction is one connection, so statements run
 * in the order they were sent and a later read still sees every earlier write; only the waiting is moved.
 *
 * Whoever creates it must `drain()` before the transaction ends: a failed statement aborts the transaction, and
 * drain() rethrows the first failure (not the "transaction is aborted" errors that follow it).
 */
export class PipelinedWrites {
  private inFlight: Promise<void>[] = [];
  private failure: { error: unknown } | null = null;
  /**
   * The Audit Log head after this transaction's last append. appendAudit holds the chain lock until the transaction
   * ends, so once set, no other writer can move the head and the next append needs neither the lock nor a query.
   */
  auditHead: { seq: number; hash: string } | null = null;

  /**
   * Starts the statement now (Drizzle's queries are lazy until awaited) and keeps its outcome for drain(). Once a
   * statement failed the transaction is aborted (or its connection gone), so later ones are not sent at all.
   */
  send(statement: PromiseLike<unknown>): void {
    if (this.failure) return;
    this.inFlight.push(Promise.resolve(statement).then(() => undefined, (error: unknown) => {
      this.failure ??= { error };
    }));
  }

  /** Waits until at most `keep` statements are still running; throws the first failure. Back-pressure keeps memory flat. */
  async drain(keep = 0): Promise<void> {
    while (this.inFlight.length > keep) await this.inFlight.shift();
    if (this.failure) throw this.failure.error;
  }
}

/** Sends through `writes` when given, otherwise waits for the statement as a single write does. */
export async function sendOrWait(writes: PipelinedWrites | undefined, statement: PromiseLike<unknown>): Promise<void> {
  if (writes) writes.send(statement);
  else await statement;
}
