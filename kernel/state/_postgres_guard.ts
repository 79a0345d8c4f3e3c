/**
 * A guard against npm:postgres 3.4.9 crashing the process when a query is
 * handed to a connection whose socket has closed (upstream
 * porsager/postgres#1066, #1154, #1208; no fixed release).
 *
 * The package nulls a connection's socket when it closes and gives the
 * connection back to the pool, but a handle pinned to that connection
 * still hands its next query straight to it: a `sql.begin()` transaction
 * does so by itself, with the `ROLLBACK` it sends when a query of the
 * transaction failed because the connection closed (a `sql.reserve()`
 * handle does the same with the caller's next query). The query's bytes
 * are flushed from a `setImmediate` callback (`nextWrite`), which reads
 * `write` of `null`: an uncaught `TypeError` outside any promise, which
 * ends a Deno process. Wrapping the socket through the package's `socket`
 * option cannot help: the `null` is the package's own variable.
 *
 * {@linkcode guardPool} wraps `execute` of each connection a transaction
 * pins (the package hands it out through the `onexecute` option of the
 * transaction's `BEGIN`): a query of the transaction is rejected with a
 * `CONNECTION_CLOSED` error, as the package rejects the queries in flight,
 * instead of being written, once the connection is no longer pinned (the
 * package unpins it when it closes) or once a query of this pinning failed
 * with a connection error (a reset socket reports its error before its
 * close; a write in between would leave the package's write timer set for
 * good, so the connection's next start-up message is never sent).
 *
 * The bus bridge sends on the pool itself, not on a `sql.reserve()`d
 * connection: a reservation asked for while another connection closes can
 * be lost by the package (never resolved).
 *
 * @module
 */
import type { Sql } from "postgres";

/** The package's connection object, as far as the guard uses it. */
interface PgConnection {
  /** Sends a query (returns whether more may be pipelined). */
  execute(query: PgQuery): unknown;
  /** Set while a transaction or a reservation pins it; cleared on close. */
  reserved: unknown;
}

/** The package's query object, as far as the guard uses it. */
interface PgQuery {
  /** The handle that made it: the pool's, a transaction's, a reservation's. */
  readonly handler: unknown;
  /** Settles it as failed. */
  reject: (error: unknown) => void;
}

type QueryOptions = Record<string, unknown> & {
  onexecute?: (connection: PgConnection) => unknown;
};

const GUARDED = new WeakSet<object>();

/**
 * Whether an error is the connection's (lost, refused, reset, shut down),
 * not a statement's: worth retrying on a new connection.
 *
 * @param error What a query rejected with.
 * @returns `true` for a connection-level failure.
 */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") {
    return error instanceof Deno.errors.ConnectionRefused ||
      error instanceof Deno.errors.ConnectionReset ||
      error instanceof Deno.errors.BrokenPipe;
  }
  return /^(CONNECTION_|CONNECT_TIMEOUT|ECONN|EPIPE|ENOTFOUND|ETIMEDOUT|08|57P0[123])/
    .test(code);
}

/** The error a query gets instead of being written to a closed connection. */
function closedError(sql: Sql): Error {
  const options = sql.options as unknown as {
    host?: readonly string[];
    port?: readonly number[];
  };
  return Object.assign(
    new Error(
      `write CONNECTION_CLOSED ${options.host?.[0] ?? ""}:${
        options.port?.[0] ?? ""
      } (the connection closed before the query was sent)`,
    ),
    { code: "CONNECTION_CLOSED", errno: "CONNECTION_CLOSED" },
  );
}

/** Wraps `execute` of a pinned connection (once per connection object). */
function guardConnection(
  sql: Sql,
  pool: unknown,
  connection: PgConnection,
): void {
  if (GUARDED.has(connection)) return;
  GUARDED.add(connection);
  const execute = connection.execute;
  // The pinning (the value of `reserved`) whose connection failed.
  let broken: unknown;
  connection.execute = (query: PgQuery) => {
    const pinned = connection.reserved;
    if (query.handler === pool) return execute(query);
    if (!pinned || pinned === broken) {
      query.reject(closedError(sql));
      // "Sent, ready for more": the handle must not move the connection
      // (the pool's again) to the pool's full queue.
      return true;
    }
    const reject = query.reject;
    query.reject = (error: unknown) => {
      if (isConnectionError(error) && connection.reserved === pinned) {
        broken = pinned;
      }
      reject(error);
    };
    return execute(query);
  };
}

/**
 * Guards a pool's transactions: each connection a `sql.begin` pins is
 * guarded from its `BEGIN` on, so the `ROLLBACK` the package sends after
 * the connection closed under the transaction rejects instead of crashing
 * the process. Call once, right after creating the pool.
 *
 * @param sql The pool.
 * @returns The same pool.
 */
export function guardPool(sql: Sql): Sql {
  if (GUARDED.has(sql)) return sql;
  GUARDED.add(sql);
  // The pool's own query handler: a query object is inert until awaited,
  // and this one never is.
  const pool = (sql.unsafe("SELECT 1") as unknown as PgQuery).handler;
  const unsafe = sql.unsafe;
  // `sql.begin` sends its BEGIN through the pool's `unsafe` with an
  // `onexecute` option, which receives the connection it pins.
  sql.unsafe = function (this: unknown, ...args: unknown[]) {
    const at = args.length === 2 && !Array.isArray(args[1]) ? 1 : 2;
    const options = args[at] as QueryOptions | undefined;
    const onexecute = options?.onexecute;
    if (typeof onexecute === "function") {
      args[at] = {
        ...options,
        onexecute: (connection: PgConnection) => {
          guardConnection(sql, pool, connection);
          return onexecute(connection);
        },
      };
    }
    return (unsafe as (...a: unknown[]) => unknown).apply(this, args);
  } as Sql["unsafe"];
  return sql;
}
