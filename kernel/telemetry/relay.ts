/**
 * The observability relay (kernel.md §5): plugins send their spans and
 * metrics to the kernel, which alone holds the collector configuration.
 *
 * - Spans pass unaltered (trace id, span id, parent, timestamps, attributes,
 *   events, links, status), with the producer's identity added to the
 *   exported *resource*, server-derived.
 * - Metrics are bounded before any exporter sees them: names are namespaced
 *   `plugin.{category}.{name}.{metric}`, at most
 *   {@linkcode MAX_METRIC_ATTRIBUTES} attribute keys are kept (sorted, the
 *   rest dropped and counted), keys and values are length-capped, and each
 *   metric keeps at most {@linkcode MAX_ATTRIBUTE_SETS} distinct attribute
 *   sets (further ones are folded into `otel.metric.overflow = "true"`).
 *
 * With an OTLP endpoint configured, export goes through the OpenTelemetry
 * JS SDK (OTLP/HTTP, JSON), loaded on first use; without one, records are
 * counted and dropped.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { LogLevel } from "../../proto/gen/pluggableharness/log/v1/types_pb.ts";
import type { Span } from "../../proto/gen/pluggableharness/trace/v1/types_pb.ts";
import {
  MetricKind,
  type MetricRecord,
} from "../../proto/gen/pluggableharness/metric/v1/types_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";

/** Attribute keys kept per metric record. */
export const MAX_METRIC_ATTRIBUTES = 8;
/** Longest attribute key kept (longer keys are dropped). */
export const MAX_ATTRIBUTE_KEY_LENGTH = 64;
/** Longest attribute value kept (longer values are cut). */
export const MAX_ATTRIBUTE_VALUE_LENGTH = 128;
/** Distinct attribute sets per metric before the overflow set is used. */
export const MAX_ATTRIBUTE_SETS = 1000;
/** The attribute set that replaces any set past the cardinality cap. */
export const OVERFLOW_ATTRIBUTES: Readonly<Record<string, string>> = Object
  .freeze({
    "otel.metric.overflow": "true",
  });

const METRIC_NAME_REGEXP = /^[A-Za-z][A-Za-z0-9_.\-/]{0,62}$/;
const TRACE_ID_REGEXP = /^[0-9a-f]{32}$/;
const SPAN_ID_REGEXP = /^[0-9a-f]{16}$/;

/** Telemetry settings, from `settings.observability` and `settings.log_level`. */
export interface TelemetrySettings {
  /** Whether plugin spans are exported. */
  tracesEnabled: boolean;
  /** Whether plugin metrics are exported. */
  metricsEnabled: boolean;
  /** Whether plugin log entries are kept. */
  logsEnabled: boolean;
  /** Entries below this level are accepted and discarded. */
  logLevel: LogLevel;
  /** The `ParentBased(TraceIDRatioBased)` ratio plugins sample with. */
  samplingRatio: number;
  /** The OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`; absent: count and drop. */
  endpoint?: string;
  /** Metric export interval in milliseconds. @default {60000} */
  exportIntervalMs?: number;
  /** `service.name` on the exported resource. @default {"ph-agent"} */
  serviceName?: string;
}

/** The default telemetry: logs on at INFO; traces and metrics off. */
export const DEFAULT_TELEMETRY: TelemetrySettings = Object.freeze({
  tracesEnabled: false,
  metricsEnabled: false,
  logsEnabled: true,
  logLevel: LogLevel.INFO,
  samplingRatio: 1,
});

/** Counters of a relay, for tests and `agent doctor`-style reports. */
export interface RelayStats {
  /** Spans received through ExportSpans. */
  spansReceived: number;
  /** Spans handed to an exporter. */
  spansExported: number;
  /** Spans counted and dropped (no endpoint, or traces off). */
  spansDropped: number;
  /** Metric records received through RecordMetrics. */
  metricsReceived: number;
  /** Metric records recorded on an instrument. */
  metricsRecorded: number;
  /** Metric records counted and dropped (no endpoint, or metrics off). */
  metricsDropped: number;
  /** Attribute keys removed by the bounds. */
  attributeKeysDropped: number;
  /** Records folded into the overflow attribute set. */
  attributeSetsOverflowed: number;
}

/** A metric record after the kernel's bounds. */
export interface BoundedMetric {
  /** `plugin.{category}.{name}.{metric}`. */
  name: string;
  /** The kind. */
  kind: MetricKind;
  /** The value. */
  value: number;
  /** The kept attributes. */
  attributes: Record<string, string>;
  /** Attribute keys dropped by the bounds. */
  droppedKeys: number;
  /** The description. */
  description: string;
  /** The unit. */
  unit: string;
}

/**
 * Validates one span of an ExportSpans request.
 *
 * @param span The span.
 * @param index Its index, for the message.
 * @returns A problem, or `undefined`.
 */
export function spanProblem(span: Span, index: number): string | undefined {
  if (!TRACE_ID_REGEXP.test(span.traceId)) {
    return `spans[${index}].trace_id must be 32 lowercase hex digits`;
  }
  if (!SPAN_ID_REGEXP.test(span.spanId)) {
    return `spans[${index}].span_id must be 16 lowercase hex digits`;
  }
  if (
    span.parentSpanId !== undefined && span.parentSpanId !== "" &&
    !SPAN_ID_REGEXP.test(span.parentSpanId)
  ) {
    return `spans[${index}].parent_span_id must be 16 lowercase hex digits`;
  }
  if (!span.name) return `spans[${index}].name is required`;
  if (!span.startTime || !span.endTime) {
    return `spans[${index}] needs start_time and end_time`;
  }
  return undefined;
}

/**
 * Validates one record of a RecordMetrics request.
 *
 * @param record The record.
 * @param index Its index, for the message.
 * @returns A problem, or `undefined`.
 */
export function metricProblem(
  record: MetricRecord,
  index: number,
): string | undefined {
  if (!METRIC_NAME_REGEXP.test(record.name)) {
    return `metrics[${index}].name ${
      JSON.stringify(record.name)
    } must match [A-Za-z][A-Za-z0-9_.-/]{0,62}`;
  }
  if (
    record.kind === MetricKind.UNSPECIFIED ||
    MetricKind[record.kind] === undefined
  ) {
    return `metrics[${index}].kind must be set (METRIC_KIND_UNSPECIFIED is not a kind)`;
  }
  if (record.value.case === undefined) {
    return `metrics[${index}] needs int_value or double_value`;
  }
  return undefined;
}

/**
 * Applies the kernel's bounds to one metric record: the namespaced name and
 * at most {@linkcode MAX_METRIC_ATTRIBUTES} length-capped attributes.
 *
 * @example
 * ```ts
 * import { boundMetric } from "@ph/agent/kernel";
 * import { create } from "@bufbuild/protobuf";
 * import { MetricKind, MetricRecordSchema } from "@ph/agent/proto/metric";
 * import assert from "node:assert/strict";
 *
 * const m = boundMetric(
 *   { category: "tool", name: "fs" },
 *   create(MetricRecordSchema, {
 *     name: "reads",
 *     kind: MetricKind.COUNTER,
 *     value: { case: "intValue", value: 1n },
 *     attributes: { path: "/tmp" },
 *   }),
 * );
 * assert.equal(m.name, "plugin.tool.fs.reads");
 * ```
 *
 * @param producer The plugin (server-derived).
 * @param record A record that passed {@linkcode metricProblem}.
 * @returns The bounded metric.
 */
export function boundMetric(
  producer: Pick<PluginIdentity, "category" | "name">,
  record: MetricRecord,
): BoundedMetric {
  const keys = Object.keys(record.attributes).sort();
  const attributes: Record<string, string> = {};
  let droppedKeys = 0;
  for (const k of keys) {
    if (
      k.length > MAX_ATTRIBUTE_KEY_LENGTH ||
      Object.keys(attributes).length >= MAX_METRIC_ATTRIBUTES
    ) {
      droppedKeys++;
      continue;
    }
    attributes[k] = record.attributes[k]!.slice(0, MAX_ATTRIBUTE_VALUE_LENGTH);
  }
  return {
    name: `plugin.${producer.category}.${producer.name}.${record.name}`,
    kind: record.kind,
    value: record.value.case === "intValue"
      ? Number(record.value.value)
      : Number(record.value.value),
    attributes,
    droppedKeys,
    description: record.description,
    unit: record.unit,
  };
}

/** Receives plugin spans and metrics. */
export interface TelemetryRelay {
  /** The settings plugins read through GetTelemetryConfig. */
  readonly settings: TelemetrySettings;
  /** Counters. */
  readonly stats: RelayStats;
  /**
   * Relays validated spans of one plugin.
   *
   * @param producer The plugin (server-derived).
   * @param spans The spans, unaltered.
   * @param sessionId The session they belong to, if any.
   */
  exportSpans(
    producer: PluginIdentity,
    spans: readonly Span[],
    sessionId?: string,
  ): Promise<void>;
  /**
   * Records validated metric records of one plugin, within the bounds.
   *
   * @param producer The plugin (server-derived).
   * @param records The records.
   * @param sessionId The session they belong to, if any.
   */
  recordMetrics(
    producer: PluginIdentity,
    records: readonly MetricRecord[],
    sessionId?: string,
  ): void;
  /** Flushes and stops the exporters. */
  close(): Promise<void>;
}

const log = getLogger(["ph-agent", "kernel", "telemetry"]);

function hrTime(ts: Timestamp | undefined): [number, number] {
  return ts ? [Number(ts.seconds), ts.nanos] : [0, 0];
}

/** Span attribute values OTLP accepts: primitives and arrays of them. */
function attributeValue(v: JsonValue): unknown {
  if (v === null) return undefined;
  if (Array.isArray(v)) {
    return v.filter((x) => typeof x !== "object").map((x) => x);
  }
  if (typeof v === "object") return JSON.stringify(v);
  return v;
}

function attributes(obj: JsonObject | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj ?? {})) {
    const a = attributeValue(v);
    if (a !== undefined) out[k] = a;
  }
  return out;
}

/**
 * Creates the relay: OTLP export when `settings.endpoint` is set, counting
 * and dropping otherwise.
 *
 * @param settings The telemetry settings.
 * @returns The relay.
 */
export function createTelemetryRelay(
  settings: TelemetrySettings = DEFAULT_TELEMETRY,
): TelemetryRelay {
  return new Relay(settings);
}

type OtelModules = {
  traceExporter?: {
    export(
      spans: unknown[],
      cb: (r: { code: number; error?: Error }) => void,
    ): void;
    shutdown(): Promise<void>;
  };
  resourceFromAttributes: (attrs: Record<string, string>) => unknown;
  meterProvider?: {
    getMeter(name: string): {
      createCounter(n: string, o: object): { add(v: number, a: object): void };
      createUpDownCounter(
        n: string,
        o: object,
      ): { add(v: number, a: object): void };
      createHistogram(
        n: string,
        o: object,
      ): { record(v: number, a: object): void };
    };
    forceFlush(): Promise<void>;
    shutdown(): Promise<void>;
  };
};

class Relay implements TelemetryRelay {
  readonly settings: TelemetrySettings;
  readonly stats: RelayStats = {
    spansReceived: 0,
    spansExported: 0,
    spansDropped: 0,
    metricsReceived: 0,
    metricsRecorded: 0,
    metricsDropped: 0,
    attributeKeysDropped: 0,
    attributeSetsOverflowed: 0,
  };
  #otel: Promise<OtelModules> | undefined;
  #resources = new Map<string, unknown>();
  #instruments = new Map<
    string,
    {
      add?: (v: number, a: object) => void;
      record?: (v: number, a: object) => void;
    }
  >();
  #attributeSets = new Map<string, Set<string>>();

  constructor(settings: TelemetrySettings) {
    this.settings = settings;
  }

  #load(): Promise<OtelModules> {
    this.#otel ??= (async () => {
      const base = this.settings.endpoint!.replace(/\/+$/, "");
      const { resourceFromAttributes } = await import(
        "@opentelemetry/resources"
      );
      const mods: OtelModules = {
        resourceFromAttributes: (a) => resourceFromAttributes(a),
      };
      if (this.settings.tracesEnabled) {
        const { OTLPTraceExporter } = await import(
          "@opentelemetry/exporter-trace-otlp-http"
        );
        mods.traceExporter = new OTLPTraceExporter({
          url: `${base}/v1/traces`,
        }) as unknown as OtelModules["traceExporter"];
      }
      if (this.settings.metricsEnabled) {
        const { MeterProvider, PeriodicExportingMetricReader } = await import(
          "@opentelemetry/sdk-metrics"
        );
        const { OTLPMetricExporter } = await import(
          "@opentelemetry/exporter-metrics-otlp-http"
        );
        const reader = new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
          exportIntervalMillis: this.settings.exportIntervalMs ?? 60_000,
        });
        mods.meterProvider = new MeterProvider({
          resource: resourceFromAttributes({
            "service.name": this.settings.serviceName ?? "ph-agent",
          }),
          readers: [reader],
        }) as unknown as OtelModules["meterProvider"];
      }
      return mods;
    })();
    return this.#otel;
  }

  #resourceFor(mods: OtelModules, p: PluginIdentity): unknown {
    const k = `${p.category}/${p.name}@${p.version}`;
    let r = this.#resources.get(k);
    if (!r) {
      r = mods.resourceFromAttributes({
        "service.name": this.settings.serviceName ?? "ph-agent",
        "pluggableharness.producer.category": p.category,
        "pluggableharness.producer.name": p.name,
        "pluggableharness.producer.version": p.version,
      });
      this.#resources.set(k, r);
    }
    return r;
  }

  async exportSpans(
    producer: PluginIdentity,
    spans: readonly Span[],
    sessionId?: string,
  ): Promise<void> {
    this.stats.spansReceived += spans.length;
    if (!this.settings.endpoint || !this.settings.tracesEnabled) {
      this.stats.spansDropped += spans.length;
      return;
    }
    const mods = await this.#load();
    const resource = this.#resourceFor(mods, producer);
    const readable = spans.map((s) => ({
      name: s.name,
      kind: Math.max(0, s.kind - 1),
      spanContext: () => ({
        traceId: s.traceId,
        spanId: s.spanId,
        traceFlags: 1,
      }),
      parentSpanContext: s.parentSpanId
        ? { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: 1 }
        : undefined,
      startTime: hrTime(s.startTime),
      endTime: hrTime(s.endTime),
      status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
      attributes: attributes(s.attributes),
      links: s.links.map((l) => ({
        context: { traceId: l.traceId, spanId: l.spanId, traceFlags: 1 },
        attributes: attributes(l.attributes),
      })),
      events: s.events.map((e) => ({
        name: e.name,
        time: hrTime(e.time),
        attributes: attributes(e.attributes),
      })),
      duration: [0, 0],
      ended: true,
      resource,
      instrumentationScope: {
        name: s.scope?.name || "unknown",
        version: s.scope?.version || undefined,
      },
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    }));
    await new Promise<void>((resolve) => {
      mods.traceExporter!.export(readable, (result) => {
        if (result.code === 0) this.stats.spansExported += readable.length;
        else {
          this.stats.spansDropped += readable.length;
          log.warn("Span export failed for plugin {plugin}: {error}", {
            plugin: producer.name,
            error: String(result.error),
            ...(sessionId ? { session: sessionId } : {}),
          });
        }
        resolve();
      });
    });
  }

  recordMetrics(
    producer: PluginIdentity,
    records: readonly MetricRecord[],
    sessionId?: string,
  ): void {
    this.stats.metricsReceived += records.length;
    if (!this.settings.endpoint || !this.settings.metricsEnabled) {
      this.stats.metricsDropped += records.length;
      return;
    }
    const bounded = records.map((r) => boundMetric(producer, r));
    void this.#load().then((mods) => {
      const meter = mods.meterProvider!.getMeter("ph-agent.plugin-relay");
      for (const m of bounded) {
        this.stats.attributeKeysDropped += m.droppedKeys;
        let attrs: Record<string, string> = m.attributes;
        const setKey = JSON.stringify(attrs);
        let sets = this.#attributeSets.get(m.name);
        if (!sets) this.#attributeSets.set(m.name, sets = new Set());
        if (!sets.has(setKey)) {
          if (sets.size >= MAX_ATTRIBUTE_SETS) {
            attrs = { ...OVERFLOW_ATTRIBUTES };
            this.stats.attributeSetsOverflowed++;
          } else sets.add(setKey);
        }
        const ik = `${m.kind}:${m.name}`;
        let inst = this.#instruments.get(ik);
        if (!inst) {
          const opts = { description: m.description, unit: m.unit };
          if (m.kind === MetricKind.COUNTER) {
            const c = meter.createCounter(m.name, opts);
            inst = { add: (v, a) => c.add(v, a) };
          } else if (m.kind === MetricKind.UP_DOWN_COUNTER) {
            const c = meter.createUpDownCounter(m.name, opts);
            inst = { add: (v, a) => c.add(v, a) };
          } else {
            const h = meter.createHistogram(m.name, opts);
            inst = { record: (v, a) => h.record(v, a) };
          }
          this.#instruments.set(ik, inst);
        }
        if (inst.add) inst.add(m.value, attrs);
        else inst.record!(m.value, attrs);
        this.stats.metricsRecorded++;
      }
    }).catch((err) => {
      this.stats.metricsDropped += bounded.length;
      log.warn("Metric recording failed: {error}", {
        error: String(err),
        ...(sessionId ? { session: sessionId } : {}),
      });
    });
  }

  async close(): Promise<void> {
    if (!this.#otel) return;
    const mods = await this.#otel.catch(() => undefined);
    await mods?.meterProvider?.forceFlush().catch(() => {});
    await mods?.meterProvider?.shutdown().catch(() => {});
    await mods?.traceExporter?.shutdown().catch(() => {});
  }
}
