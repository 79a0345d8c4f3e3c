/**
 * A plugin logger whose entries reach the kernel's logging through the
 * callback service's batched `Log` RPC.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { LogLevel } from "../../proto/gen/pluggableharness/log/v1/types_pb.ts";
import type { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import type { ServiceClient } from "../../proto/rpc.ts";

/** Options of one log call. */
export interface LogOptions {
  /** Attribute the entry to this session. */
  sessionId?: string;
  /** A dotted sub-logger, e.g. `"anthropic.retry"`. */
  logger?: string;
}

/** Six-level logger; entries are batched and sent with `Log`. */
export interface PluginLogger {
  /** Logs at TRACE. */
  trace(message: string, fields?: JsonObject, options?: LogOptions): void;
  /** Logs at DEBUG. */
  debug(message: string, fields?: JsonObject, options?: LogOptions): void;
  /** Logs at INFO. */
  info(message: string, fields?: JsonObject, options?: LogOptions): void;
  /** Logs at WARN. */
  warn(message: string, fields?: JsonObject, options?: LogOptions): void;
  /** Logs at ERROR. */
  error(message: string, fields?: JsonObject, options?: LogOptions): void;
  /** Logs at FATAL: a severity label only; nothing ends because of it. */
  fatal(message: string, fields?: JsonObject, options?: LogOptions): void;
  /** Sends everything buffered; resolves when the kernel has it. */
  flush(): Promise<void>;
}

const MAX_BATCH = 256;
const FLUSH_DELAY_MS = 20;

interface Pending {
  sessionId: string | undefined;
  entry: {
    level: LogLevel;
    logger: string;
    message: string;
    fields?: JsonObject;
    time: ReturnType<typeof timestampNow>;
  };
}

/** Options for {@linkcode createPluginLogger}. */
export interface PluginLoggerOptions {
  /**
   * The kernel's log floor: entries below it are dropped here, never sent
   * (the kernel would drop them), so that logging below the floor never
   * opens the callback channel. `"off"` drops every entry.
   * @default {LogLevel.TRACE (everything is sent)}
   */
  floor?: LogLevel | "off";
}

const FLOOR_NAMES: Readonly<Record<string, LogLevel | "off">> = {
  trace: LogLevel.TRACE,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.FATAL,
  off: "off",
};

/**
 * The log floor named by the kernel's `PLUGGABLEHARNESS_LOG_LEVEL` value.
 *
 * @example Usage
 * ```ts
 * import { parseLogFloor } from "./logger.ts";
 * import assert from "node:assert/strict";
 * assert.equal(parseLogFloor("off"), "off");
 * assert.equal(parseLogFloor("bogus"), undefined);
 * ```
 *
 * @param value The variable's value (case-insensitive), if set.
 * @returns The floor, or `undefined` when unset or unknown (send everything).
 */
export function parseLogFloor(
  value: string | undefined,
): LogLevel | "off" | undefined {
  return value === undefined ? undefined : FLOOR_NAMES[value.toLowerCase()];
}

/**
 * Creates a logger that batches entries per session and sends them through
 * `kernel().log(...)`. If the callback channel is unavailable the entries
 * are written to stderr as hclog-style JSON lines instead, so none is lost.
 * Entries below {@linkcode PluginLoggerOptions.floor} are dropped.
 *
 * @param kernel Resolves the kernel client.
 * @param options The kernel's log floor.
 * @returns The logger.
 */
export function createPluginLogger(
  kernel: () => Promise<ServiceClient<typeof KernelCallbackService>>,
  options: PluginLoggerOptions = {},
): PluginLogger {
  const floor = options.floor ?? LogLevel.TRACE;
  let buffer: Pending[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: Promise<void> = Promise.resolve();

  const send = async (batch: Pending[]) => {
    const bySession = new Map<string | undefined, Pending["entry"][]>();
    for (const p of batch) {
      const list = bySession.get(p.sessionId) ?? [];
      list.push(p.entry);
      bySession.set(p.sessionId, list);
    }
    for (const [sessionId, entries] of bySession) {
      try {
        const client = await kernel();
        await client.log(
          sessionId === undefined ? { entries } : { sessionId, entries },
        );
      } catch {
        for (const e of entries) {
          const line = JSON.stringify({
            "@level": LogLevel[e.level]?.toLowerCase() ?? "info",
            "@message": e.message,
            ...(e.logger ? { "@module": e.logger } : {}),
            ...(e.fields ?? {}),
          });
          Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
        }
      }
    }
  };

  const flush = (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const batch = buffer;
    buffer = [];
    if (batch.length > 0) inflight = inflight.then(() => send(batch));
    return inflight;
  };

  const log =
    (level: LogLevel) =>
    (message: string, fields?: JsonObject, options?: LogOptions): void => {
      if (floor === "off" || level < floor) return;
      const entry: Pending["entry"] = {
        level,
        logger: options?.logger ?? "",
        message,
        time: timestampNow(),
      };
      if (fields) entry.fields = fields;
      buffer.push({ sessionId: options?.sessionId, entry });
      if (buffer.length >= MAX_BATCH) void flush();
      else if (timer === undefined) {
        timer = setTimeout(() => void flush(), FLUSH_DELAY_MS);
      }
    };

  return {
    trace: log(LogLevel.TRACE),
    debug: log(LogLevel.DEBUG),
    info: log(LogLevel.INFO),
    warn: log(LogLevel.WARN),
    error: log(LogLevel.ERROR),
    fatal: log(LogLevel.FATAL),
    flush,
  };
}
