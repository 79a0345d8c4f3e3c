/**
 * The session store on its own, without a configuration or plugins
 * ({@linkcode openSessions}, what `agent sessions` needs), and where it is
 * kept ({@linkcode sessionsDirOf}).
 *
 * @module
 */
import { defaultInstallationKeyPath } from "./state/installation_key.ts";
import type { KernelSessions, OpenKernelOptions } from "./api.ts";
import { replaySession } from "./agent/history.ts";
import { RenderPipeline, replayRendered } from "./frontend/render.ts";
import { replayRenderItemOf } from "./_replay_render.ts";
import type { SessionStore } from "./state/session_store.ts";

/**
 * Opens the session store alone (no configuration, no plugins): what
 * `agent sessions` needs.
 *
 * @param options The environment or the sessions directory.
 * @returns The stored sessions, and a way to close the store.
 */
export function openSessions(
  options: Pick<OpenKernelOptions, "env" | "sessionsDir"> & {
    /**
     * Read the shared PostgreSQL store instead of this machine's files
     * (the URL is a secret: pass it from the environment).
     */
    postgres?: { url: string; schema?: string };
  } = {},
): KernelSessions & AsyncDisposable {
  const env = options.env ?? Deno.env.toObject();
  const where = stateLocationsOf(env, options.sessionsDir);
  const pg = options.postgres;
  const store: Promise<SessionStore> = pg
    ? import("./state/postgres_session_store.ts").then((m) =>
      new m.PostgresSessionStore({
        url: pg.url,
        ...(pg.schema !== undefined ? { schema: pg.schema } : {}),
        keyPath: where.keyPath,
      })
    )
    : import("./state/sqlite_session_store.ts").then((m) =>
      new m.SqliteSessionStore(where)
    );
  store.catch(() => {});
  return {
    list: async (o) => (await store).list(o),
    replay: async function* (id) {
      yield* replaySession(await store, id);
    },
    verify: async (id) => (await store).verify(id),
    // No plugin runs here: every producer is missing, every event is
    // rendered by the kernel, visibly.
    render: async function* (id, o = {}) {
      const log = await (await store).open(id);
      try {
        for await (
          const item of replayRendered(
            log,
            new RenderPipeline({ renderer: () => undefined }),
            [],
            o.signal,
          )
        ) yield replayRenderItemOf(item);
      } finally {
        await log.close();
      }
    },
    [Symbol.asyncDispose]: async () => (await store).close(),
  };
}

/**
 * The sessions directory: `$XDG_STATE_HOME/agent/sessions` when
 * `XDG_STATE_HOME` is an absolute path, else
 * `$HOME/.local/state/agent/sessions`.
 *
 * @example Usage
 * ```ts
 * import { sessionsDirOf } from "./open_sessions.ts";
 * import assert from "node:assert/strict";
 * assert.equal(sessionsDirOf({ HOME: "/home/a" }), "/home/a/.local/state/agent/sessions");
 * ```
 *
 * @param env The environment.
 * @returns The directory.
 * @throws {Error} When neither variable locates it.
 */
export function sessionsDirOf(
  env: Readonly<Record<string, string | undefined>>,
): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg && xdg.startsWith("/")) return `${xdg}/agent/sessions`;
  if (!env.HOME) {
    throw new Error(
      "Cannot locate the sessions directory: neither XDG_STATE_HOME nor HOME is set",
    );
  }
  return `${env.HOME}/.local/state/agent/sessions`;
}

/**
 * Where the state backend keeps its files: the sessions directory, the
 * chain heads kept outside the session files
 * (`$XDG_STATE_HOME/agent/heads`) and the installation key
 * (`$XDG_DATA_HOME/agent/installation.key`), from the kernel's environment.
 * An explicit sessions directory keeps its heads inside it.
 *
 * @param env The environment.
 * @param sessionsDir An explicit sessions directory.
 * @returns The store's locations.
 */
export function stateLocationsOf(
  env: Readonly<Record<string, string | undefined>>,
  sessionsDir: string | undefined,
): { dir: string; headsDir: string; keyPath: string } {
  const dir = sessionsDir ?? sessionsDirOf(env);
  const headsDir = sessionsDir === undefined
    ? `${dir.slice(0, dir.lastIndexOf("/"))}/heads`
    : `${dir}/heads`;
  return { dir, headsDir, keyPath: defaultInstallationKeyPath((k) => env[k]) };
}
