import type postgres from 'postgres';

/**
 * Error codes that mean the connection to PostgreSQL is gone or cannot be made, not that a statement was wrong:
 * postgres.js's own codes, the socket's, and PostgreSQL's class 08 (connection exception), 57P01-57P03 (the server
 * is shutting down, or its backend was terminated) and 53300 (no connection slot free).
 */
const CONNECTION_LOSS_CODES = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '53300',
]);

/** Whether an error (or what it wraps) says the database connection was lost or could not be opened. */
export function isConnectionLoss(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_LOSS_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  }
  return false;
}

interface PendingQuery {
  handler: (query: PendingQuery) => unknown;
  reject: (error: unknown) => void;
}

interface Lost {
  error: unknown;
}

const isPendingQuery = (value: unknown): value is PendingQuery =>
  value instanceof Promise && typeof (value as Partial<PendingQuery>).handler === 'function';

/**
 * Guard 1. A query of a transaction whose connection is lost is refused here, before postgres.js sees it; the first
 * connection-loss failure of any of the transaction's queries marks the transaction lost, synchronously (postgres.js
 * rejects in-flight queries from the socket's close handler).
 */
function guardQuery(query: PendingQuery, lost: Lost): void {
  const send = query.handler;
  query.handler = (q) => {
    if (lost.error) return q.reject(lost.error);
    const reject = q.reject;
    q.reject = (error) => {
      if (isConnectionLoss(error)) lost.error ??= error;
      reject(error);
    };
    return send(q);
  };
}

/** The transaction handle given to the caller: every query it makes, its savepoints included, is guarded. */
function guardScope(scope: postgres.TransactionSql, lost: Lost): postgres.TransactionSql {
  const guardResult = <T>(result: T): T => {
    if (isPendingQuery(result)) guardQuery(result, lost);
    return result;
  };
  return new Proxy(scope, {
    apply: (target, thisArg, args) => guardResult(Reflect.apply(target, thisArg, args)),
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'unsafe' || key === 'file') return (...args: unknown[]) => guardResult((value as (...a: unknown[]) => unknown)(...args));
      if (key === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (sql: postgres.TransactionSql) => unknown;
          return (value as (...a: unknown[]) => Promise<unknown>)(...args, (inner: postgres.TransactionSql) => settleUnlessLost(() => fn(guardScope(inner, lost)), lost));
        };
      }
      return value;
    },
  });
}

/**
 * Runs the caller's transaction body and passes on its outcome, except when the connection was lost meanwhile: then
 * the outcome is never passed on, so postgres.js sends neither COMMIT nor ROLLBACK through the dead connection (the
 * server has rolled the transaction back already). postgres.js rejects `begin()` itself when the connection closes, so
 * the caller still gets the error; the abandoned body becomes garbage.
 */
function settleUnlessLost<T>(body: () => T | Promise<T>, lost: Lost): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    Promise.resolve().then(body).then(
      (value) => { if (!lost.error) resolve(value); },
      (error: unknown) => { if (!lost.error) reject(error); },
    );
  });
}

/**
 * Guard 2. A statement sent on the pool (outside a transaction) that failed with a connection loss before it reached any
 * connection is sent once more. postgres.js (3.4.9) keeps the error a backend sent as it was terminated mid-statement
 * (`57P01`) after the connection closed, and hands it to the first statement of the next connection made in its place,
 * at the new connection's first ReadyForQuery, before that statement was sent: without the retry, one request after
 * every lost connection would fail although PostgreSQL is back. A statement that did reach a connection (postgres.js
 * sets its `state` then) is never repeated, since it may have been applied.
 */
function retryUnsent(query: PendingQuery & { state: unknown }): void {
  const reject = query.reject;
  let retried = false;
  query.reject = (error) => {
    if (retried || query.state !== null || !isConnectionLoss(error)) return reject(error);
    retried = true;
    // After the connection that refused it has finished its own handling of the failure.
    queueMicrotask(() => query.handler(query));
  };
}

/**
 * The postgres.js client, made safe for a lost connection (see the two guards above). Also, a transaction whose BEGIN
 * failed with a connection loss before its body ran is begun once more, for the same stale-error reason.
 *
 * Why: postgres.js (3.4.9, upstream issues #1066, #1154, #1208) keeps running a transaction's body after the
 * connection closed, and its Connection.execute only refuses a query when the connection was *terminated*, not when
 * the socket closed: the next statement the body sends (a CSV import pipelines many) is queued on a connection whose
 * socket is null, and its write, scheduled with setImmediate, throws `TypeError: null is not an object (evaluating
 * 'socket.write')` outside any promise, which ends the process. Had the pool reconnected that connection meanwhile,
 * the statements would instead run on the new connection, outside the transaction. So every query of a transaction
 * is refused once any of them saw the connection lost (or `begin()` rejected because it closed), and the body's end
 * sends nothing.
 */
export function guardConnectionLoss(client: postgres.Sql): postgres.Sql {
  type Begin = (...args: unknown[]) => Promise<unknown>;
  const begin = async (...args: unknown[]): Promise<unknown> => {
    const fn = args.pop() as (sql: postgres.TransactionSql) => unknown;
    for (let attempt = 1; ; attempt++) {
      const lost: Lost = { error: null };
      let bodyStarted = false;
      try {
        return await (client.begin as unknown as Begin)(...args, (scope: postgres.TransactionSql) => {
          bodyStarted = true;
          return settleUnlessLost(() => fn(guardScope(scope, lost)), lost);
        });
      } catch (error) {
        if (isConnectionLoss(error)) lost.error ??= error;
        if (bodyStarted || attempt > 1 || !isConnectionLoss(error)) throw error;
      }
    }
  };
  const retried = <T>(result: T): T => {
    if (isPendingQuery(result)) retryUnsent(result as unknown as PendingQuery & { state: unknown });
    return result;
  };
  return new Proxy(client, {
    apply: (target, thisArg, args) => retried(Reflect.apply(target, thisArg, args)),
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'begin') return begin;
      if (key === 'unsafe') return (...args: unknown[]) => retried((value as (...a: unknown[]) => unknown)(...args));
      return value;
    },
  });
}
