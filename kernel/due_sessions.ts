/**
 * The due `control_plane` timers of stored sessions, decided without a
 * kernel ({@linkcode checkDueTimers}): the configuration is compiled and the
 * state store it selects is opened on its own — no plugin is launched, no
 * bus bridge started. `agent trigger --due` asks this first, so a cron run
 * with nothing due starts nothing.
 *
 * @module
 */
import { resolve } from "node:path";
import { compilePlan } from "./_compile_plan.ts";
import type { OpenKernelOptions } from "./api.ts";
import { type DueTimer, storedDueTimers } from "./control/due_timers.ts";
import { stateLocationsOf } from "./open_sessions.ts";
import type { SessionStore } from "./state/session_store.ts";

/** What {@linkcode checkDueTimers} found for one session. */
export type DueCheck =
  /** The session's due timers (none: nothing to fire). */
  | { readonly sessionId: string; readonly timers: DueTimer[] }
  /** Why its timers could not be read (e.g. no such session). */
  | { readonly sessionId: string; readonly error: unknown };

/** Options of {@linkcode checkDueTimers}. */
export interface CheckDueTimersOptions extends
  Pick<
    OpenKernelOptions,
    "env" | "builtins" | "locked" | "defaultConfig" | "sessionsDir"
  > {
  /**
   * Decide what is due at this time (epoch milliseconds).
   * @default {Date.now()}
   */
  readonly now?: number;
  /**
   * The profile whose timers count.
   * @default {the session's own profile}
   */
  readonly profile?: string;
}

/**
 * The due timers of each stored session, as {@linkcode Kernel.dueTimers}
 * finds them, without launching a plugin: the project's configuration is
 * compiled and its state store opened alone, then closed.
 *
 * @param dir The project directory.
 * @param sessionIds The stored sessions, in the order to report them.
 * @param options The environment, configuration options, time, profile.
 * @returns One entry per session, in order.
 * @throws {ConfigError} When the configuration has errors.
 * @throws {Error} When the state store cannot be opened (e.g. the
 * PostgreSQL URL's variable is unset).
 */
export async function checkDueTimers(
  dir: string,
  sessionIds: readonly string[],
  options: CheckDueTimersOptions = {},
): Promise<DueCheck[]> {
  const env = options.env ?? Deno.env.toObject();
  const { plan } = await compilePlan(resolve(dir), env, options);
  const where = stateLocationsOf(env, options.sessionsDir);
  let store: SessionStore;
  if (plan.state?.backend === "postgres") {
    const url = env[plan.state.urlEnv];
    if (!url) {
      throw new Error(
        `Cannot open the postgres state backend: the environment variable ${plan.state.urlEnv} (state.url) is not set or empty`,
      );
    }
    const { PostgresSessionStore } = await import(
      "./state/postgres_session_store.ts"
    );
    store = new PostgresSessionStore({
      url,
      schema: plan.state.schema,
      keyPath: where.keyPath,
    });
  } else {
    const { SqliteSessionStore } = await import(
      "./state/sqlite_session_store.ts"
    );
    store = new SqliteSessionStore(where);
  }
  try {
    const checks: DueCheck[] = [];
    for (const sessionId of sessionIds) {
      try {
        checks.push({
          sessionId,
          timers: await storedDueTimers(store, plan.profiles, sessionId, {
            ...(options.now !== undefined ? { now: options.now } : {}),
            ...(options.profile !== undefined
              ? { profile: options.profile }
              : {}),
          }),
        });
      } catch (error) {
        checks.push({ sessionId, error });
      }
    }
    return checks;
  } finally {
    await store.close();
  }
}
