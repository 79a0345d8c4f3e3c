/**
 * The kernel's handlers for `KernelCallbackService`, one instance per
 * launched plugin with that plugin's identity bound at construction. The
 * producer identity is never read from a request.
 *
 * This transport-level implementation serves the plugin-scoped RPCs that
 * need no session state (Log, CountTokens, GetTelemetryConfig, GetConfig).
 * The session-scoped RPCs answer `UNIMPLEMENTED` until a session store is
 * attached (see {@linkcode CallbackServiceOptions.extend}).
 *
 * @module
 */
import { getLogger, type LogLevel as LogTapeLevel } from "@logtape/logtape";
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, GrpcStatusError } from "../proto/grpc_adapter.ts";
import { LogLevel } from "../proto/gen/pluggableharness/log/v1/types_pb.ts";
import type { CallbackImpl } from "./callback_host.ts";
import { fallbackTokenCount } from "./tokens.ts";
import { logAt } from "./_log.ts";
import type { PluginIdentity } from "./plugin_identity.ts";

/** Telemetry settings a plugin learns through `GetTelemetryConfig`. */
export interface TelemetrySettings {
  /** Whether spans are exported. */
  tracesEnabled: boolean;
  /** Whether metrics are exported. */
  metricsEnabled: boolean;
  /** Whether plugin logs are kept. */
  logsEnabled: boolean;
  /** The floor below which Log entries are accepted and discarded. */
  logLevel: LogLevel;
  /** The trace sampling ratio. */
  samplingRatio: number;
}

/** The default telemetry: logs on at INFO, traces and metrics off. */
export const DEFAULT_TELEMETRY: TelemetrySettings = {
  tracesEnabled: false,
  metricsEnabled: false,
  logsEnabled: true,
  logLevel: LogLevel.INFO,
  samplingRatio: 1,
};

/** Options for {@linkcode createCallbackService}. */
export interface CallbackServiceOptions {
  /** The calling plugin's identity, fixed for the connection. */
  identity: PluginIdentity;
  /** The plugin's decoded config, returned by GetConfig. Never logged. */
  config?: JsonObject;
  /** Telemetry settings. */
  telemetry?: TelemetrySettings;
  /** Handlers that replace the defaults (e.g. session-scoped RPCs). */
  extend?: Partial<CallbackImpl>;
}

const LEVELS: Record<LogLevel, LogTapeLevel | undefined> = {
  [LogLevel.UNSPECIFIED]: undefined,
  [LogLevel.TRACE]: "trace",
  [LogLevel.DEBUG]: "debug",
  [LogLevel.INFO]: "info",
  [LogLevel.WARN]: "warning",
  [LogLevel.ERROR]: "error",
  [LogLevel.FATAL]: "fatal",
};

function unimplemented(rpc: string): never {
  throw new GrpcStatusError(
    Code.UNIMPLEMENTED,
    `${rpc} is not available: this kernel has no session store attached`,
  );
}

/**
 * Builds the callback handlers for one plugin.
 *
 * @param options The plugin's identity, config and telemetry settings.
 * @returns Handlers for every RPC of `KernelCallbackService`.
 */
export function createCallbackService(
  options: CallbackServiceOptions,
): CallbackImpl {
  const { identity } = options;
  const telemetry = options.telemetry ?? DEFAULT_TELEMETRY;
  const pluginLog = getLogger(["ph-agent", "plugin", identity.name]);
  const kernelLog = getLogger(["ph-agent", "kernel", "callback"]);
  const producer = `${identity.category}/${identity.name}@${identity.version}`;

  const base: CallbackImpl = {
    log: (req) => {
      if (req.entries.length === 0) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          "Log needs at least one entry",
        );
      }
      let valid = 0;
      for (const [i, e] of req.entries.entries()) {
        const level = LEVELS[e.level];
        if (level === undefined || e.message === "" || e.time === undefined) {
          const missing = [
            level === undefined ? "level" : "",
            e.message === "" ? "message" : "",
            e.time === undefined ? "time" : "",
          ].filter(Boolean).join(", ");
          kernelLog.warn(
            "Skipped malformed log entry {index} from plugin {producer}: missing {missing}",
            { index: i, producer, missing },
          );
          continue;
        }
        valid++;
        if (!telemetry.logsEnabled || e.level < telemetry.logLevel) continue;
        const logger = e.logger ? pluginLog.getChild(e.logger) : pluginLog;
        logAt(logger, level, e.message, {
          ...(e.fields ?? {}),
          producer,
          ...(req.sessionId ? { session: req.sessionId } : {}),
          pluginTime: timestampDate(e.time).toISOString(),
        });
      }
      if (valid === 0) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          `every one of the ${req.entries.length} log entries is malformed (each needs level, message and time)`,
        );
      }
      return {};
    },
    countTokens: (req) => {
      if (req.content.length === 0) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          "CountTokens needs at least one content block",
        );
      }
      return { count: BigInt(fallbackTokenCount(req.content)), exact: false };
    },
    getTelemetryConfig: () => ({
      tracesEnabled: telemetry.tracesEnabled,
      metricsEnabled: telemetry.metricsEnabled,
      logsEnabled: telemetry.logsEnabled,
      logLevel: telemetry.logLevel,
      samplingRatio: telemetry.samplingRatio,
    }),
    // Deliberately unlogged: the config may hold resolved secrets.
    getConfig: () => ({ config: options.config ?? {} }),
    runSession: () => unimplemented("RunSession"),
    emit: () => unimplemented("Emit"),
    exportSpans: () => unimplemented("ExportSpans"),
    recordMetrics: () => unimplemented("RecordMetrics"),
    publish: () => unimplemented("Publish"),
    subscribe: () => unimplemented("Subscribe"),
    readEvents: () => unimplemented("ReadEvents"),
    getSession: () => unimplemented("GetSession"),
    getSessionState: () => unimplemented("GetSessionState"),
    submitInput: () => unimplemented("SubmitInput"),
    resolvePlanDecision: () => unimplemented("ResolvePlanDecision"),
    resolveInteractive: () => unimplemented("ResolveInteractive"),
    interrupt: () => unimplemented("Interrupt"),
    createSession: () => unimplemented("CreateSession"),
    attachSession: () => unimplemented("AttachSession"),
    resumeSession: () => unimplemented("ResumeSession"),
    detachSession: () => unimplemented("DetachSession"),
    listSessions: () => unimplemented("ListSessions"),
    publishMetadata: () => unimplemented("PublishMetadata"),
    retractMetadata: () => unimplemented("RetractMetadata"),
    listMetadata: () => unimplemented("ListMetadata"),
    streamDeltas: () => unimplemented("StreamDeltas"),
    invokeSlashCommand: () => unimplemented("InvokeSlashCommand"),
    triggerAction: () => unimplemented("TriggerAction"),
  };
  return { ...base, ...options.extend } as CallbackImpl;
}
