/**
 * Background commands a session watches ({@linkcode ShellWatch}): a tool
 * call that answered `status: "background"` with a `background_id` is
 * watched until its exit arrives (`shell-exit`); when the tool provider
 * that runs it crashes, the watched commands are lost — reported once as
 * `<cp:shell-notice kind="command-terminated">` and a
 * `<cp:shell-exit terminated="…">` per command, never re-run — so the agent
 * reconciles instead of waiting for an exit that cannot come.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ControlPlane } from "./control_plane.ts";

/** The watched background commands of one session, by tool provider. */
export class ShellWatch {
  readonly #byProvider = new Map<string, Set<string>>();
  #waiters: (() => void)[] = [];

  /** How many background commands are watched now. */
  get pending(): number {
    let n = 0;
    for (const ids of this.#byProvider.values()) n += ids.size;
    return n;
  }

  /**
   * Resolves at the next change of the watched set (a command watched,
   * exited or lost), or when the signal aborts.
   *
   * @param signal Stops waiting.
   * @returns When the set changed.
   */
  changed(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener("abort", done);
        this.#waiters = this.#waiters.filter((w) => w !== done);
        resolve();
      };
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.push(done);
    });
  }

  #notify(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /**
   * Watches a call's background command when its result names one.
   *
   * @param provider The tool provider that runs it.
   * @param result The call's result.
   */
  noteResult(provider: string, result: JsonObject): void {
    if (result.status !== "background") return;
    const id = result.background_id;
    if (typeof id !== "string" || id === "") return;
    let ids = this.#byProvider.get(provider);
    if (!ids) this.#byProvider.set(provider, ids = new Set());
    ids.add(id);
    this.#notify();
  }

  /**
   * Stops watching a command whose exit arrived.
   *
   * @param id The command's id.
   */
  exited(id: string): void {
    for (const ids of this.#byProvider.values()) ids.delete(id);
    this.#notify();
  }

  /**
   * The commands of a crashed provider: no longer watched, returned once.
   *
   * @param provider The provider.
   * @returns The lost ids, oldest first.
   */
  lost(provider: string): string[] {
    const ids = this.#byProvider.get(provider);
    this.#byProvider.delete(provider);
    if (ids?.size) this.#notify();
    return ids ? [...ids] : [];
  }
}

/**
 * Reports the commands a crashed provider took down with it.
 *
 * @param plane The session's control plane.
 * @param provider The crashed provider.
 * @returns The lost ids.
 */
export function postLostCommands(
  plane: ControlPlane,
  provider: string,
): string[] {
  const ids = plane.shells.lost(provider);
  if (ids.length === 0) return ids;
  plane.post({
    channel: "shell-notice",
    attrs: { kind: "command-terminated" },
    body: `The "${provider}" tool provider crashed; its background commands ${
      ids.join(", ")
    } were terminated with it. Their outcome is unknown and they are never re-run automatically: check their effects before running them again.`,
    source: provider,
  });
  for (const id of ids) {
    plane.post({
      channel: "shell-exit",
      attrs: { "exec-id": id, terminated: "provider-crashed" },
      body:
        `The background command ${id} was lost when "${provider}" crashed; no exit status will come.`,
      source: provider,
    });
  }
  return ids;
}
