/**
 * Fakes of the agent loop's endpoints and a small harness, for unit tests.
 * Nothing here starts a process.
 *
 * @module
 */
import {
  create,
  type JsonObject,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import {
  type Capabilities,
  CapabilitiesSchema,
  type ModelSpec,
  ModelSpecSchema,
  type PricingSchema,
  StopReason,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  type StreamEvent,
  StreamEventSchema,
} from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import { ModelErrorCategory } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import {
  RiskClass,
  type ToolCall,
  ToolKind,
  type ToolSchema,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  type ToolEvent,
  ToolEventSchema,
} from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import {
  type ToolError,
  ToolErrorSchema,
} from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  type RenderTree,
  RenderTreeSchema,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import type { DispatchHookRequest } from "../../proto/gen/pluggableharness/hook/v1/rpc_request_pb.ts";
import {
  type DispatchHookResponse,
  DispatchHookResponseSchema,
} from "../../proto/gen/pluggableharness/hook/v1/rpc_response_pb.ts";
import { HookDecision } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { MemorySessionStore } from "../state/memory_session_store.ts";
import { sleep } from "./_async.ts";
import type {
  EndpointCallOptions,
  HookEndpoint,
  ModelEndpoint,
  ToolEndpoint,
} from "./endpoints.ts";
import type { SessionEvent } from "./session_events.ts";
import type { SessionRun } from "./session_types.ts";

/** An identity of a fake plugin. */
export function identity(
  category: PluginIdentity["category"],
  name: string,
): PluginIdentity {
  return { category, name, version: "1.0.0", source: `test:${name}` };
}

/** A model spec with tool use, a 100k window and $3 / $15 per Mtok. */
export function modelSpec(
  id: string,
  init: Partial<MessageInitShape<typeof ModelSpecSchema>> = {},
): ModelSpec {
  return create(ModelSpecSchema, {
    id,
    contextWindow: 100_000n,
    maxOutputTokens: 8_000n,
    supportsToolUse: true,
    supportsVision: false,
    thinking: { supported: false },
    caching: { supported: false },
    pricing: {
      currency: "USD",
      tiers: [{ inputPerMtok: 3, outputPerMtok: 15 }],
    } satisfies MessageInitShape<typeof PricingSchema>,
    ...init,
  } as MessageInitShape<typeof ModelSpecSchema>);
}

/** One scripted model response. */
export interface ScriptedTurn {
  /** Text to stream (split in two deltas). */
  readonly text?: string;
  /** Tool calls to emit. */
  readonly toolCalls?: readonly {
    readonly id?: string;
    readonly name: string;
    readonly input?: JsonObject;
    /** Raw arguments text instead of `input`. */
    readonly rawArgs?: string;
  }[];
  /** Usage tokens. @default {{input: 100, output: 10}} */
  readonly usage?: { readonly input: number; readonly output: number };
  /** An in-band error instead of a response. */
  readonly error?: {
    readonly category: ModelErrorCategory;
    readonly retryAfterMs?: number;
  };
  /** Thrown by `streamCompletion` before any event. */
  readonly throws?: Error;
  /** Never ends (until the signal aborts). */
  readonly hang?: boolean;
  /** Wait before the first event. */
  readonly delayMs?: number;
}

let callCounter = 0;

/** The stream events of a scripted turn. */
export function streamEventsOf(turn: ScriptedTurn): StreamEvent[] {
  const ev = (e: MessageInitShape<typeof StreamEventSchema>) =>
    create(StreamEventSchema, e);
  if (turn.error) {
    return [ev({
      event: {
        case: "error",
        value: {
          error: {
            category: turn.error.category,
            message: "scripted error",
            retryable: true,
            ...(turn.error.retryAfterMs !== undefined
              ? { retryAfter: durationFromMs(turn.error.retryAfterMs) }
              : {}),
          },
        },
      },
    })];
  }
  const out: StreamEvent[] = [];
  if (turn.text) {
    const half = Math.ceil(turn.text.length / 2);
    out.push(
      ev({
        event: { case: "textDelta", value: { text: turn.text.slice(0, half) } },
      }),
    );
    if (turn.text.length > half) {
      out.push(
        ev({
          event: { case: "textDelta", value: { text: turn.text.slice(half) } },
        }),
      );
    }
  }
  for (const c of turn.toolCalls ?? []) {
    const id = c.id ?? `call_${++callCounter}`;
    const args = c.rawArgs ?? JSON.stringify(c.input ?? {});
    out.push(
      ev({ event: { case: "toolCallStart", value: { id, name: c.name } } }),
    );
    out.push(ev({
      event: {
        case: "toolCallDelta",
        value: { id, argumentsFragment: args.slice(0, 3) },
      },
    }));
    out.push(ev({
      event: {
        case: "toolCallDelta",
        value: { id, argumentsFragment: args.slice(3) },
      },
    }));
    out.push(ev({ event: { case: "toolCallDone", value: { id } } }));
  }
  const u = turn.usage ?? { input: 100, output: 10 };
  out.push(ev({
    event: {
      case: "usage",
      value: { inputTokens: BigInt(u.input), outputTokens: BigInt(u.output) },
    },
  }));
  out.push(ev({
    event: {
      case: "stop",
      value: {
        reason: turn.toolCalls?.length
          ? StopReason.TOOL_USE
          : StopReason.END_TURN,
      },
    },
  }));
  return out;
}

/** A model provider that replays a script (one entry per request). */
export class FakeModel implements ModelEndpoint {
  readonly identity: PluginIdentity;
  /** Every request received. */
  readonly requests: StreamCompletionRequest[] = [];
  readonly #script: (
    | ScriptedTurn
    | ((req: StreamCompletionRequest, i: number) => ScriptedTurn)
  )[];
  readonly #specs: ModelSpec[];
  readonly #log: string[] | undefined;

  constructor(
    name: string,
    script: (
      | ScriptedTurn
      | ((req: StreamCompletionRequest, i: number) => ScriptedTurn)
    )[],
    options: { specs?: ModelSpec[]; log?: string[] } = {},
  ) {
    this.identity = identity("model", name);
    this.#script = script;
    this.#specs = options.specs ?? [modelSpec("m1")];
    this.#log = options.log;
  }

  capabilities(): Promise<Capabilities> {
    return Promise.resolve(create(CapabilitiesSchema, { models: this.#specs }));
  }

  async *streamCompletion(
    request: StreamCompletionRequest,
    options?: EndpointCallOptions,
  ): AsyncGenerator<StreamEvent> {
    const i = this.requests.length;
    this.requests.push(request);
    this.#log?.push(`model:${this.identity.name}`);
    const entry = this.#script[Math.min(i, this.#script.length - 1)];
    if (!entry) throw new Error("empty script");
    const turn = typeof entry === "function" ? entry(request, i) : entry;
    if (turn.delayMs) await sleep(turn.delayMs, options?.signal);
    if (turn.throws) throw turn.throws;
    const events = streamEventsOf(turn);
    for (const [n, e] of events.entries()) {
      if (turn.hang && n === events.length - 2) {
        await new Promise((_, reject) => {
          if (options?.signal?.aborted) reject(options.signal.reason);
          options?.signal?.addEventListener(
            "abort",
            () => reject(options.signal!.reason),
            {
              once: true,
            },
          );
        });
      }
      yield e;
    }
  }
}

/** What a fake tool does with a call. */
export type ToolBehaviour = (
  call: ToolCall,
  signal: AbortSignal,
) => Promise<JsonObject | ToolError> | JsonObject | ToolError;

/** A fake tool operation. */
export interface FakeOperation {
  /** The schema (name and kind at least). */
  readonly schema: MessageInitShape<typeof ToolSchemaSchema>;
  /** The behaviour. @default {echo the input as {ok: true, input}} */
  readonly run?: ToolBehaviour;
  /** A preview; `undefined` means none. */
  readonly preview?: (
    call: ToolCall,
    signal?: AbortSignal,
  ) => Promise<RenderTree | undefined>;
}

/** A tool provider made of fake operations; it tracks concurrency. */
export class FakeTool implements ToolEndpoint {
  readonly identity: PluginIdentity;
  /** Every invocation, in start order. */
  readonly invocations: { tool: string; input: JsonObject; id: string }[] = [];
  /** The most calls that were in flight at once. */
  maxConcurrent = 0;
  #inFlight = 0;
  readonly #ops: Map<string, FakeOperation>;
  readonly #log: string[] | undefined;
  readonly #schemas: ToolSchema[];

  constructor(
    name: string,
    ops: FakeOperation[],
    options: { log?: string[] } = {},
  ) {
    this.identity = identity("tool", name);
    this.#ops = new Map(ops.map((o) => [o.schema.name!, o]));
    this.#schemas = ops.map((o) => create(ToolSchemaSchema, o.schema));
    this.#log = options.log;
  }

  /** The schemas, for the spec. */
  get toolSchemas(): ToolSchema[] {
    return this.#schemas;
  }

  schemas(): Promise<ToolSchema[]> {
    return Promise.resolve(this.#schemas);
  }

  async *invoke(
    call: ToolCall,
    options?: EndpointCallOptions,
  ): AsyncGenerator<ToolEvent> {
    const op = this.#ops.get(call.toolName);
    this.invocations.push({
      tool: call.toolName,
      input: call.arguments ?? {},
      id: call.id,
    });
    this.#log?.push(`tool:${call.toolName}`);
    this.#inFlight++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.#inFlight);
    try {
      const out = op?.run
        ? await op.run(call, options?.signal ?? new AbortController().signal)
        : { ok: true, input: call.arguments ?? {} };
      if ((out as ToolError).$typeName === ToolErrorSchema.typeName) {
        yield create(ToolEventSchema, {
          event: { case: "error", value: out as ToolError },
        });
      } else {
        yield create(ToolEventSchema, {
          event: { case: "result", value: { payload: out as JsonObject } },
        });
      }
    } finally {
      this.#inFlight--;
    }
  }

  async preview(
    call: ToolCall,
    options?: EndpointCallOptions,
  ): Promise<RenderTree | undefined> {
    return await this.#ops.get(call.toolName)?.preview?.(call, options?.signal);
  }
}

/** A text preview. */
export function textPreview(text: string): RenderTree {
  return create(RenderTreeSchema, {
    root: { node: { case: "text", value: { content: text } } },
  });
}

/** A schema shorthand. */
export function op(
  name: string,
  kind: ToolKind,
  init: Partial<MessageInitShape<typeof ToolSchemaSchema>> = {},
): MessageInitShape<typeof ToolSchemaSchema> {
  return {
    name,
    kind,
    risk: kind === ToolKind.RESOURCE ? RiskClass.MODERATE : RiskClass.READ_ONLY,
    description: `${name} (test)`,
    ...init,
  } as MessageInitShape<typeof ToolSchemaSchema>;
}

/** What a fake hook does with a request. */
export type HookBehaviour = (
  request: DispatchHookRequest,
  signal: AbortSignal,
) =>
  | Promise<MessageInitShape<typeof DispatchHookResponseSchema>>
  | MessageInitShape<typeof DispatchHookResponseSchema>;

/** A hook subscriber. */
export class FakeHook implements HookEndpoint {
  readonly identity: PluginIdentity;
  /** Every request, in order. */
  readonly requests: DispatchHookRequest[] = [];
  readonly #behaviour: HookBehaviour;
  readonly #log: string[] | undefined;
  readonly #tracker: { inFlight: number; max: number } | undefined;

  constructor(
    name: string,
    behaviour: HookBehaviour = ack,
    options: { log?: string[]; tracker?: { inFlight: number; max: number } } =
      {},
  ) {
    this.identity = identity("tool", name);
    this.#behaviour = behaviour;
    this.#log = options.log;
    this.#tracker = options.tracker;
  }

  async dispatchHook(
    request: DispatchHookRequest,
    options?: EndpointCallOptions,
  ): Promise<DispatchHookResponse> {
    this.requests.push(request);
    this.#log?.push(
      `hook:${request.payload?.payload.case}:${this.identity.name}`,
    );
    const t = this.#tracker;
    if (t) t.max = Math.max(t.max, ++t.inFlight);
    try {
      return create(
        DispatchHookResponseSchema,
        await this.#behaviour(
          request,
          options?.signal ?? new AbortController().signal,
        ),
      );
    } finally {
      if (t) t.inFlight--;
    }
  }
}

/** The response of each mode: ack, pass the payload through, allow. */
export function ack(
  request: DispatchHookRequest,
): MessageInitShape<typeof DispatchHookResponseSchema> {
  switch (request.mode) {
    case 2:
      return {
        outcome: { case: "transform", value: { payload: request.payload! } },
      };
    case 3:
      return {
        outcome: { case: "veto", value: { decision: HookDecision.ALLOW } },
      };
    default:
      return { outcome: { case: "observe", value: {} } };
  }
}

/** A behaviour that never answers (until aborted). */
export function hang(_: unknown, signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), {
      once: true,
    });
  });
}

/** Collects a run's events and result. */
export async function collect<R>(
  run: SessionRun<R>,
): Promise<{ events: SessionEvent[]; result: R }> {
  const events: SessionEvent[] = [];
  for await (const e of run) events.push(e);
  return { events, result: await run.result };
}

/** A fresh in-memory store. */
export function memoryStore(): MemorySessionStore {
  return new MemorySessionStore();
}

/** A sleep that resolves at once and records the delays. */
export function recordingSleep(): {
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  delays: number[];
} {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms, signal) => {
      delays.push(ms);
      return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    },
  };
}

export { ModelErrorCategory, ToolKind };
