/**
 * `fs-change` (seed 004): a watcher on the session's granted roots
 * ({@linkcode startFsWatch}) reports files changed by someone other than
 * the session's own tools. {@linkcode FsChanges} keeps what changed since
 * the last delivery — each path once, with its kind — and leaves out the
 * session's own writes: a path a write call of the session named, from the
 * call's start until {@linkcode SELF_WRITE_GRACE_MS} after its end, and
 * every path from the start of a write call that names no path (a shell
 * command: its writes cannot be told apart) until
 * {@linkcode SELF_COMMAND_GRACE_MS} after its end. The changes are
 * posted as one block at the next round boundary (informational: it never
 * wakes a session nor continues a turn); over the 30/min limit they stay
 * for the next boundary.
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { ControlPlane } from "./control_plane.ts";

/** How long after a write call ends a change to its paths is still its own. */
export const SELF_WRITE_GRACE_MS = 5_000;
/**
 * How long after a call that names no path (a shell command) ends every
 * change is still taken for its own.
 */
export const SELF_COMMAND_GRACE_MS = 1_000;
/** Paths listed in one `fs-change` block; the rest are counted. */
export const FS_CHANGE_MAX_PATHS = 50;

/** What happened to a path. */
export type FsChangeKind = "created" | "modified" | "removed" | "renamed";

interface Call {
  readonly paths: ReadonlySet<string>;
  readonly everything: boolean;
  endedAt?: number;
}

/** The session's pending third-party file changes. */
export class FsChanges {
  readonly #now: () => number;
  readonly #roots: readonly string[];
  readonly #calls = new Map<string, Call>();
  #pending = new Map<string, FsChangeKind>();
  /** Changes left out as the session's own (for tests and diagnostics). */
  readonly ignored: Set<string> = new Set();

  /**
   * Creates the tracker.
   *
   * @param roots The watched roots (absolute), for relative names.
   * @param now The clock (epoch ms).
   */
  constructor(roots: readonly string[], now: () => number = Date.now) {
    this.#roots = roots;
    this.#now = now;
  }

  /** Paths waiting for the next delivery. */
  get pending(): ReadonlyMap<string, FsChangeKind> {
    return this.#pending;
  }

  /**
   * A tool call of the session that may write started.
   *
   * @param id The call's id.
   * @param paths The absolute paths its arguments name.
   * @param everything True for a call that names no path (a shell command:
   * any path may be its).
   */
  callStarted(id: string, paths: readonly string[], everything: boolean): void {
    this.#calls.set(id, { paths: new Set(paths), everything });
  }

  /**
   * A call of {@linkcode callStarted} ended.
   *
   * @param id The call's id.
   */
  callEnded(id: string): void {
    const c = this.#calls.get(id);
    if (c) c.endedAt = this.#now();
  }

  /**
   * A change the watcher saw.
   *
   * @param kind What happened.
   * @param path The absolute path.
   */
  observe(kind: FsChangeKind, path: string): void {
    if (this.#isOwn(path)) {
      this.ignored.add(path);
      return;
    }
    const had = this.#pending.get(path);
    // A file created then written is still new; anything then removed is gone.
    if (had === "created" && kind === "modified") return;
    this.#pending.set(path, kind);
  }

  /**
   * Posts the pending changes as one `fs-change` block; over the rate
   * limit they stay for the next boundary.
   *
   * @param plane The session's control plane.
   */
  flushTo(plane: ControlPlane): void {
    if (this.#pending.size === 0) return;
    const body = this.#body();
    const outcome = plane.post({ channel: "fs-change", attrs: {}, body });
    if (outcome !== "rate_limited") this.#pending = new Map();
  }

  #isOwn(path: string): boolean {
    const now = this.#now();
    let own = false;
    for (const [id, c] of this.#calls) {
      if (c.endedAt !== undefined && now - c.endedAt > SELF_WRITE_GRACE_MS) {
        this.#calls.delete(id);
        continue;
      }
      if (
        c.everything &&
        (c.endedAt === undefined || now - c.endedAt <= SELF_COMMAND_GRACE_MS)
      ) own = true;
      else if (c.paths.has(path)) own = true;
    }
    return own;
  }

  #body(): string {
    const lines: string[] = [];
    for (const [path, kind] of this.#pending) {
      if (lines.length === FS_CHANGE_MAX_PATHS) break;
      lines.push(`${kind}: ${this.#name(path)}`);
    }
    const more = this.#pending.size - lines.length;
    if (more > 0) lines.push(`… and ${more} more`);
    return `Changed outside your tool calls:\n${lines.join("\n")}`;
  }

  #name(path: string): string {
    for (const root of this.#roots) {
      const rel = relative(root, path);
      if (rel && !rel.startsWith("..") && !isAbsolute(rel)) {
        return this.#roots.length === 1 ? rel : `${root}/${rel}`;
      }
    }
    return path;
  }
}

const KINDS: Readonly<Record<string, FsChangeKind>> = {
  create: "created",
  modify: "modified",
  remove: "removed",
  rename: "renamed",
};

/**
 * Watches the roots (recursively) and feeds {@linkcode FsChanges}; a root
 * that does not exist is skipped.
 *
 * @param changes Where the changes go.
 * @param roots Absolute directories.
 * @returns Stops the watcher.
 */
export function startFsWatch(
  changes: FsChanges,
  roots: readonly string[],
): () => void {
  const existing = roots.filter((r) => {
    try {
      return Deno.statSync(r).isDirectory;
    } catch {
      return false;
    }
  });
  if (existing.length === 0) return () => {};
  const watcher = Deno.watchFs(existing, { recursive: true });
  (async () => {
    for await (const e of watcher) {
      const kind = KINDS[e.kind];
      if (!kind) continue;
      for (const p of e.paths) changes.observe(kind, resolve(p));
    }
  })().catch(() => {}); // closed
  return () => {
    try {
      watcher.close();
    } catch {
      // already closed
    }
  };
}
