/**
 * The per-kernel control endpoint ({@linkcode startControlEndpoint}) and
 * its client ({@linkcode deliverToLiveSession}): how `agent trigger` in one
 * process reaches a session that another process of the same project
 * holds open (an interactive `agent`, a frontend, `agent run`, another
 * `agent trigger`).
 *
 * Each kernel that opts in listens on a unix socket
 * `<project>/.agent/run/<pid>-<random>.sock`. The directory is created
 * with mode 0700 and each socket is chmod 0600, so only the user who runs
 * the kernel can connect: the file permissions are the authentication.
 * One connection carries one request line and one answer line (JSON):
 *
 * - `{"op":"trigger","session":ID,"text":T,"name":N}` puts
 *   `<cp:external-trigger name="N" target="ID" session="ID">T</cp:external-trigger>`
 *   before the live session's agent (drained at its next round boundary,
 *   or a wake turn when it is idle — refused there when its bounds are
 *   spent); the answer is `{"held":true,"pid":P,"outcome":"queued"}` (or
 *   `disabled`, `rate_limited`, `no_control_plane`);
 * - `{"op":"holds","session":ID}` answers `{"held":true|false,"pid":P}`.
 *
 * A kernel that does not hold the session answers `{"held":false}`. A
 * socket whose kernel is gone (connection refused) is removed by the
 * client that finds it.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** The run directory of a project, relative to it. */
export const RUN_DIR: string = ".agent/run";

/** The most bytes one request line may have (a trigger's text included). */
export const MAX_REQUEST_BYTES: number = 1024 * 1024;

/** How long a client waits for one kernel's answer, in milliseconds. */
export const ANSWER_TIMEOUT_MS: number = 10_000;

/** A live session as the endpoint needs it (the registry's `LiveSession`). */
export interface EndpointSession {
  /** True once the session has begun closing (it takes no new work). */
  readonly isClosing?: () => boolean;
  /**
   * Posts a control message to the session; returns what became of it
   * (`queued`, `disabled`, `rate_limited`, `empty`). Absent when the
   * session has no control plane.
   */
  readonly inject?: (
    source: string,
    text: string,
    channel: {
      readonly channel: string;
      readonly attributes: Readonly<Record<string, string>>;
    },
  ) => string;
}

/** Options of {@linkcode startControlEndpoint}. */
export interface ControlEndpointOptions {
  /** The live session with this id in this kernel, if any. */
  readonly lookup: (sessionId: string) => EndpointSession | undefined;
}

/** A trigger sent to the kernel that holds a session. */
export interface TriggerRequest {
  /** The session. */
  readonly session: string;
  /** What the turn is about. */
  readonly text: string;
  /** The trigger's name (its provenance). @default {"trigger"} */
  readonly name?: string;
}

/** What {@linkcode deliverToLiveSession} found. */
export interface DeliveredTrigger {
  /** The pid of the kernel that holds the session. */
  readonly pid: number;
  /**
   * `queued` (it reaches the agent), or why not: `disabled`,
   * `rate_limited`, `no_control_plane`, or `closing` (its holder is
   * closing it: nothing was delivered; try again once it is stored).
   */
  readonly outcome: string;
}

/** A running control endpoint. */
export interface ControlEndpoint extends AsyncDisposable {
  /** The socket's path. */
  readonly path: string;
  /** Stops listening and removes the socket (idempotent). */
  close(): Promise<void>;
}

const SOCKET_REGEXP = /^([0-9]+)-[0-9a-f]+\.sock$/;

/**
 * Creates the run directory (mode 0700; an existing one is narrowed to it).
 *
 * @param runDir The directory.
 * @returns Removes the run directory when it is empty, and its parent
 * (`.agent`) when this call created it and it is empty: a project where
 * nothing else wrote `.agent/` is left as it was.
 * @throws {Deno.errors.PermissionDenied} When it cannot be created.
 */
export async function ensureRunDir(
  runDir: string,
): Promise<() => Promise<void>> {
  const parent = dirname(runDir);
  const parentExisted = await exists(parent);
  await Deno.mkdir(runDir, { recursive: true, mode: 0o700 });
  const info = await Deno.stat(runDir);
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    await Deno.chmod(runDir, 0o700);
  }
  return () => leaveRunDir(runDir, !parentExisted);
}

/**
 * Left in the run directory by a process that made `.agent` but left while
 * others still used the directory: whoever leaves it empty removes `.agent`
 * too (two racing processes each saw `.agent` exist but one of them).
 */
const MADE_PARENT = ".made-parent";

/**
 * Removes the run directory when nothing but a {@linkcode MADE_PARENT} note
 * is left in it, and its parent when this process or one before it made
 * the parent; hands that over in the note while others still use it.
 */
async function leaveRunDir(runDir: string, madeParent: boolean): Promise<void> {
  const parent = dirname(runDir);
  const note = join(runDir, MADE_PARENT);
  let made = madeParent;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await Deno.remove(note).then(() => true, () => false)) made = true;
    try {
      // Non-recursive: fails while anything is left in it.
      await Deno.remove(runDir);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        if (made) {
          // Others remain: the last of them removes .agent.
          await Deno.writeTextFile(note, "").catch(() => {});
          if (await exists(runDir)) return;
        } else if (!(await exists(note))) return;
        else continue; // handed over meanwhile: take it
      }
    }
    if (made) await Deno.remove(parent).catch(() => {});
    return;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * Starts a kernel's control endpoint.
 *
 * @example Usage
 * ```ts ignore
 * const endpoint = await startControlEndpoint(".agent/run", {
 *   lookup: (id) => registry.get(id),
 * });
 * await endpoint.close();
 * ```
 *
 * @param runDir The project's run directory (`<project>/.agent/run`).
 * @param options Finds the live sessions.
 * @returns The endpoint.
 * @throws {Error} When the directory or the socket cannot be created (for
 * instance a path longer than a unix socket allows).
 */
export async function startControlEndpoint(
  runDir: string,
  options: ControlEndpointOptions,
): Promise<ControlEndpoint> {
  const rand = crypto.getRandomValues(new Uint8Array(4));
  const suffix = [...rand].map((b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
  const path = join(runDir, `${Deno.pid}-${suffix}.sock`);
  let cleanup: () => Promise<void>;
  let listener: Deno.UnixListener;
  for (let attempt = 0;; attempt++) {
    cleanup = await ensureRunDir(runDir);
    try {
      listener = Deno.listen({ transport: "unix", path });
      break;
    } catch (err) {
      // Another kernel removed the empty directory meanwhile: again.
      if (!(err instanceof Deno.errors.NotFound) || attempt >= 2) throw err;
    }
  }
  await Deno.chmod(path, 0o600);
  const serving = (async () => {
    try {
      for await (const conn of listener) {
        void serveConnection(conn, options).catch(() => {});
      }
    } catch {
      // The listener was closed.
    }
  })();
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      await serving;
      await Deno.remove(path).catch(() => {});
      await cleanup();
    })();
  return { path, close, [Symbol.asyncDispose]: close };
}

async function serveConnection(
  conn: Deno.Conn,
  options: ControlEndpointOptions,
): Promise<void> {
  try {
    const line = await readLine(conn, AbortSignal.timeout(ANSWER_TIMEOUT_MS));
    const answer = line === undefined
      ? { error: "no request line" }
      : answerOf(line, options);
    await writeAll(conn, `${JSON.stringify(answer)}\n`);
  } finally {
    try {
      conn.close();
    } catch {
      // Closed by the peer.
    }
  }
}

function answerOf(
  line: string,
  options: ControlEndpointOptions,
): Record<string, unknown> {
  let req: Record<string, unknown>;
  try {
    const v = JSON.parse(line);
    if (!v || typeof v !== "object") throw new TypeError("not an object");
    req = v as Record<string, unknown>;
  } catch {
    return { error: "the request is not a JSON object" };
  }
  if (typeof req.session !== "string" || req.session === "") {
    return { error: 'the request has no "session"' };
  }
  const live = options.lookup(req.session);
  if (!live) return { held: false };
  // A session that is closing takes no new work: the trigger waits until
  // it is stored (never a turn that does not run, never a second writer).
  if (live.isClosing?.()) return { held: false, closing: true, pid: Deno.pid };
  if (req.op === "holds") return { held: true, pid: Deno.pid };
  if (req.op !== "trigger") {
    return { error: `unknown op ${JSON.stringify(req.op)}` };
  }
  if (typeof req.text !== "string" || req.text.trim() === "") {
    return { error: 'the request has no "text"' };
  }
  const name = typeof req.name === "string" && req.name !== ""
    ? req.name
    : "trigger";
  if (!live.inject) {
    return { held: true, pid: Deno.pid, outcome: "no_control_plane" };
  }
  try {
    const outcome = live.inject(`trigger:${name}`, req.text, {
      channel: "external-trigger",
      attributes: { name, target: req.session, session: req.session },
    });
    return { held: true, pid: Deno.pid, outcome };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

async function writeAll(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

/** One line (without its newline), or undefined at the end or the limit. */
async function readLine(
  conn: Deno.Conn,
  signal: AbortSignal,
): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const buf = new Uint8Array(64 * 1024);
  const onAbort = () => {
    try {
      conn.close();
    } catch {
      // Closed.
    }
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      let n: number | null;
      try {
        n = await conn.read(buf);
      } catch {
        return undefined;
      }
      if (n === null) break;
      const chunk = buf.slice(0, n);
      const nl = chunk.indexOf(10);
      if (nl >= 0) {
        chunks.push(chunk.subarray(0, nl));
        size += nl;
        break;
      }
      chunks.push(chunk);
      size += n;
      if (size > MAX_REQUEST_BYTES) return undefined;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  if (size === 0 && chunks.length === 0) return undefined;
  const all = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}

/**
 * Sends one request to one endpoint.
 *
 * @returns The answer, `"gone"` when nothing listens on the socket any
 * more, or undefined when the kernel did not answer in time.
 */
async function ask(
  path: string,
  request: Record<string, unknown>,
): Promise<Record<string, unknown> | "gone" | undefined> {
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path });
  } catch (err) {
    if (
      err instanceof Deno.errors.ConnectionRefused ||
      err instanceof Deno.errors.NotFound
    ) return "gone";
    return undefined;
  }
  try {
    await writeAll(conn, `${JSON.stringify(request)}\n`);
    const line = await readLine(conn, AbortSignal.timeout(ANSWER_TIMEOUT_MS));
    if (line === undefined) return undefined;
    const v = JSON.parse(line);
    return v && typeof v === "object"
      ? v as Record<string, unknown>
      : undefined;
  } catch {
    return undefined;
  } finally {
    try {
      conn.close();
    } catch {
      // Closed.
    }
  }
}

/** The endpoints of a run directory, other than `except`. */
async function endpoints(runDir: string, except?: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(runDir)) {
      if (!SOCKET_REGEXP.test(e.name)) continue;
      const path = join(runDir, e.name);
      if (path !== except) out.push(path);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  return out.sort();
}

/** Options of {@linkcode deliverToLiveSession} and {@linkcode findLiveHolder}. */
export interface LiveClientOptions {
  /** An endpoint to leave out (the caller's own). */
  readonly except?: string;
}

/**
 * Delivers a trigger to the kernel of this project that holds the session
 * live, if one does: asks each endpoint of the run directory in turn and
 * removes the sockets whose kernel is gone.
 *
 * @param runDir The project's run directory.
 * @param request The session, text and name.
 * @param options The caller's own endpoint, left out.
 * @returns Where it went and what became of it, or undefined when no live
 * kernel holds the session.
 * @throws {Error} When the holding kernel refuses the request (its
 * message).
 */
export async function deliverToLiveSession(
  runDir: string,
  request: TriggerRequest,
  options: LiveClientOptions = {},
): Promise<DeliveredTrigger | undefined> {
  for (const path of await endpoints(runDir, options.except)) {
    const answer = await ask(path, { op: "trigger", ...request });
    if (answer === "gone") {
      await Deno.remove(path).catch(() => {});
      continue;
    }
    if (answer && answer.closing === true) {
      return {
        pid: typeof answer.pid === "number" ? answer.pid : 0,
        outcome: "closing",
      };
    }
    if (!answer || answer.held !== true) {
      if (answer && typeof answer.error === "string") {
        throw new Error(
          `Cannot trigger session "${request.session}": its kernel answered: ${answer.error}`,
        );
      }
      continue;
    }
    return {
      pid: typeof answer.pid === "number" ? answer.pid : 0,
      outcome: String(answer.outcome),
    };
  }
  return undefined;
}

/**
 * The pid of the kernel of this project that holds the session live, if
 * any.
 *
 * @param runDir The project's run directory.
 * @param sessionId The session.
 * @param options The caller's own endpoint, left out.
 * @returns The pid, or undefined.
 */
export async function findLiveHolder(
  runDir: string,
  sessionId: string,
  options: LiveClientOptions = {},
): Promise<number | undefined> {
  for (const path of await endpoints(runDir, options.except)) {
    const answer = await ask(path, { op: "holds", session: sessionId });
    if (answer === "gone") {
      await Deno.remove(path).catch(() => {});
      continue;
    }
    if (answer?.held === true) {
      return typeof answer.pid === "number" ? answer.pid : 0;
    }
  }
  return undefined;
}
