/**
 * The three small interfaces the agent loop calls plugins through —
 * {@linkcode ModelEndpoint}, {@linkcode ToolEndpoint} and
 * {@linkcode HookEndpoint} — and their adapters over a launched
 * {@linkcode Plugin}. Unit tests pass fakes instead.
 *
 * Errors that cross gRPC are translated here, once: a model call's status
 * becomes a {@linkcode ModelCallError} with its category; an
 * `UNIMPLEMENTED` optional RPC (`Preview`, `CountTokens`) becomes
 * `undefined`.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import type { Capabilities } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import type { StreamEvent } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import {
  type CountTokensRequest,
  CountTokensRequestSchema,
  type StreamCompletionRequest,
} from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import type {
  ToolCall,
  ToolSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { ToolEvent } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import type { RenderTree } from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import type { DispatchHookRequest } from "../../proto/gen/pluggableharness/hook/v1/rpc_request_pb.ts";
import type { DispatchHookResponse } from "../../proto/gen/pluggableharness/hook/v1/rpc_response_pb.ts";
import type { HookSubscriberService } from "../../proto/gen/pluggableharness/hook/v1/service_pb.ts";
import type { ServiceClient } from "../../proto/rpc.ts";
import type { Plugin } from "../plugin/plugin.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { ModelCallError, type ModelErrorCode } from "./errors.ts";
import type {
  ContextProviderEndpoint,
  MemoryProviderEndpoint,
} from "./provider_context.ts";

/**
 * Request metadata the kernel sets on calls made for a session: the
 * provider's local name in `agent.hcl` (a plugin does not otherwise know
 * it), and the session and turn (hook payloads and some requests carry no
 * session id).
 */
export const PROVIDER_HEADER = "ph-provider";
/**
 * Request metadata `ph-compact: force` on a compactor's `Contribute`: a
 * forced pass (`compactNow()`, `/compact`), whatever the fill.
 */
export const COMPACT_HEADER = "ph-compact";
/** See {@linkcode PROVIDER_HEADER}. */
export const SESSION_HEADER = "ph-session-id";
/** See {@linkcode PROVIDER_HEADER}. */
export const TURN_HEADER = "ph-turn-id";

/** Per-call options of every endpoint method. */
export interface EndpointCallOptions {
  /** Cancels the call (turn cancellation, or a deadline the loop enforces). */
  readonly signal?: AbortSignal;
  /** A transport deadline in milliseconds, when the loop sets one. */
  readonly timeoutMs?: number;
  /** Request metadata (`ph-session-id`, `ph-provider`, …). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A model provider as the loop uses it. */
export interface ModelEndpoint {
  /** The provider build (the `message` event's producer). */
  readonly identity: PluginIdentity;
  /**
   * The capability envelope (models, pricing). Cheap; the loop calls it
   * once per session.
   */
  capabilities(options?: EndpointCallOptions): Promise<Capabilities>;
  /**
   * Streams one completion. Failures before the stream opens are thrown as
   * {@linkcode ModelCallError}; failures during it arrive in band as
   * `StreamEvent.error`.
   */
  streamCompletion(
    request: StreamCompletionRequest,
    options?: EndpointCallOptions,
  ): AsyncIterable<StreamEvent>;
  /** Exact token count of a would-be request; `undefined` when unsupported. */
  countTokens?(
    request: CountTokensRequest,
    options?: EndpointCallOptions,
  ): Promise<number | undefined>;
}

/** A tool provider as the loop uses it. */
export interface ToolEndpoint {
  /** The provider build (the `tool_call` / `tool_result` producer). */
  readonly identity: PluginIdentity;
  /** The operations it offers (`GetSchema`). */
  schemas(options?: EndpointCallOptions): Promise<ToolSchema[]>;
  /** Runs one call; the stream ends with exactly one `result` or `error`. */
  invoke(
    call: ToolCall,
    options?: EndpointCallOptions,
  ): AsyncIterable<ToolEvent>;
  /**
   * A side-effect-free dry run for the plan; `undefined` when the provider
   * has no `Preview`.
   */
  preview?(
    call: ToolCall,
    options?: EndpointCallOptions,
  ): Promise<RenderTree | undefined>;
}

/** A hook subscriber (any plugin hosting `HookSubscriberService`). */
export interface HookEndpoint {
  /** The subscriber build (the `hook_error` producer when it fails). */
  readonly identity: PluginIdentity;
  /** One unary dispatch; the loop enforces the subscriber's timeout. */
  dispatchHook(
    request: DispatchHookRequest,
    options?: EndpointCallOptions,
  ): Promise<DispatchHookResponse>;
}

function callOptions(
  options: EndpointCallOptions | undefined,
): {
  signal?: AbortSignal;
  timeoutMs?: number;
  headers?: Readonly<Record<string, string>>;
} {
  const out: {
    signal?: AbortSignal;
    timeoutMs?: number;
    headers?: Readonly<Record<string, string>>;
  } = {};
  if (options?.signal) out.signal = options.signal;
  if (options?.headers) out.headers = options.headers;
  if (options?.timeoutMs !== undefined && Number.isFinite(options.timeoutMs)) {
    out.timeoutMs = options.timeoutMs;
  }
  return out;
}

/**
 * Maps a gRPC status of a model call to its category (plugins.md §3.3).
 *
 * @param code The gRPC status code.
 * @param message The status message (distinguishes the two
 * `RESOURCE_EXHAUSTED` categories).
 * @returns The category code.
 */
export function modelErrorCodeOfStatus(
  code: number,
  message: string,
): ModelErrorCode {
  switch (code) {
    case Code.RESOURCE_EXHAUSTED:
      return /context/i.test(message)
        ? "context_length_exceeded"
        : "rate_limited";
    case Code.UNAVAILABLE:
      return "overloaded";
    case Code.UNAUTHENTICATED:
      return "auth_error";
    case Code.INVALID_ARGUMENT:
      return "invalid_request";
    case Code.FAILED_PRECONDITION:
      return "content_filtered";
    default:
      return "unknown";
  }
}

/**
 * The loop's view of a launched model plugin.
 *
 * @param plugin The launched plugin.
 * @param provider The provider's local name (for error messages).
 * @returns The endpoint.
 */
export function modelEndpointOf(
  plugin: Plugin,
  provider: string = plugin.identity.name,
): ModelEndpoint {
  const client = plugin.client(ModelService);
  return {
    identity: plugin.identity,
    async capabilities(options) {
      const res = await client.getCapabilities({}, callOptions(options));
      if (!res.capabilities) {
        throw new TypeError(
          `Cannot use model provider "${provider}": GetCapabilities returned no capabilities`,
        );
      }
      return res.capabilities;
    },
    async *streamCompletion(request, options) {
      try {
        yield* client.streamCompletion(request, callOptions(options));
      } catch (err) {
        if (err instanceof GrpcStatusError && err.code !== Code.CANCELLED) {
          const code = modelErrorCodeOfStatus(err.code, err.message);
          throw new ModelCallError(
            code,
            provider,
            request.modelId,
            err.message,
            {
              retryable: code === "rate_limited" || code === "overloaded",
            },
            { cause: err },
          );
        }
        throw err;
      }
    },
    async countTokens(request, options) {
      try {
        const res = await client.countTokens(
          create(CountTokensRequestSchema, request),
          callOptions(options),
        );
        return Number(res.count);
      } catch (err) {
        if (err instanceof GrpcStatusError && err.code === Code.UNIMPLEMENTED) {
          return undefined;
        }
        throw err;
      }
    },
  };
}

/**
 * The loop's view of a launched tool plugin.
 *
 * @param plugin The launched plugin.
 * @returns The endpoint.
 */
export function toolEndpointOf(plugin: Plugin): ToolEndpoint {
  const client = plugin.client(ToolService);
  return {
    identity: plugin.identity,
    async schemas(options) {
      return (await client.getSchema({}, callOptions(options))).tools;
    },
    async *invoke(call, options) {
      for await (const res of client.invoke({ call }, callOptions(options))) {
        if (res.event) yield res.event;
      }
    },
    async preview(call, options) {
      try {
        return (await client.preview({ call }, callOptions(options))).preview;
      } catch (err) {
        if (err instanceof GrpcStatusError && err.code === Code.UNIMPLEMENTED) {
          return undefined;
        }
        throw err;
      }
    },
  };
}

/**
 * The loop's view of a launched plugin's hook subscriber service.
 *
 * @param plugin The launched plugin.
 * @returns The endpoint.
 */
export function hookEndpointOf(plugin: Plugin): HookEndpoint {
  // The service's descriptors load at the first dispatch, not with the
  // kernel.
  let connected:
    | Promise<ServiceClient<typeof HookSubscriberService>>
    | undefined;
  const connect = () =>
    connected ??= import(
      "../../proto/gen/pluggableharness/hook/v1/service_pb.ts"
    ).then((m) => plugin.client(m.HookSubscriberService));
  return {
    identity: plugin.identity,
    async dispatchHook(request, options) {
      return await (await connect()).dispatchHook(
        request,
        callOptions(options),
      );
    },
  };
}

/**
 * The chain's view of a launched context plugin: `GetCapabilities` once,
 * then `Contribute` per model call.
 *
 * @param plugin The launched plugin (already configured).
 * @param name The provider's local name.
 * @param tokenBudget `token_budget` from `agent.hcl`, when set.
 * @returns The endpoint.
 */
export async function contextEndpointOf(
  plugin: Plugin,
  name: string,
  tokenBudget?: number,
): Promise<ContextProviderEndpoint> {
  // The context and memory services' descriptors load with the first
  // provider of their kind, not with the kernel.
  const { ContextService } = await import(
    "../../proto/gen/pluggableharness/context/v1/service_pb.ts"
  );
  const client = plugin.client(ContextService);
  const caps = (await client.getCapabilities({})).capabilities;
  if (!caps) {
    throw new TypeError(
      `Cannot use context provider "${name}": GetCapabilities returned no capabilities`,
    );
  }
  return {
    category: "context",
    identity: plugin.identity,
    name,
    defaultTokenBudget: Number(caps.defaultTokenBudget),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    compactor: caps.compactor,
    stability: caps.stability,
    contribute: (request, { forceCompaction, ...options }) =>
      client.contribute(
        request,
        chainCallOptions(
          name,
          request,
          options,
          forceCompaction ? { [COMPACT_HEADER]: "force" } : {},
        ),
      ),
  };
}

/**
 * The chain's view of a launched memory plugin: `GetCapabilities` once,
 * then `Recall` per model call.
 *
 * @param plugin The launched plugin (already configured).
 * @param name The provider's local name.
 * @param tokenBudget `token_budget` from `agent.hcl`, when set.
 * @returns The endpoint.
 */
export async function memoryEndpointOf(
  plugin: Plugin,
  name: string,
  tokenBudget?: number,
): Promise<MemoryProviderEndpoint> {
  const { MemoryService } = await import(
    "../../proto/gen/pluggableharness/memory/v1/service_pb.ts"
  );
  const client = plugin.client(MemoryService);
  const caps = (await client.getCapabilities({})).capabilities;
  if (!caps) {
    throw new TypeError(
      `Cannot use memory provider "${name}": GetCapabilities returned no capabilities`,
    );
  }
  return {
    category: "memory",
    name,
    defaultTokenBudget: Number(caps.defaultTokenBudget),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    async recall(request, options) {
      return (await client.recall(
        request,
        chainCallOptions(name, request, options),
      )).records;
    },
  };
}

/** A chain call's options, with the provider, session and turn headers. */
function chainCallOptions(
  provider: string,
  request: { readonly sessionId: string; readonly turnId: string },
  options: EndpointCallOptions,
  extra: Readonly<Record<string, string>> = {},
): ReturnType<typeof callOptions> {
  return callOptions({
    ...options,
    headers: {
      ...extra,
      [PROVIDER_HEADER]: provider,
      [SESSION_HEADER]: request.sessionId,
      [TURN_HEADER]: request.turnId,
    },
  });
}
