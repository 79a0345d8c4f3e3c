/**
 * `openai`: a model provider for OpenAI's API and any OpenAI-compatible
 * server (Ollama, llama.cpp server, vLLM, LM Studio), over the Responses
 * API or Chat Completions, with a direct `fetch` (`http.ts`).
 *
 * - GetCapabilities: one ModelSpec per served model, from the roster
 *   (`models.json`: context window, output limit, tool use, vision,
 *   parallel tool calls, reasoning effort, automatic caching, pricing with
 *   the cached-input tier) or, for ids the roster does not know, from the
 *   block's `model_defaults`. No network.
 * - Configure: validates the block (README.md lists the attributes);
 *   never echoes the key.
 * - StreamCompletion: streams canonical events; vendor failures arrive in
 *   band, classified into the model error taxonomy; cancellation aborts
 *   the HTTP request at once.
 * - CountTokens: exact (gpt-tokenizer, o200k) for roster models;
 *   UNIMPLEMENTED for others, so the kernel's fallback count applies.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  parseManifest,
  serve,
  service,
} from "../sdk/mod.ts";
import { ConfigError } from "./config.ts";
import { OpenAIProvider, RequestError } from "./provider.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "openai/plugin.json");

function statusOf(err: unknown): unknown {
  if (err instanceof ConfigError) {
    return new GrpcStatusError(Code.INVALID_ARGUMENT, err.message);
  }
  if (err instanceof RequestError) {
    const code = err.kind === "invalid"
      ? Code.INVALID_ARGUMENT
      : err.kind === "unconfigured"
      ? Code.FAILED_PRECONDITION
      : Code.UNIMPLEMENTED;
    return new GrpcStatusError(code, err.message);
  }
  return err;
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "model",
    },
    services: (ctx) => {
      const provider = new OpenAIProvider({
        // DEBUG: at the default floor (info) the kernel keeps none, and the
        // plugin then never opens its callback channel.
        log: (message, fields) => ctx.log.debug(message, fields),
      });
      return [
        service(ModelService, {
          getCapabilities: () => ({
            capabilities: {
              models: provider.specs(),
              slashCommands: [],
              configSchema: configSchemaOf(manifest),
              supportedHookPoints: [],
            },
          }),
          configure: async (req) => {
            try {
              await provider.configure(req.config);
            } catch (err) {
              throw statusOf(err);
            }
            return {};
          },
          async *streamCompletion(req, { signal }) {
            // Validate before the first event, so a bad request is a status.
            try {
              provider.prepare(req);
            } catch (err) {
              throw statusOf(err);
            }
            yield* provider.stream(req, signal);
          },
          countTokens: async (req) => {
            try {
              return { count: BigInt(await provider.countTokens(req)) };
            } catch (err) {
              throw statusOf(err);
            }
          },
          render: () => {
            throw new GrpcStatusError(
              Code.UNIMPLEMENTED,
              "openai has no Render",
            );
          },
          getAccount: () => {
            throw new GrpcStatusError(
              Code.UNIMPLEMENTED,
              "openai has no account snapshot",
            );
          },
          describe: () => describeResponse(manifest),
        }),
      ];
    },
  });
}
