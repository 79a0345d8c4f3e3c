/**
 * The installation key: 32 random bytes that key the session event chain
 * (HMAC-SHA-256, see `hash_chain.ts`) and the MAC of every chain head, so
 * that someone who can write a session file but cannot read this key can
 * neither recompute the chain after an edit nor hide a deleted tail.
 *
 * It lives in `$XDG_DATA_HOME/agent/installation.key` (else
 * `~/.local/share/agent/installation.key`), mode 0600 in a 0700 directory,
 * and is created atomically on first use: the bytes are written to a
 * private temporary file that is then hard-linked to the final name, so a
 * second process racing the first either wins the link or reads the
 * winner's complete key, never a partial one. Only the kernel reads it;
 * plugins never get it (kernel.md §3.15).
 *
 * A key file that others may read or write (any group or other permission
 * bit) is refused, not silently repaired: it may already have been copied,
 * and a chain keyed with a leaked key proves nothing. The error says how to
 * fix it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { InstallationKeyError } from "./errors.ts";

/** The length of the installation key in bytes. */
export const INSTALLATION_KEY_BYTES = 32;

/** A loaded installation key. */
export interface InstallationKey {
  /** The 32 secret bytes. */
  readonly bytes: Uint8Array;
  /**
   * A public fingerprint of the key (16 hex digits of
   * `SHA-256("ph-agent/installation-key-id" ‖ key)`), stored in each keyed
   * session file so a file keyed elsewhere is recognised as such.
   */
  readonly id: string;
}

/**
 * The default path of the installation key:
 * `$XDG_DATA_HOME/agent/installation.key`, or
 * `~/.local/share/agent/installation.key` when `XDG_DATA_HOME` is unset or
 * not absolute.
 *
 * @example Usage
 * ```ts
 * import { defaultInstallationKeyPath } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   defaultInstallationKeyPath((k) => k === "HOME" ? "/home/me" : undefined),
 *   "/home/me/.local/share/agent/installation.key",
 * );
 * ```
 *
 * @param getEnv Reads an environment variable (default `Deno.env.get`).
 * @returns The path.
 * @throws {Error} When neither `XDG_DATA_HOME` nor `HOME` is set.
 */
export function defaultInstallationKeyPath(
  getEnv: (name: string) => string | undefined = (n) => Deno.env.get(n),
): string {
  const xdg = getEnv("XDG_DATA_HOME");
  if (xdg && xdg.startsWith("/")) return `${xdg}/agent/installation.key`;
  const home = getEnv("HOME");
  if (!home) {
    throw new Error(
      "Cannot locate the installation key: neither XDG_DATA_HOME nor HOME is set",
    );
  }
  return `${home}/.local/share/agent/installation.key`;
}

/**
 * The public fingerprint of a key (see {@linkcode InstallationKey.id}).
 *
 * @example Usage
 * ```ts
 * import { installationKeyId } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.match(installationKeyId(new Uint8Array(32)), /^[0-9a-f]{16}$/);
 * ```
 *
 * @param bytes The key.
 * @returns 16 hex digits.
 */
export function installationKeyId(bytes: Uint8Array): string {
  return createHash("sha256").update("ph-agent/installation-key-id")
    .update(bytes).digest("hex").slice(0, 16);
}

/**
 * Wraps 32 bytes as a key (for tests and for stores that keep no file).
 *
 * @example Usage
 * ```ts
 * import { installationKeyFromBytes } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const key = installationKeyFromBytes(crypto.getRandomValues(new Uint8Array(32)));
 * assert.equal(key.bytes.length, 32);
 * ```
 *
 * @param bytes 32 bytes.
 * @returns The key.
 * @throws {RangeError} When `bytes` is not 32 bytes long.
 */
export function installationKeyFromBytes(bytes: Uint8Array): InstallationKey {
  if (
    !(bytes instanceof Uint8Array) || bytes.length !== INSTALLATION_KEY_BYTES
  ) {
    throw new RangeError(
      `Cannot use an installation key of ${
        bytes?.length ?? 0
      } bytes: it must be ${INSTALLATION_KEY_BYTES}`,
    );
  }
  const copy = bytes.slice();
  return { bytes: copy, id: installationKeyId(copy) };
}

/** Options of {@linkcode loadInstallationKey}. */
export interface LoadInstallationKeyOptions {
  /**
   * Create the key when the file does not exist. Without it a missing key
   * is an error (what `agent sessions verify` wants: verifying must not
   * mint a new key that could never have signed anything).
   * @default {true}
   */
  readonly create?: boolean;
}

function readChecked(path: string): Uint8Array {
  const info = Deno.lstatSync(path);
  if (!info.isFile) {
    throw new InstallationKeyError(
      path,
      "it is not a regular file (a symbolic link or a directory is refused)",
    );
  }
  const mode = info.mode;
  if (mode !== null && (mode & 0o077) !== 0) {
    throw new InstallationKeyError(
      path,
      `its mode is ${
        (mode & 0o777).toString(8).padStart(4, "0")
      }, readable or writable by others; it may have leaked. Run "chmod 600 ${path}" if you are sure it did not, or delete it to start a new key (sessions keyed with the old one then verify as keyed by an unknown key)`,
    );
  }
  const bytes = Deno.readFileSync(path);
  if (bytes.length !== INSTALLATION_KEY_BYTES) {
    throw new InstallationKeyError(
      path,
      `it holds ${bytes.length} bytes, not ${INSTALLATION_KEY_BYTES}`,
    );
  }
  return bytes;
}

/**
 * Reads the installation key, creating it atomically (mode 0600, directory
 * 0700) when it does not exist yet.
 *
 * @example Usage
 * ```ts
 * import { loadInstallationKey } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const first = loadInstallationKey(`${dir}/agent/installation.key`);
 * const again = loadInstallationKey(`${dir}/agent/installation.key`);
 * assert.deepEqual(again, first);
 * assert.equal(Deno.statSync(`${dir}/agent/installation.key`).mode! & 0o777, 0o600);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param path The key file.
 * @param options Whether to create a missing key.
 * @returns The key.
 * @throws {InstallationKeyError} When the file is missing (without
 * `create`), has group or other permission bits, is not a regular file or
 * is not 32 bytes long.
 */
export function loadInstallationKey(
  path: string,
  options: LoadInstallationKeyOptions = {},
): InstallationKey {
  try {
    return installationKeyFromBytes(readChecked(path));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    if (options.create === false) {
      throw new InstallationKeyError(path, "it does not exist", {
        cause: error,
      });
    }
  }
  const dir = dirname(path);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  const file = Deno.openSync(tmp, {
    createNew: true,
    write: true,
    mode: 0o600,
  });
  try {
    const bytes = crypto.getRandomValues(
      new Uint8Array(INSTALLATION_KEY_BYTES),
    );
    let off = 0;
    while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    file.syncSync();
    file.close();
    try {
      // link() fails when the name exists: the first creator wins and
      // every other process reads the winner's complete key.
      Deno.linkSync(tmp, path);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  } finally {
    try {
      file.close();
    } catch { /* closed */ }
    try {
      Deno.removeSync(tmp);
    } catch { /* gone */ }
  }
  return installationKeyFromBytes(readChecked(path));
}
