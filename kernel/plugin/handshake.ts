/**
 * Reading a plugin's go-plugin handshake line (`CORE|APP|NETWORK|ADDR|grpc`,
 * parsed by `proto/handshake.ts`) from its stdout, bounded by the start
 * timeout and the launch's abort signal, and mapping every way it can go
 * wrong to a `PluginStartError` code.
 *
 * @module
 */
import {
  APP_PROTOCOL_VERSION,
  type Handshake,
  HandshakeError,
  parseHandshakeLine,
} from "../../proto/handshake.ts";
import { readHandshake } from "../process/_process_output.ts";
import { describeExit, type ExitInfo } from "./errors.ts";
import { StartFailure } from "./_start_failure.ts";

/** Options for {@linkcode awaitHandshake}. */
export interface AwaitHandshakeOptions {
  /** Milliseconds to wait for the line. */
  timeoutMs: number;
  /** Aborting stops the wait. */
  signal?: AbortSignal;
  /** Resolves when the plugin has exited (to say how it ended). */
  exited: Promise<ExitInfo>;
  /** Receives every stdout chunk after the handshake line. */
  afterHandshake: (chunk: Uint8Array) => void;
  /**
   * The host offered the framed transport (`frame` in the line is
   * accepted). @default {false}
   */
  frame?: boolean;
}

/**
 * Waits for a plugin's handshake line and validates it.
 *
 * @param stdout The plugin's stdout.
 * @param options The time limit, abort signal, exit and stdout relay.
 * @returns The accepted handshake.
 * @throws {StartFailure} When the line is late, missing, too long or
 * refused.
 */
export async function awaitHandshake(
  stdout: ReadableStream<Uint8Array>,
  options: AwaitHandshakeOptions,
): Promise<Handshake> {
  const { timeoutMs, signal } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => {
    timer = setTimeout(() => r("timeout"), timeoutMs);
  });
  const aborted = new Promise<"aborted">((r) => {
    if (signal?.aborted) r("aborted");
    signal?.addEventListener("abort", () => r("aborted"), { once: true });
  });
  const first = await Promise.race([
    readHandshake(stdout, options.afterHandshake),
    timeout,
    aborted,
  ]);
  clearTimeout(timer);
  if (first === "aborted") {
    throw new StartFailure("plugin_start_timeout", "the launch was cancelled");
  }
  if (first === "timeout") {
    throw new StartFailure(
      "plugin_start_timeout",
      `no handshake line within ${timeoutMs} ms (expected "CORE|APP|NETWORK|ADDR|grpc" on stdout)`,
    );
  }
  if (first.kind === "eof") {
    const exit = await Promise.race([
      options.exited,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000)),
    ]);
    const how = exit
      ? `it exited (${describeExit(exit)})`
      : "it closed its stdout";
    const printed = first.preview
      ? `; it printed ${JSON.stringify(first.preview)}`
      : "";
    throw new StartFailure(
      "plugin_exited_before_handshake",
      `${how} before printing a handshake line${printed}`,
    );
  }
  if (first.kind === "too_long") {
    throw new StartFailure(
      "plugin_handshake_invalid",
      `it printed more than 4096 bytes without a newline before its handshake line, starting ${
        JSON.stringify(first.preview)
      }`,
    );
  }
  return acceptHandshakeLine(first.line, options.frame ?? false);
}

/**
 * Validates a handshake line against the protocol version this kernel
 * speaks.
 *
 * @param line The plugin's first stdout line.
 * @param frame The host offered the framed transport.
 * @returns The accepted handshake.
 * @throws {StartFailure} `plugin_version_mismatch` for another application
 * protocol version, `plugin_handshake_invalid` for anything else refused.
 */
export function acceptHandshakeLine(line: string, frame = false): Handshake {
  try {
    return parseHandshakeLine(
      line,
      [APP_PROTOCOL_VERSION],
      frame ? ["grpc", "frame"] : ["grpc"],
    );
  } catch (err) {
    const code =
      err instanceof HandshakeError && err.code === "handshake_app_version"
        ? "plugin_version_mismatch"
        : "plugin_handshake_invalid";
    throw new StartFailure(code, (err as Error).message, { cause: err });
  }
}
