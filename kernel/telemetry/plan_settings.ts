/**
 * The relay's settings from a compiled plan's `settings` block
 * ({@linkcode telemetrySettingsOf}): what plugins see through
 * GetTelemetryConfig and the Log floor, and where the kernel exports.
 *
 * @module
 */
import { LogLevel } from "../../proto/gen/pluggableharness/log/v1/types_pb.ts";
import type { TelemetrySettings } from "./relay.ts";

const LOG_LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.TRACE,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.FATAL,
};

/**
 * The telemetry plugins see (GetTelemetryConfig, the Log floor) and the
 * relay's export target, from the plan's `settings`: exported only with
 * telemetry on and an OTLP/HTTP endpoint.
 *
 * @example Usage
 * ```ts
 * import { telemetrySettingsOf } from "./plan_settings.ts";
 * import assert from "node:assert/strict";
 * const settings = telemetrySettingsOf({
 *   telemetry: false,
 *   logLevel: "warn",
 *   observability: {
 *     endpoint: "127.0.0.1:4318",
 *     protocol: "http",
 *     samplingRatio: 1,
 *     tracesEnabled: true,
 *     metricsEnabled: true,
 *     logsEnabled: true,
 *     exportIntervalMs: 60000,
 *     serviceName: "agent",
 *   },
 * });
 * assert.equal(settings.tracesEnabled, false);
 * assert.equal(settings.endpoint, undefined);
 * ```
 *
 * @param settings The plan's `settings` (the fields read here).
 * @returns The relay's settings.
 */
export function telemetrySettingsOf(settings: {
  telemetry: boolean;
  logLevel: string;
  observability: {
    endpoint: string;
    protocol: string;
    samplingRatio: number;
    tracesEnabled: boolean;
    metricsEnabled: boolean;
    logsEnabled: boolean;
    exportIntervalMs: number;
    serviceName: string;
  };
}): TelemetrySettings {
  const o = settings.observability;
  const exported = settings.telemetry && o.protocol === "http";
  return {
    tracesEnabled: exported && o.tracesEnabled,
    metricsEnabled: exported && o.metricsEnabled,
    logsEnabled: o.logsEnabled,
    logLevel: LOG_LEVELS[settings.logLevel] ?? LogLevel.INFO,
    samplingRatio: o.samplingRatio,
    exportIntervalMs: o.exportIntervalMs,
    serviceName: o.serviceName,
    ...(exported
      ? {
        endpoint: o.endpoint.startsWith("http")
          ? o.endpoint
          : `http://${o.endpoint}`,
      }
      : {}),
  };
}
