/**
 * Stage A decoding of `settings {}` (config.md §2.7) and the defaults that
 * apply when it, or any of its blocks, is absent.
 *
 * @module
 */
import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import type { Block, ObjectValue, Value } from "./hcl/mod.ts";

import {
  DEFAULT_OBSERVABILITY,
  DEFAULT_RETRY,
  DEFAULT_SUBSCRIBE_QUEUE_BOUND,
  LOG_LEVELS,
  type LogLevel,
  type ObservabilitySettings,
  type Settings,
} from "./plan.ts";
import {
  checkBody,
  checkEnum,
  diag,
  evalAttr,
  headerRange,
} from "./_schema.ts";
import {
  DEFAULT_SANDBOX_MODE,
  SANDBOX_MODES,
  type SandboxMode,
} from "../contract/sandbox.ts";

/**
 * The settings used when `settings {}` or any of its blocks is absent.
 *
 * @returns Fresh defaults.
 */
export function defaultSettings(): Settings {
  return {
    logLevel: "info",
    telemetry: false,
    telemetryDeclared: false,
    retry: { ...DEFAULT_RETRY },
    observability: { ...DEFAULT_OBSERVABILITY },
    observabilityDeclared: false,
    eventBus: { subscribeQueueBound: DEFAULT_SUBSCRIBE_QUEUE_BOUND },
    sandbox: DEFAULT_SANDBOX_MODE,
  };
}

/**
 * Decodes the `settings {}` block (config.md §2.7): `log_level`,
 * `telemetry`, `retry {}`, `observability {}` and `event_bus {}`, over
 * {@linkcode defaultSettings}.
 *
 * @param block The block.
 * @param diagnostics Where problems go.
 * @returns The settings, defaults where a value is absent or invalid.
 */
export function decodeSettings(
  block: Block,
  diagnostics: Diagnostic[],
): Settings {
  const s = defaultSettings();
  const { attrs, blocks } = checkBody(
    block.body,
    {
      attributes: {
        default_frontend: { type: "string" },
        log_level: { type: "string" },
        telemetry: { type: "bool" },
        sandbox: { type: "string" },
      },
      blocks: {
        retry: { labels: [], unique: "type" },
        observability: { labels: [], unique: "type" },
        event_bus: { labels: [], unique: "type" },
      },
    },
    "settings",
    diagnostics,
    headerRange(block),
  );
  const get = (n: string, t: "string" | "bool"): Value | undefined => {
    const a = attrs.get(n);
    return a ? evalAttr(a, t, "settings", diagnostics) : undefined;
  };
  const frontend = get("default_frontend", "string");
  if (typeof frontend === "string") {
    s.defaultFrontend = frontend;
    s.defaultFrontendRange = attrs.get("default_frontend")!.expr.range;
  }
  const level = get("log_level", "string");
  if (
    typeof level === "string" &&
    checkEnum(
      level,
      LOG_LEVELS,
      "log_level",
      "settings",
      attrs.get("log_level")!.expr.range,
      diagnostics,
    )
  ) s.logLevel = level as LogLevel;
  const telemetry = get("telemetry", "bool");
  const sandbox = get("sandbox", "string");
  if (
    typeof sandbox === "string" &&
    checkEnum(
      sandbox,
      SANDBOX_MODES,
      "sandbox",
      "settings",
      attrs.get("sandbox")!.expr.range,
      diagnostics,
    )
  ) s.sandbox = sandbox as SandboxMode;

  const retry = blocks.get("retry")?.[0];
  if (retry !== undefined) {
    const r = numbersBlock(retry, "retry in settings", {
      base_delay_ms: { whole: true, min: 0 },
      backoff_factor: { whole: false, min: 0, exclusive: true },
      max_retries: { whole: true, min: 0 },
    }, diagnostics);
    if (r !== undefined) {
      s.retry = {
        baseDelayMs: r.base_delay_ms!,
        backoffFactor: r.backoff_factor!,
        maxRetries: r.max_retries!,
      };
    }
  }

  const obs = blocks.get("observability")?.[0];
  if (obs !== undefined) {
    s.observabilityDeclared = true;
    const o = decodeObservability(obs, diagnostics);
    if (o !== undefined) s.observability = o;
  }

  const bus = blocks.get("event_bus")?.[0];
  if (bus !== undefined) {
    const b = numbersBlock(bus, "event_bus in settings", {
      subscribe_queue_bound: { whole: true, min: 1, optional: true },
    }, diagnostics);
    if (b?.subscribe_queue_bound !== undefined) {
      s.eventBus.subscribeQueueBound = b.subscribe_queue_bound;
    }
  }
  if (typeof telemetry === "boolean") {
    s.telemetry = telemetry;
    s.telemetryDeclared = true;
  } else {
    s.telemetry = s.observabilityDeclared;
  }
  if (s.telemetry && s.observability.serviceName === "") {
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      'Empty "service_name"',
      "With telemetry on, observability.service_name must not be empty.",
      attrs.get("telemetry")?.range ?? headerRange(block),
    ));
  }
  return s;
}

interface NumberRule {
  whole: boolean;
  min: number;
  max?: number;
  exclusive?: boolean;
  optional?: boolean;
}

function checkNumber(
  v: number,
  name: string,
  rule: NumberRule,
  where: string,
  range: SourceRange,
  diagnostics: Diagnostic[],
): boolean {
  let why: string | undefined;
  if (rule.whole && !Number.isInteger(v)) {
    why =
      `must be a whole number, got ${v} (fractions are not rounded or truncated)`;
  } else if (rule.exclusive ? !(v > rule.min) : !(v >= rule.min)) {
    why = `must be ${
      rule.exclusive ? "greater than" : "at least"
    } ${rule.min}, got ${v}`;
  } else if (rule.max !== undefined && v > rule.max) {
    why = `must be at most ${rule.max}, got ${v}`;
  }
  if (why === undefined) return true;
  diagnostics.push(diag(
    "error",
    "E_INVALID_VALUE",
    `Invalid value for "${name}"`,
    `The attribute "${name}" of ${where} ${why}.`,
    range,
  ));
  return false;
}

function numbersBlock<K extends string>(
  block: Block,
  where: string,
  rules: Record<K, NumberRule>,
  diagnostics: Diagnostic[],
): Partial<Record<K, number>> | undefined {
  const attributes: Record<string, { type: "number"; required: boolean }> = {};
  for (const [k, r] of Object.entries(rules) as [K, NumberRule][]) {
    attributes[k] = { type: "number", required: !r.optional };
  }
  const before = diagnostics.length;
  const { attrs } = checkBody(
    block.body,
    { attributes, blocks: {} },
    where,
    diagnostics,
    headerRange(block),
  );
  const out: Partial<Record<K, number>> = {};
  for (const [k, r] of Object.entries(rules) as [K, NumberRule][]) {
    const a = attrs.get(k);
    if (a === undefined) continue;
    const v = evalAttr(a, "number", where, diagnostics);
    if (
      typeof v === "number" &&
      checkNumber(v, k, r, where, a.expr.range, diagnostics)
    ) {
      out[k] = v;
    }
  }
  return diagnostics.length > before ? undefined : out;
}

function decodeObservability(
  block: Block,
  diagnostics: Diagnostic[],
): ObservabilitySettings | undefined {
  const where = "observability in settings";
  const before = diagnostics.length;
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        endpoint: { type: "string", required: true },
        protocol: { type: "string", required: true },
        sampling_ratio: { type: "number", required: true },
        traces_enabled: { type: "bool", required: true },
        metrics_enabled: { type: "bool", required: true },
        logs_enabled: { type: "bool", required: true },
        export_interval_ms: { type: "number", required: true },
        service_name: { type: "string", required: true },
        resource_attrs: { type: "map(string)" },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const v = (n: string, t: "string" | "number" | "bool" | "map(string)") => {
    const a = attrs.get(n);
    return a ? evalAttr(a, t, where, diagnostics) : undefined;
  };
  const protocol = v("protocol", "string");
  if (typeof protocol === "string") {
    checkEnum(
      protocol,
      ["grpc", "http"],
      "protocol",
      where,
      attrs.get("protocol")!.expr.range,
      diagnostics,
    );
  }
  const ratio = v("sampling_ratio", "number");
  if (typeof ratio === "number") {
    checkNumber(
      ratio,
      "sampling_ratio",
      { whole: false, min: 0, max: 1 },
      where,
      attrs.get("sampling_ratio")!.expr.range,
      diagnostics,
    );
  }
  const interval = v("export_interval_ms", "number");
  if (typeof interval === "number") {
    checkNumber(
      interval,
      "export_interval_ms",
      { whole: true, min: 0 },
      where,
      attrs.get("export_interval_ms")!.expr.range,
      diagnostics,
    );
  }
  const o = {
    endpoint: v("endpoint", "string"),
    traces: v("traces_enabled", "bool"),
    metrics: v("metrics_enabled", "bool"),
    logs: v("logs_enabled", "bool"),
    service: v("service_name", "string"),
    attrs: v("resource_attrs", "map(string)"),
  };
  if (diagnostics.length > before) return undefined;
  const out: ObservabilitySettings = {
    endpoint: o.endpoint as string,
    protocol: protocol as "grpc" | "http",
    samplingRatio: ratio as number,
    tracesEnabled: o.traces as boolean,
    metricsEnabled: o.metrics as boolean,
    logsEnabled: o.logs as boolean,
    exportIntervalMs: interval as number,
    serviceName: o.service as string,
  };
  if (o.attrs !== undefined) {
    const sorted: Record<string, string> = {};
    for (const k of Object.keys(o.attrs as ObjectValue).sort()) {
      sorted[k] = (o.attrs as Record<string, string>)[k]!;
    }
    out.resourceAttrs = sorted;
  }
  return out;
}
