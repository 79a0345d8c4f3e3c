/**
 * A claim on a stored session ({@linkcode tryClaimSession}): the process
 * that resumes a stored session to run a wake turn in it (`agent trigger`,
 * `agent trigger --due`) first claims it, so two triggers racing for one
 * stored session never both drive it. The claim is a file
 * `<project>/.agent/run/<session>.claim` holding the claimant's pid, host
 * and process start time, created atomically (written under a temporary
 * name, then hard-linked into place: the link fails when the file
 * exists). A claim whose process is gone (killed, machine rebooted) is
 * taken over.
 *
 * @module
 */
import { join } from "node:path";
import { currentOwner, isOwnerGone } from "../state/_owner.ts";
import type { SessionOwner } from "../state/session_store.ts";
import { ensureRunDir, findLiveHolder } from "./control_endpoint.ts";

/** A claim held by this process. */
export interface SessionClaim extends AsyncDisposable {
  /** The claim file. */
  readonly path: string;
  /** Removes the claim when it is still this process's (idempotent). */
  release(): Promise<void>;
}

/** The outcome of {@linkcode tryClaimSession}. */
export type ClaimOutcome =
  | { readonly claimed: true; readonly claim: SessionClaim }
  | { readonly claimed: false; readonly holder: SessionOwner };

const SESSION_ID_REGEXP = /^[0-9A-Za-z]{1,64}$/;

/**
 * Claims a stored session for this process.
 *
 * @param runDir The project's run directory.
 * @param sessionId The session.
 * @returns The claim, or who holds it.
 * @throws {TypeError} When the session id is not a plain id.
 */
export async function tryClaimSession(
  runDir: string,
  sessionId: string,
): Promise<ClaimOutcome> {
  if (!SESSION_ID_REGEXP.test(sessionId)) {
    throw new TypeError(
      `Cannot claim session ${
        JSON.stringify(sessionId)
      }: a session id has only letters and digits`,
    );
  }
  let cleanup = await ensureRunDir(runDir);
  const path = join(runDir, `${sessionId}.claim`);
  const me = currentOwner();
  const text = JSON.stringify(me);
  for (let attempt = 0; attempt < 3; attempt++) {
    const temp = `${path}.${Deno.pid}.${attempt}.tmp`;
    await writeInRunDir(temp, text, async () => {
      // Another process's cleanup removed the empty directory between our
      // mkdir and this write: make it again. Once the temporary file is in
      // it, the directory is not empty and nobody's cleanup can remove it.
      cleanup = await ensureRunDir(runDir);
    });
    try {
      await Deno.link(temp, path);
      return { claimed: true, claim: claimOf(path, text, cleanup) };
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    } finally {
      await Deno.remove(temp).catch(() => {});
    }
    const holder = await readClaim(path);
    if (holder === undefined) continue; // released meanwhile: try again
    if (!isOwnerGone(holder)) return { claimed: false, holder };
    // A dead claimant's file: take it over (remove only that very file).
    const again = await Deno.readTextFile(path).catch(() => undefined);
    if (again === JSON.stringify(holder)) {
      await Deno.remove(path).catch(() => {});
    }
  }
  const holder = await readClaim(path);
  if (!holder) await cleanup();
  return {
    claimed: false,
    holder: holder ?? { pid: 0, host: "", startTime: "" },
  };
}

/** Writes `temp`, making the run directory again (at most twice) if it went. */
async function writeInRunDir(
  temp: string,
  text: string,
  remake: () => Promise<void>,
): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      await Deno.writeTextFile(temp, text, { mode: 0o600 });
      return;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound) || attempt >= 2) throw err;
      await remake();
    }
  }
}

async function readClaim(path: string): Promise<SessionOwner | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (
      typeof v.pid === "number" && typeof v.host === "string" &&
      typeof v.startTime === "string"
    ) return { pid: v.pid, host: v.host, startTime: v.startTime };
  } catch {
    // Not a claim we wrote: treat it as held by an unknown process.
  }
  return { pid: 0, host: "", startTime: "" };
}

function claimOf(
  path: string,
  text: string,
  cleanup: () => Promise<void>,
): SessionClaim {
  let released: Promise<void> | undefined;
  const release = () =>
    released ??= (async () => {
      const now = await Deno.readTextFile(path).catch(() => undefined);
      if (now === text) await Deno.remove(path).catch(() => {});
      await cleanup();
    })();
  return { path, release, [Symbol.asyncDispose]: release };
}

/**
 * Claims a stored session that a command is about to resume and drive
 * (`agent --resume`, `agent run --resume`), so that neither a trigger nor
 * another resume drives it at the same time. A claim whose process is
 * gone is taken over, as by {@linkcode tryClaimSession}.
 *
 * @example Usage
 * ```ts ignore
 * await using _claim = await claimForResume(".agent/run", sessionId);
 * ```
 *
 * @param runDir The project's run directory.
 * @param sessionId The session.
 * @returns The claim, held until it is released (or disposed).
 * @throws {Error} When a live process of this project holds the session
 * (it names the pid and what to use instead), or another process has
 * claimed it.
 * @throws {TypeError} When the session id is not a plain id.
 */
export async function claimForResume(
  runDir: string,
  sessionId: string,
): Promise<SessionClaim> {
  const holder = await findLiveHolder(runDir, sessionId);
  if (holder !== undefined) {
    throw new Error(
      `Session ${sessionId} is open in process ${holder}: use "agent attach ${sessionId}" to follow it or "agent trigger ${sessionId} TEXT" to send it work`,
    );
  }
  const c = await tryClaimSession(runDir, sessionId);
  if (!c.claimed) {
    throw new Error(
      `Session ${sessionId} is being driven by process ${c.holder.pid} (a trigger resumed it): try again when it has finished`,
    );
  }
  return c.claim;
}
