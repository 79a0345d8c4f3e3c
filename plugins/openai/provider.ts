/**
 * The `openai` provider's state and operations, independent of the gRPC
 * server: Configure, the capability envelope, one streamed completion
 * (a direct `fetch`, `http.ts`, never retried here, aborted with the
 * caller's signal) and CountTokens. `main.ts` serves it as `ModelService`.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import {
  type ModelSpecSchema,
  StopReason,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { ConfigError, type OpenAIConfig, parseConfig } from "./config.ts";
import { classifyFailure, type ModelErrorInit, redact } from "./errors.ts";
import {
  modelSpecOf,
  ROSTER,
  type RosterModel,
  rosterModel,
  unknownModel,
} from "./roster.ts";
import { ConnectionError, HttpStatusError, request } from "./http.ts";
import { coalesce, sseBatches } from "./sse.ts";
import {
  type ChatChunk,
  ChatStream,
  errorEvent,
  rateLimitEvent,
  type ResponsesEvent,
  ResponsesStream,
  type StreamEventInit,
} from "./stream.ts";
import { countRequestTokens, type TokenCountInput } from "./tokens.ts";
import {
  chatRequest,
  ParamError,
  responsesRequest,
  validateRequest,
} from "./translate.ts";

/** A request the provider refuses before any network call. */
export class RequestError extends Error {
  /**
   * Creates the error.
   *
   * @param kind `invalid` (INVALID_ARGUMENT), `unconfigured`
   * (FAILED_PRECONDITION) or `unimplemented` (UNIMPLEMENTED).
   * @param message The message (never holds a secret).
   */
  constructor(
    readonly kind: "invalid" | "unconfigured" | "unimplemented",
    message: string,
  ) {
    super(message);
    this.name = "RequestError";
  }
}

/** Options of {@linkcode OpenAIProvider}. */
export interface OpenAIProviderOptions {
  /** Receives log lines (never holding a secret). */
  log?: (message: string, fields?: JsonObject) => void;
}

/** The provider: configured once, then streams completions. */
export class OpenAIProvider {
  readonly #log: (message: string, fields?: JsonObject) => void;
  #config: OpenAIConfig | undefined;
  #models = new Map<string, RosterModel>();

  /**
   * Creates an unconfigured provider.
   *
   * @param options The logger.
   */
  constructor(options: OpenAIProviderOptions) {
    this.#log = options.log ?? (() => {});
  }

  /** The served models, in order (the whole roster before Configure). */
  get models(): RosterModel[] {
    return this.#config ? [...this.#models.values()] : [...ROSTER];
  }

  /**
   * The ModelSpecs of GetCapabilities (no network).
   *
   * @returns One spec per served model.
   */
  specs(): MessageInitShape<typeof ModelSpecSchema>[] {
    return this.models.map(modelSpecOf);
  }

  /**
   * Applies a provider block: validates it, builds the client and, with
   * `discover`, lists the server's models.
   *
   * @param raw The config (secrets resolved).
   * @throws {ConfigError} For an invalid block (INVALID_ARGUMENT).
   */
  async configure(raw: JsonObject | undefined): Promise<void> {
    const cfg = parseConfig(raw);
    if (!baseUrlGranted(cfg.baseUrl)) {
      const u = new URL(cfg.baseUrl);
      const host = u.port
        ? u.host
        : `${u.hostname}:${u.protocol === "https:" ? "443" : "80"}`;
      throw new ConfigError(
        `config attribute "base_url" names ${host}, which this provider may not reach: add "${host}" to allow_net in its provider block`,
      );
    }
    const ids = [
      ...(cfg.models ?? (cfg.isOpenAI ? ROSTER.map((m) => m.id) : [])),
    ];
    if (cfg.discover) {
      for (const id of await this.#discover(cfg)) {
        if (!ids.includes(id)) ids.push(id);
      }
    }
    if (ids.length === 0) {
      throw new ConfigError(
        `the server at ${cfg.baseUrl} lists no models and "models" is not set`,
      );
    }
    const models = new Map<string, RosterModel>();
    for (const id of ids) {
      models.set(id, rosterModel(id) ?? unknownModel(id, cfg.modelDefaults));
    }
    this.#config = cfg;
    this.#models = models;
    this.#log("configured", {
      base_url: cfg.baseUrl,
      api: cfg.api,
      models: ids.length,
      keyed: cfg.apiKey !== undefined,
    });
  }

  async #discover(cfg: OpenAIConfig): Promise<string[]> {
    try {
      const ids: string[] = [];
      const res = await request(
        cfg,
        "GET",
        "/models",
        undefined,
        AbortSignal.timeout(10_000),
      );
      const page = await res.json() as { data?: unknown };
      if (!Array.isArray(page.data)) {
        throw new SyntaxError("the model list has no data array");
      }
      for (const m of page.data as { id?: unknown }[]) {
        if (typeof m?.id === "string") ids.push(m.id);
      }
      return ids.sort();
    } catch (err) {
      throw new ConfigError(
        `cannot list the models of ${cfg.baseUrl} (discover = true): ${
          redact(err instanceof Error ? err.message : String(err), [cfg.apiKey])
        }`,
      );
    }
  }

  #model(modelId: string): RosterModel {
    if (!this.#config) {
      throw new RequestError(
        "unconfigured",
        "the openai provider is not configured: Configure must run first",
      );
    }
    if (!modelId) throw new RequestError("invalid", "model_id is required");
    const model = this.#models.get(modelId);
    if (!model) {
      throw new RequestError(
        "invalid",
        `unknown model "${modelId}": this provider serves ${
          [...this.#models.keys()].map((m) => `"${m}"`).join(", ")
        }`,
      );
    }
    return model;
  }

  /**
   * Validates a request and builds its wire body (no network).
   *
   * @param req The request.
   * @returns The model, the API and the body.
   * @throws {RequestError} For a request the model cannot take.
   */
  prepare(
    req: StreamCompletionRequest,
  ): {
    model: RosterModel;
    api: "chat" | "responses";
    body: Record<string, unknown>;
  } {
    const model = this.#model(req.modelId);
    const api = this.#config!.api;
    try {
      validateRequest(req, model, api);
      const body = api === "chat"
        ? chatRequest(req, model)
        : responsesRequest(req, model);
      return { model, api, body };
    } catch (err) {
      if (err instanceof ParamError) {
        throw new RequestError("invalid", err.message);
      }
      throw err;
    }
  }

  /**
   * Streams one completion as canonical events. Vendor failures arrive in
   * band as a final `error` event; a cancelled stream ends with `stop`
   * CANCELLED (when anyone still listens) and aborts the HTTP request.
   *
   * @param req The request.
   * @param signal Cancels the call.
   * @returns The events.
   * @throws {RequestError} Before the stream for an invalid request.
   */
  async *stream(
    req: StreamCompletionRequest,
    signal: AbortSignal,
  ): AsyncGenerator<StreamEventInit> {
    const { model, api, body } = this.prepare(req);
    const config = this.#config!;
    const secrets = [this.#config!.apiKey];
    const thinking = model.reasoning !== undefined;
    const out: StreamEventInit[] = [];
    const cancelled: StreamEventInit = {
      event: { case: "stop", value: { reason: StopReason.CANCELLED } },
    };
    try {
      const res = await request(
        config,
        "POST",
        api === "chat" ? "/chat/completions" : "/responses",
        body,
        signal,
      );
      yield streamStart(res.headers);
      const limits = rateLimitEvent(res.headers);
      if (limits) yield limits;
      if (!res.body) throw new SyntaxError("the response has no body");
      const chat = api === "chat"
        ? new ChatStream({ thinking, secrets })
        : undefined;
      const responses = api === "responses"
        ? new ResponsesStream({ thinking, secrets })
        : undefined;
      let finished = false;
      let errored = false;
      for await (const batch of sseBatches(res.body)) {
        for (const sse of batch) {
          if (chat) {
            if (sse.data === "[DONE]") {
              finished = true;
              break;
            }
            const chunk = JSON.parse(sse.data) as ChatChunk & {
              error?: WireError;
            };
            if (chunk.error) {
              out.push(errorEvent(inStreamFailure(chunk.error, secrets)));
              finished = errored = true;
              break;
            }
            chat.push(chunk, out);
          } else {
            const ev = JSON.parse(sse.data) as ResponsesEvent & {
              error?: WireError;
            };
            if (sse.event === "error" && ev.type !== "error") {
              out.push(errorEvent(inStreamFailure(ev.error ?? ev, secrets)));
              finished = errored = true;
              break;
            }
            responses!.push(ev, out);
            if (responses!.terminal) {
              finished = true;
              break;
            }
          }
        }
        if (out.length > 0) {
          yield* coalesce(out);
          out.length = 0;
        }
        if (finished) break;
      }
      if (signal.aborted) return yield cancelled;
      if (!errored) {
        if (chat) chat.end(out);
        else responses!.end(out);
      }
      yield* out;
    } catch (err) {
      if (signal.aborted) {
        yield cancelled;
        return;
      }
      if (out.length > 0) yield* out;
      yield errorEvent(failureOf(err, secrets));
    }
  }

  /**
   * Counts a would-be request's tokens exactly (roster models only).
   *
   * @param req The request (`model_id` set).
   * @returns The count.
   * @throws {RequestError} `unimplemented` for models without a tokenizer.
   */
  async countTokens(
    req: TokenCountInput & { modelId: string },
  ): Promise<number> {
    const model = this.#model(req.modelId);
    if (!model.known) {
      throw new RequestError(
        "unimplemented",
        `model "${model.id}" has no exact tokenizer; the kernel's fallback count applies`,
      );
    }
    return await countRequestTokens(req);
  }
}

/** An error object inside a stream (`{message, type, code}`). */
interface WireError {
  message?: string;
  type?: string | null;
  code?: string | null;
}

function inStreamFailure(
  e: WireError,
  secrets: readonly (string | undefined)[],
): ModelErrorInit {
  return classifyFailure({
    code: e.code ?? null,
    type: e.type ?? null,
    message: e.message ?? "the stream reported an error",
  }, secrets);
}

function streamStart(headers: Headers): StreamEventInit {
  const id = headers.get("x-request-id") ?? "";
  return {
    event: {
      case: "streamStart",
      value: { providerRequestId: id, correlationIds: {} },
    },
  };
}

/**
 * Classifies anything a request or its stream threw.
 *
 * @param err The error.
 * @param secrets Secrets to scrub.
 * @returns The ModelError init.
 */
export function failureOf(
  err: unknown,
  secrets: readonly (string | undefined)[],
): ModelErrorInit {
  if (err instanceof HttpStatusError) {
    const body = err.error;
    const message = typeof body?.message === "string"
      ? body.message
      : err.message;
    return classifyFailure({
      status: err.status,
      code: typeof body?.code === "string" ? body.code : null,
      type: typeof body?.type === "string" ? body.type : null,
      message,
      headers: err.headers,
    }, secrets);
  }
  if (err instanceof ConnectionError) {
    return classifyFailure({ network: true, message: err.message }, secrets);
  }
  const message = err instanceof Error ? err.message : String(err);
  // Network failures (TypeError from fetch, resets) and malformed streams.
  return classifyFailure({
    network: !(err instanceof SyntaxError),
    message,
  }, secrets);
}

/**
 * Whether the plugin may dial `url`: what the process was granted (the
 * kernel passes exactly the provider block's `allow_net`).
 */
function baseUrlGranted(url: string): boolean {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  try {
    return Deno.permissions.querySync({
      name: "net",
      host: `${u.hostname}:${port}`,
    }).state === "granted";
  } catch {
    return false;
  }
}
