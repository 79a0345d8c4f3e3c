/**
 * `anthropic`: a model provider for Anthropic's Messages API, streaming,
 * over a direct `fetch` (`client.ts`) and a small SSE decoder (`sse.ts`).
 *
 * - GetCapabilities answers from `models.json` (no network): one ModelSpec
 *   per current model, with context window, output cap, tool use, vision,
 *   documents, parallel tool calls, thinking controls, explicit cache
 *   markers and prices per million tokens (cache writes and reads too).
 * - Configure checks the provider block (`api_key` from
 *   `env("ANTHROPIC_API_KEY")`, `base_url`, `default_max_tokens`,
 *   `timeout_ms`); requests are never retried here (the kernel retries).
 * - StreamCompletion checks the generation parameters against the model
 *   (INVALID_ARGUMENT naming the parameter), translates the canonical
 *   request (`translate.ts`), streams the response and translates each
 *   event (`stream.ts`). Vendor failures travel in band as classified
 *   `StreamEvent.error`s (`errors.ts`). A cancelled call aborts the HTTP
 *   request at once.
 * - CountTokens is exact: `POST /v1/messages/count_tokens`.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { ModelErrorCategory } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import {
  AuthMethod,
  MeteringDomain,
  StopReason,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  parseManifest,
  type PluginLogger,
  serve,
  service,
} from "../sdk/mod.ts";
import {
  ConfigError,
  parseSettings,
  postJson,
  type Settings,
} from "./client.ts";
import {
  classifyError,
  classifyVendorError,
  type ModelErrorInit,
  redact,
  statusCodeOf,
} from "./errors.ts";
import { SseDecoder } from "./sse.ts";
import {
  findModel,
  modelSpec,
  parseRoster,
  type Roster,
  type RosterModel,
} from "./roster.ts";
import {
  ProtocolError,
  type StreamEventInit,
  StreamTranslator,
  type VendorEvent,
} from "./stream.ts";
import {
  RequestError,
  toWireCountRequest,
  toWireRequest,
} from "./translate.ts";
import manifestJson from "./plugin.json" with { type: "json" };
import modelsJson from "./models.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "anthropic/plugin.json");
const roster: Roster = parseRoster(modelsJson, "anthropic/models.json");

interface Configured {
  settings: Settings;
}

let configured: Configured | undefined;

function requireConfigured(): Configured {
  if (!configured) {
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      "the anthropic provider is not configured: Configure must set api_key first",
    );
  }
  return configured;
}

function resolveModel(id: string): RosterModel {
  if (!id) {
    throw new GrpcStatusError(Code.INVALID_ARGUMENT, "model_id is required");
  }
  const model = findModel(roster, id);
  if (!model) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `model_id: unknown model "${id}"; this provider serves ${
        roster.models.map((m) => m.id).join(", ")
      }`,
    );
  }
  return model;
}

function invalid(err: unknown): never {
  if (err instanceof RequestError) {
    throw new GrpcStatusError(Code.INVALID_ARGUMENT, err.message);
  }
  throw err;
}

const cancelled: StreamEventInit = {
  event: { case: "stop", value: { reason: StopReason.CANCELLED } },
};

/**
 * Streams one completion: `postJson` sends the request (`stream: true`;
 * auth, headers, HTTP errors), and the response body is read a
 * network chunk at a time: every event in the chunk is translated, and
 * adjacent fragments are merged before they go out (fewer gRPC messages
 * under load, no added delay).
 *
 * @param c The configured client.
 * @param body The vendor request body.
 * @param signal Aborts the HTTP request.
 * @param log Where failures are logged (never the key).
 * @returns The canonical events.
 */
async function* streamVendor(
  c: Configured,
  body: Record<string, unknown>,
  signal: AbortSignal,
  log?: PluginLogger,
): AsyncGenerator<StreamEventInit> {
  const { apiKey, baseUrl } = c.settings;
  const translator = new StreamTranslator();
  const decoder = new SseDecoder();
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let finished = false;
  try {
    const response = await postJson(c.settings, "/v1/messages", body, signal);
    yield {
      event: {
        case: "streamStart",
        value: {
          providerRequestId: response.headers.get("request-id") ?? "",
          correlationIds: {},
        },
      },
    };
    if (!response.body) throw new ProtocolError("the response has no body");
    reader = response.body.getReader();
    let vendorError: ModelErrorInit | undefined;
    while (!vendorError) {
      const { value, done } = await reader.read();
      const out: StreamEventInit[] = [];
      for (const m of done ? decoder.end() : decoder.push(value)) {
        if (m.event === "ping" || m.data === "") continue;
        let data: unknown;
        try {
          data = JSON.parse(m.data);
        } catch {
          throw new ProtocolError(
            `a ${m.event} event whose data is not JSON: ${
              m.data.slice(0, 200)
            }`,
          );
        }
        if (m.event === "error") {
          vendorError = classifyVendorError({ body: data, apiKey });
          break;
        }
        translator.push(data as VendorEvent, out);
      }
      for (const e of coalesce(out)) yield e;
      if (done) break;
    }
    finished = true;
    if (vendorError) {
      log?.warn(`model call failed: ${vendorError.message}`, {
        category: ModelErrorCategory[vendorError.category ?? 0] ?? "UNKNOWN",
        retryable: vendorError.retryable ?? false,
      });
      yield { event: { case: "error", value: { error: vendorError } } };
      return;
    }
    if (signal.aborted) {
      yield cancelled;
      return;
    }
    if (!translator.done) {
      throw new ProtocolError("the stream ended before message_stop");
    }
  } catch (err) {
    if (signal.aborted) {
      yield cancelled;
      return;
    }
    const error = err instanceof ProtocolError
      ? {
        category: ModelErrorCategory.UNKNOWN,
        message: `the Anthropic stream broke off: ${err.message}`,
        retryable: true,
        rawDetail: err.message,
      }
      : classifyError(err, apiKey, baseUrl);
    log?.warn(`model call failed: ${error.message}`, {
      category: ModelErrorCategory[error.category ?? 0] ?? "UNKNOWN",
      retryable: error.retryable ?? false,
    });
    yield { event: { case: "error", value: { error } } };
  } finally {
    // A consumer that stopped early (a cancelled call): drop the connection.
    if (reader && !finished) await reader.cancel().catch(() => {});
  }
}

/**
 * Merges adjacent fragments of the same kind (text, thinking text, one tool
 * call's arguments) into one event. Concatenation keeps the content exact.
 *
 * @param batch Events in order.
 * @returns Fewer events, same content.
 */
function coalesce(batch: readonly StreamEventInit[]): StreamEventInit[] {
  const out: StreamEventInit[] = [];
  for (const e of batch) {
    const last = out.at(-1)?.event;
    const cur = e.event;
    if (last && cur) {
      if (last.case === "textDelta" && cur.case === "textDelta") {
        out[out.length - 1] = {
          event: {
            case: "textDelta",
            value: { text: (last.value.text ?? "") + (cur.value.text ?? "") },
          },
        };
        continue;
      }
      if (last.case === "thinkingDelta" && cur.case === "thinkingDelta") {
        out[out.length - 1] = {
          event: {
            case: "thinkingDelta",
            value: { text: (last.value.text ?? "") + (cur.value.text ?? "") },
          },
        };
        continue;
      }
      if (
        last.case === "toolCallDelta" && cur.case === "toolCallDelta" &&
        last.value.id === cur.value.id
      ) {
        out[out.length - 1] = {
          event: {
            case: "toolCallDelta",
            value: {
              id: cur.value.id ?? "",
              argumentsFragment: (last.value.argumentsFragment ?? "") +
                (cur.value.argumentsFragment ?? ""),
            },
          },
        };
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "model",
    },
    services: (ctx) => [
      service(ModelService, {
        getCapabilities: () => ({
          capabilities: {
            models: roster.models.map(modelSpec),
            slashCommands: [],
            configSchema: configSchemaOf(manifest),
            supportedHookPoints: [],
            auth: {
              method: AuthMethod.API_KEY,
              metering: MeteringDomain.METERED_API,
              labels: {},
            },
            catalogEtag: `models.json@${roster.updated}`,
          },
        }),
        configure: (req) => {
          try {
            const settings = parseSettings(req.config);
            configured = { settings };
          } catch (err) {
            if (err instanceof ConfigError) {
              throw new GrpcStatusError(Code.INVALID_ARGUMENT, err.message);
            }
            throw err;
          }
          return {};
        },
        async *streamCompletion(req, { signal }) {
          const c = requireConfigured();
          const model = resolveModel(req.modelId);
          let body: Record<string, unknown>;
          try {
            body = toWireRequest(req, model, {
              defaultMaxTokens: c.settings.defaultMaxTokens,
            });
          } catch (err) {
            invalid(err);
          }
          ctx.log.debug(
            `streaming ${model.id}: ${req.messages.length} messages, ${req.tools.length} tools`,
            { session: req.callContext?.sessionId ?? "" },
          );
          yield* streamVendor(c, body, signal, ctx.log);
        },
        countTokens: async (req, { signal }) => {
          const c = requireConfigured();
          if (!req.modelId) {
            throw new GrpcStatusError(
              Code.INVALID_ARGUMENT,
              "CountTokens needs model_id",
            );
          }
          const model = resolveModel(req.modelId);
          let body: Record<string, unknown>;
          try {
            body = toWireCountRequest(req, model);
          } catch (err) {
            invalid(err);
          }
          try {
            const res = await postJson(
              c.settings,
              "/v1/messages/count_tokens",
              body,
              signal,
            );
            const counted = await res.json() as { input_tokens?: unknown };
            if (
              typeof counted.input_tokens !== "number" ||
              !Number.isSafeInteger(counted.input_tokens) ||
              counted.input_tokens < 0
            ) {
              throw new ProtocolError(
                `count_tokens answered without a whole input_tokens: ${
                  JSON.stringify(counted).slice(0, 200)
                }`,
              );
            }
            return { count: BigInt(counted.input_tokens) };
          } catch (err) {
            if (signal.aborted) {
              throw new GrpcStatusError(Code.CANCELLED, "cancelled");
            }
            const e = classifyError(
              err,
              c.settings.apiKey,
              c.settings.baseUrl,
            );
            throw new GrpcStatusError(
              statusCodeOf(e.category ?? ModelErrorCategory.UNKNOWN),
              redact(e.message ?? "count_tokens failed", c.settings.apiKey),
            );
          }
        },
        render: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "anthropic has no Render",
          );
        },
        getAccount: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "anthropic has no account snapshot",
          );
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
