/**
 * The Render pipeline (kernel.md §3.10, plugins.md §4.3): for a persisted
 * event the kernel asks the plugin build that produced it — the exact
 * `category/name@version` recorded on the event — for a `RenderTree`,
 * with a deadline. When that build is not running, does not implement
 * `Render`, fails, times out or answers an empty tree, the kernel renders
 * the raw payload itself (decoded by the event kind's `event.v1` message)
 * and says visibly why. Replay first reports the producers the session
 * names that this kernel does not run ({@linkcode replayRendered}), then
 * renders every event in sequence order.
 *
 * Action nodes of a tree are reported ({@linkcode RenderPipelineOptions.onActions})
 * so that `TriggerAction` can check a frontend's activation against what
 * was painted.
 *
 * @module
 */
import {
  create,
  fromBinary,
  type JsonObject,
  toJsonString,
} from "@bufbuild/protobuf";
import {
  type RenderNode,
  type RenderTree,
  RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import type { ContextService } from "../../proto/gen/pluggableharness/context/v1/service_pb.ts";
import type { MemoryService } from "../../proto/gen/pluggableharness/memory/v1/service_pb.ts";
import type { ServiceClient } from "../../proto/rpc.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import type { Plugin } from "../plugin/plugin.ts";
import { eventKindInfo } from "../state/event_kinds.ts";
import type {
  EventRecord,
  Producer,
  ProducerRecord,
  SessionLog,
} from "../state/session_store.ts";
import type { RenderedAction } from "./hub.ts";

/** Asks one plugin build's `Render` for a tree. */
export type RenderFn = (
  payload: Uint8Array,
  schemaVersion: string,
  signal: AbortSignal,
) => Promise<RenderTree | undefined>;

/** The default deadline of one `Render` call. */
export const DEFAULT_RENDER_TIMEOUT_MS = 2000;

/** Options of {@linkcode RenderPipeline}. */
export interface RenderPipelineOptions {
  /** The running build that produced events of `producer`, if any. */
  readonly renderer: (producer: Producer) => RenderFn | undefined;
  /** The deadline of one `Render` call. @default {2000} */
  readonly timeoutMs?: number;
  /** Receives the action nodes of every tree a plugin rendered. */
  readonly onActions?: (
    sessionId: string,
    actions: ReadonlyMap<string, RenderedAction>,
  ) => void;
}

/** One rendered event. */
export interface RenderedEvent {
  /** The event. */
  readonly event: EventRecord;
  /** The tree to paint. */
  readonly tree: RenderTree;
  /** Why the kernel rendered the raw payload instead of the producer. */
  readonly fallback?: string;
}

function producerText(p: Producer): string {
  return `${p.category}/${p.name}@${p.version}`;
}

function text(content: string, style?: TextStyle): RenderNode {
  return {
    $typeName: "pluggableharness.render.v1.RenderNode",
    node: {
      case: "text",
      value: {
        $typeName: "pluggableharness.render.v1.TextNode",
        content,
        ...(style !== undefined ? { style } : {}),
      },
    },
  } as RenderNode;
}

/**
 * The kernel's own rendering of an event: a warning line naming why, then
 * the payload as JSON (decoded by the kind's `event.v1` message), or its
 * size when it cannot be decoded.
 *
 * @param event The event.
 * @param reason Why the producer did not render it.
 * @returns The tree.
 */
export function fallbackTree(event: EventRecord, reason: string): RenderTree {
  let body: string;
  try {
    const info = eventKindInfo(event.kind);
    body = toJsonString(
      info.payloadSchema,
      fromBinary(info.payloadSchema, event.payload),
      { prettySpaces: 2 },
    );
  } catch {
    body =
      `(${event.payload.length} bytes that do not decode as this kind's payload)`;
  }
  return create(RenderTreeSchema, {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(
              `Rendered by the kernel (${reason}): ${
                eventKindInfo(event.kind).text
              } from ${producerText(event.producer)}`,
              TextStyle.WARNING,
            ),
            {
              node: {
                case: "codeBlock",
                value: { language: "json", content: body },
              },
            },
          ],
        },
      },
    },
  });
}

function collectActions(
  node: RenderNode | undefined,
  into: Map<string, RenderedAction>,
): void {
  if (!node) return;
  const n = node.node;
  switch (n.case) {
    case "action":
      into.set(n.value.id, {
        toolName: n.value.toolName,
        provider: n.value.provider,
        args: (n.value.args ?? {}) as JsonObject,
      });
      return;
    case "list":
      for (const c of n.value.items) collectActions(c, into);
      return;
    case "group":
    case "collapsible":
      for (const c of n.value.children) collectActions(c, into);
      return;
  }
}

/** Renders persisted events through the build that produced them. */
export class RenderPipeline {
  readonly #o: RenderPipelineOptions;
  /** Builds that answered UNIMPLEMENTED: not asked again (a replay of
   * thousands of events would pay one round trip each). */
  readonly #unimplemented = new Set<string>();

  /**
   * Creates a pipeline.
   *
   * @param options The renderer lookup, deadline and action listener.
   */
  constructor(options: RenderPipelineOptions) {
    this.#o = options;
  }

  /**
   * Renders one event.
   *
   * @param event The event.
   * @param options The event's session (its action nodes are recorded
   * there) and a signal that cancels the call.
   * @returns The tree, with `fallback` set when the kernel rendered it.
   */
  async render(
    event: EventRecord,
    options: { sessionId?: string; signal?: AbortSignal } = {},
  ): Promise<RenderedEvent> {
    const { signal } = options;
    if (event.producer.category === "kernel") {
      return {
        event,
        tree: fallbackTree(event, "the kernel produced it"),
        fallback: "kernel event",
      };
    }
    const fn = this.#o.renderer(event.producer);
    if (fn && this.#unimplemented.has(producerText(event.producer))) {
      const reason = "it does not implement Render";
      return { event, tree: fallbackTree(event, reason), fallback: reason };
    }
    if (!fn) {
      const reason = `producer ${
        producerText(event.producer)
      } is not running in this kernel`;
      return { event, tree: fallbackTree(event, reason), fallback: reason };
    }
    const timeoutMs = this.#o.timeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const s = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let reason: string;
    try {
      const tree = await Promise.race([
        fn(event.payload, event.schemaVersion, s),
        new Promise<never>((_, reject) =>
          s.addEventListener("abort", () => reject(s.reason), { once: true })
        ),
      ]);
      if (tree?.root?.node.case !== undefined) {
        const actions = new Map<string, RenderedAction>();
        collectActions(tree.root, actions);
        if (actions.size && options.sessionId !== undefined) {
          this.#o.onActions?.(options.sessionId, actions);
        }
        return { event, tree };
      }
      reason = "its Render answered an empty tree";
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      reason = deadline.aborted
        ? `its Render gave no tree within ${timeoutMs} ms`
        : err instanceof GrpcStatusError && err.code === Code.UNIMPLEMENTED
        ? (this.#unimplemented.add(producerText(event.producer)),
          "it does not implement Render")
        : `its Render failed: ${err instanceof Error ? err.message : err}`;
    }
    return { event, tree: fallbackTree(event, reason), fallback: reason };
  }
}

/** What {@linkcode replayRendered} yields first, then each event. */
export type ReplayItem =
  | { readonly type: "missing_producers"; readonly missing: ProducerRecord[] }
  | ({ readonly type: "event" } & RenderedEvent);

/**
 * Replays a session through the Render pipeline: first the producers its
 * events name that are not running here (the preflight, before any event
 * is touched; empty when all are), then every event in sequence order,
 * each rendered by its exact producer build or visibly by the kernel.
 *
 * @param log The session.
 * @param pipeline The pipeline.
 * @param installed The builds running in this kernel.
 * @param signal Cancels the replay.
 * @returns The items.
 */
export async function* replayRendered(
  log: SessionLog,
  pipeline: RenderPipeline,
  installed: Iterable<Producer>,
  signal?: AbortSignal,
): AsyncGenerator<ReplayItem> {
  yield {
    type: "missing_producers",
    missing: await log.missingProducers(installed),
  };
  for await (const event of log.readEvents()) {
    signal?.throwIfAborted();
    yield {
      type: "event",
      ...await pipeline.render(event, {
        sessionId: log.sessionId,
        ...(signal ? { signal } : {}),
      }),
    };
  }
}

/**
 * The `Render` of a launched plugin, by its category (model, tool,
 * context and memory providers serve one); `undefined` for the others.
 *
 * @param plugin The plugin.
 * @returns Its renderer.
 */
export function rendererOf(plugin: Plugin): RenderFn | undefined {
  const call = async (
    r: (
      req: { payload: Uint8Array; schemaVersion: string },
      o: { signal: AbortSignal },
    ) => Promise<{ tree?: RenderTree }>,
    payload: Uint8Array,
    schemaVersion: string,
    signal: AbortSignal,
  ) => (await r({ payload, schemaVersion }, { signal })).tree;
  switch (plugin.identity.category) {
    case "model": {
      const c = plugin.client(ModelService);
      return (p, v, s) => call((q, o) => c.render(q, o), p, v, s);
    }
    case "tool": {
      const c = plugin.client(ToolService);
      return (p, v, s) => call((q, o) => c.render(q, o), p, v, s);
    }
    // The context and memory services' descriptors load at the first
    // render, not with the kernel.
    case "context": {
      let c: Promise<ServiceClient<typeof ContextService>> | undefined;
      const client = () =>
        c ??= import(
          "../../proto/gen/pluggableharness/context/v1/service_pb.ts"
        ).then((m) => plugin.client(m.ContextService));
      return (p, v, s) =>
        call(async (q, o) => (await client()).render(q, o), p, v, s);
    }
    case "memory": {
      let c: Promise<ServiceClient<typeof MemoryService>> | undefined;
      const client = () =>
        c ??= import(
          "../../proto/gen/pluggableharness/memory/v1/service_pb.ts"
        ).then((m) => plugin.client(m.MemoryService));
      return (p, v, s) =>
        call(async (q, o) => (await client()).render(q, o), p, v, s);
    }
    default:
      return undefined;
  }
}
