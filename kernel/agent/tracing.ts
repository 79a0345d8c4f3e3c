/**
 * The kernel's own tracing (kernel.md §5.5, §6.9): a span for each session,
 * turn, model call, tool execution and hook chain (with a child per
 * subscriber), so a turn is reconstructible from its trace.
 *
 * {@linkcode KernelTracer} is deliberately small. {@linkcode NOOP_TRACER}
 * (the default) costs nothing; {@linkcode createOtelTracer} exports through
 * the OpenTelemetry SDK (random W3C ids, `ParentBased(TraceIDRatioBased)`
 * sampling, `service.name` on the resource, OTLP/HTTP JSON), loaded only
 * when called; {@linkcode RecordingTracer} keeps spans in memory.
 *
 * The span tree of a session:
 *
 * ```text
 * session
 * ├─ hook.session_start ─ hook.subscriber …
 * ├─ turn
 * │  ├─ hook.pre_model_call ─ hook.subscriber …
 * │  ├─ model.call
 * │  ├─ hook.post_model_response ─ hook.subscriber …
 * │  ├─ hook.pre_tool_call ─ hook.subscriber …   (one per call)
 * │  ├─ tool.execute                             (one per call)
 * │  ├─ policy.veto_chain                        (step 11: policy, then …)
 * │  │  └─ hook.plan_ready ─ hook.subscriber …   (… the plugin veto chain)
 * │  └─ hook.post_tool_call / hook.post_apply ─ hook.subscriber …
 * └─ hook.session_end ─ hook.subscriber …
 * ```
 *
 * A cancelled turn is not a span error: cancelled spans end with an unset
 * status and `cancelled = true`.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { Span as OtelSpan } from "@opentelemetry/api";
import type { HookPointName } from "./session_spec.ts";

/** A span attribute value (spans may carry unbounded values, metrics never). */
export type SpanAttributeValue = string | number | boolean;

/** Span attributes; `undefined` values are left out. */
export type SpanAttributes = Readonly<
  Record<string, SpanAttributeValue | undefined>
>;

/** How a span ended; absent means unset (e.g. a cancelled turn). */
export type SpanStatus =
  | { readonly code: "ok" }
  | { readonly code: "error"; readonly message?: string };

/** One started span. */
export interface KernelSpan {
  /** False for the no-op span and for spans the sampler dropped. */
  readonly recording: boolean;
  /**
   * The span as a W3C Trace Context `traceparent` header
   * (`00-<trace id>-<span id>-<flags>`), sent to the plugin a call goes to
   * so that its own spans join the kernel's trace; `undefined` without a
   * valid span context (the no-op span).
   */
  readonly traceparent?: string | undefined;
  /**
   * Sets one attribute.
   *
   * @param key The key.
   * @param value The value; `undefined` is ignored.
   */
  setAttribute(key: string, value: SpanAttributeValue | undefined): void;
  /**
   * Sets several attributes.
   *
   * @param attributes The attributes; `undefined` values are ignored.
   */
  setAttributes(attributes: SpanAttributes): void;
  /**
   * Ends the span (later calls are ignored).
   *
   * @param status The status; unset when absent.
   */
  end(status?: SpanStatus): void;
}

/** Starts the kernel's spans. */
export interface KernelTracer {
  /** False for {@linkcode NOOP_TRACER}: callers may skip building attributes. */
  readonly enabled: boolean;
  /**
   * Starts a span.
   *
   * @param name The span name (`session`, `turn`, `model.call`, …).
   * @param attributes Its initial attributes.
   * @param parent The parent span; a root span when absent.
   * @returns The span.
   */
  startSpan(
    name: string,
    attributes?: SpanAttributes,
    parent?: KernelSpan,
  ): KernelSpan;
  /** Flushes pending spans and stops exporting. */
  close(): Promise<void>;
}

const NOOP_SPAN_IMPL: KernelSpan = Object.freeze({
  recording: false,
  setAttribute() {},
  setAttributes() {},
  end() {},
});

/** The span of {@linkcode NOOP_TRACER}. */
export const NOOP_SPAN: KernelSpan = NOOP_SPAN_IMPL;

/** The default tracer: every span is {@linkcode NOOP_SPAN}. */
export const NOOP_TRACER: KernelTracer = Object.freeze({
  enabled: false,
  startSpan: () => NOOP_SPAN_IMPL,
  close: () => Promise.resolve(),
});

/**
 * The span name of a hook point's chain: `hook.` and the point with `_`
 * for `-` (`hook.plan_ready`).
 *
 * @param point The hook point.
 * @returns The span name.
 */
export function hookSpanName(point: HookPointName): string {
  return `hook.${point.replaceAll("-", "_")}`;
}

/**
 * Ends a span for an error, unless the error is a cancellation (then the
 * status stays unset and `cancelled = true`): a cancelled turn is not a
 * span error.
 *
 * @param span The span.
 * @param err The error.
 * @param cancelled Whether the error is a cancellation.
 */
export function endSpanWithError(
  span: KernelSpan,
  err: unknown,
  cancelled: boolean,
): void {
  if (cancelled) {
    span.setAttribute("cancelled", true);
    span.end();
    return;
  }
  const code = err && typeof err === "object" && "code" in err &&
      typeof err.code === "string"
    ? err.code
    : undefined;
  span.setAttribute("error.type", code ?? (err as Error)?.name ?? "Error");
  span.end({
    code: "error",
    message: err instanceof Error ? err.message : String(err),
  });
}

// ----------------------------------------------------------- in memory

/** A span kept by {@linkcode RecordingTracer}. */
export interface RecordedSpan {
  /** The name. */
  readonly name: string;
  /** A process-unique id. */
  readonly id: number;
  /** The parent's id. */
  readonly parentId: number | undefined;
  /** The trace id (32 hex digits), shared by a root span and its descendants. */
  readonly traceId: string;
  /** The attributes (live until the span ends). */
  readonly attributes: Record<string, SpanAttributeValue>;
  /** The status, once ended. */
  status: SpanStatus | undefined;
  /** Whether {@linkcode KernelSpan.end} was called. */
  ended: boolean;
  /** `performance.now()` at the start. */
  readonly startMs: number;
  /** `performance.now()` at the end. */
  endMs: number | undefined;
}

class RecordingSpan implements KernelSpan {
  readonly recording = true;
  readonly record: RecordedSpan;
  constructor(record: RecordedSpan) {
    this.record = record;
  }
  get traceparent(): string {
    const span = this.record.id.toString(16).padStart(16, "0");
    return `00-${this.record.traceId}-${span}-01`;
  }
  setAttribute(key: string, value: SpanAttributeValue | undefined): void {
    if (value !== undefined && !this.record.ended) {
      this.record.attributes[key] = value;
    }
  }
  setAttributes(attributes: SpanAttributes): void {
    for (const [k, v] of Object.entries(attributes)) this.setAttribute(k, v);
  }
  end(status?: SpanStatus): void {
    if (this.record.ended) return;
    this.record.ended = true;
    this.record.status = status;
    this.record.endMs = performance.now();
  }
}

/**
 * A tracer that keeps every span in memory, in start order (tests, and
 * embedders that render their own timelines).
 *
 * @example Usage
 * ```ts
 * import { RecordingTracer } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const tracer = new RecordingTracer();
 * const session = tracer.startSpan("session", { "session.id": "01J" });
 * tracer.startSpan("turn", { "turn.number": 1 }, session).end();
 * session.end({ code: "ok" });
 * assert.deepEqual(tracer.tree(), [["session", [["turn", []]]]]);
 * ```
 */
export class RecordingTracer implements KernelTracer {
  /** Always true. */
  readonly enabled = true;
  /** Every span, in start order. */
  readonly spans: RecordedSpan[] = [];
  #next = 1;

  /**
   * Starts a recorded span.
   *
   * @param name The name.
   * @param attributes Its initial attributes.
   * @param parent The parent (a span of this tracer).
   * @returns The span.
   */
  startSpan(
    name: string,
    attributes: SpanAttributes = {},
    parent?: KernelSpan,
  ): KernelSpan {
    const record: RecordedSpan = {
      name,
      id: this.#next++,
      parentId: parent instanceof RecordingSpan ? parent.record.id : undefined,
      traceId: parent instanceof RecordingSpan
        ? parent.record.traceId
        : this.#next.toString(16).padStart(32, "0"),
      attributes: {},
      status: undefined,
      ended: false,
      startMs: performance.now(),
      endMs: undefined,
    };
    this.spans.push(record);
    const span = new RecordingSpan(record);
    span.setAttributes(attributes);
    return span;
  }

  /**
   * The spans with a name.
   *
   * @param name The name.
   * @returns Those spans, in start order.
   */
  named(name: string): RecordedSpan[] {
    return this.spans.filter((s) => s.name === name);
  }

  /**
   * The children of a span.
   *
   * @param span The parent.
   * @returns Its children, in start order.
   */
  children(span: RecordedSpan): RecordedSpan[] {
    return this.spans.filter((s) => s.parentId === span.id);
  }

  /**
   * The span names as a tree: `[name, children]` per root, in start order.
   *
   * @returns The tree.
   */
  tree(): SpanTree[] {
    const build = (s: RecordedSpan): SpanTree => [
      s.name,
      this.children(s).map(build),
    ];
    return this.spans.filter((s) => s.parentId === undefined).map(build);
  }

  /** Nothing to flush. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A span name and its children (see {@linkcode RecordingTracer.tree}). */
export type SpanTree = [string, SpanTree[]];

// --------------------------------------------------------- OpenTelemetry

/** Options of {@linkcode createOtelTracer}. */
export interface OtelTracerOptions {
  /** The OTLP/HTTP base URL (`http://127.0.0.1:4318`); `/v1/traces` is added. */
  readonly endpoint: string;
  /** The `TraceIDRatioBased` ratio of root spans, in [0, 1]. @default {1} */
  readonly samplingRatio?: number;
  /** `service.name` on the resource. @default {"ph-agent"} */
  readonly serviceName?: string;
  /** Further resource attributes. */
  readonly resourceAttributes?: Readonly<Record<string, string>>;
  /** Batch delay before an export. @default {5000} */
  readonly scheduledDelayMs?: number;
}

const log = getLogger(["ph-agent", "kernel", "tracing"]);

class OtelKernelSpan implements KernelSpan {
  readonly span: OtelSpan;
  readonly recording: boolean;
  #ended = false;
  readonly #ok: number;
  readonly #error: number;
  constructor(span: OtelSpan, ok: number, error: number) {
    this.span = span;
    this.recording = span.isRecording();
    this.#ok = ok;
    this.#error = error;
  }
  get traceparent(): string | undefined {
    const c = this.span.spanContext();
    if (!/^[0-9a-f]{32}$/.test(c.traceId) || /^0+$/.test(c.traceId)) {
      return undefined;
    }
    return `00-${c.traceId}-${c.spanId}-${
      (c.traceFlags & 1) === 1 ? "01" : "00"
    }`;
  }
  setAttribute(key: string, value: SpanAttributeValue | undefined): void {
    if (value !== undefined && this.recording) {
      this.span.setAttribute(key, value);
    }
  }
  setAttributes(attributes: SpanAttributes): void {
    if (!this.recording) return;
    for (const [k, v] of Object.entries(attributes)) {
      if (v !== undefined) this.span.setAttribute(k, v);
    }
  }
  end(status?: SpanStatus): void {
    if (this.#ended) return;
    this.#ended = true;
    if (status?.code === "ok") this.span.setStatus({ code: this.#ok });
    else if (status?.code === "error") {
      this.span.setStatus({
        code: this.#error,
        ...(status.message !== undefined ? { message: status.message } : {}),
      });
    }
    this.span.end();
  }
}

function tracesUrl(endpoint: string): string {
  let base = endpoint.trim().replace(/\/+$/, "");
  if (!/^https?:\/\//.test(base)) base = `http://${base}`;
  return base.endsWith("/v1/traces") ? base : `${base}/v1/traces`;
}

/**
 * Creates a tracer exporting through the OpenTelemetry SDK: random W3C
 * trace and span ids, `ParentBased(TraceIDRatioBased(samplingRatio))`
 * sampling, a batch processor and the OTLP/HTTP (JSON) exporter. The SDK
 * is loaded by this call only.
 *
 * @example Usage
 * ```ts ignore
 * import { createOtelTracer } from "@ph/agent/kernel";
 * const tracer = await createOtelTracer({ endpoint: "http://127.0.0.1:4318" });
 * tracer.startSpan("session").end({ code: "ok" });
 * await tracer.close(); // flushes
 * ```
 *
 * @param options Endpoint, sampling ratio, resource.
 * @returns The tracer; {@linkcode KernelTracer.close} flushes and stops it.
 * @throws {RangeError} When the sampling ratio is outside [0, 1].
 */
export async function createOtelTracer(
  options: OtelTracerOptions,
): Promise<KernelTracer> {
  const ratio = options.samplingRatio ?? 1;
  if (!(ratio >= 0 && ratio <= 1)) {
    throw new RangeError(
      `Cannot create the kernel tracer: samplingRatio must be in [0, 1], got ${ratio}`,
    );
  }
  const [api, sdk, resources, otlp] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      ...options.resourceAttributes,
      "service.name": options.serviceName ?? "ph-agent",
    }),
    sampler: new sdk.ParentBasedSampler({
      root: new sdk.TraceIdRatioBasedSampler(ratio),
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new otlp.OTLPTraceExporter({
          url: tracesUrl(options.endpoint),
        }),
        scheduledDelayMillis: options.scheduledDelayMs ?? 5_000,
      }),
    ],
  });
  const tracer = provider.getTracer("ph-agent.kernel");
  const ok = api.SpanStatusCode.OK;
  const error = api.SpanStatusCode.ERROR;
  let closed: Promise<void> | undefined;
  return {
    enabled: true,
    startSpan(name, attributes = {}, parent) {
      const context = parent instanceof OtelKernelSpan
        ? api.trace.setSpan(api.ROOT_CONTEXT, parent.span)
        : api.ROOT_CONTEXT;
      const clean: Record<string, SpanAttributeValue> = {};
      for (const [k, v] of Object.entries(attributes)) {
        if (v !== undefined) clean[k] = v;
      }
      return new OtelKernelSpan(
        tracer.startSpan(
          name,
          { kind: api.SpanKind.INTERNAL, attributes: clean },
          context,
        ),
        ok,
        error,
      );
    },
    close() {
      closed ??= (async () => {
        try {
          await provider.forceFlush();
        } catch (err) {
          log.warn("Cannot flush the kernel's spans: {error}", {
            error: err instanceof Error ? err.message : String(err),
          });
        }
        await provider.shutdown().catch(() => {});
      })();
      return closed;
    },
  };
}

/** The parts of the config plan's `settings` that tracing reads. */
export interface TracingSettingsSource {
  /** `settings.telemetry`: off means no exporter at all. */
  readonly telemetry: boolean;
  /** `settings.observability`. */
  readonly observability: {
    readonly endpoint: string;
    readonly protocol: "grpc" | "http";
    readonly samplingRatio: number;
    readonly tracesEnabled: boolean;
    readonly serviceName: string;
    readonly resourceAttrs?: Readonly<Record<string, string>>;
  };
}

/**
 * The kernel tracer options of a plan's settings, or `undefined` (use
 * {@linkcode NOOP_TRACER}) when telemetry or traces are off, or when the
 * protocol is `grpc` (only OTLP/HTTP is exported; a warning says so).
 *
 * @param settings `settings` of the config plan.
 * @returns The options, or `undefined`.
 */
export function otelTracerOptionsOf(
  settings: TracingSettingsSource,
): OtelTracerOptions | undefined {
  const o = settings.observability;
  if (!settings.telemetry || !o.tracesEnabled || !o.endpoint) return undefined;
  if (o.protocol !== "http") {
    log.warn(
      'Kernel spans are not exported: observability.protocol is "{protocol}", and only "http" (OTLP/HTTP) is supported',
      { protocol: o.protocol },
    );
    return undefined;
  }
  return {
    endpoint: o.endpoint,
    samplingRatio: o.samplingRatio,
    serviceName: o.serviceName,
    ...(o.resourceAttrs ? { resourceAttributes: o.resourceAttrs } : {}),
  };
}
