/**
 * `scripted`: a model provider that replays a script of assistant turns, so
 * that tests and the demo are deterministic. It declares a real capability
 * envelope (context window, tool use, thinking and caching axes, pricing
 * tiers in USD per million tokens), so the kernel's routing and cost bounds
 * can be tested against it.
 *
 * - The turn played for a request is the number of assistant messages in
 *   its history: a resumed session continues where it left off, and the
 *   choice never depends on the plugin's state.
 * - Text and thinking stream word by word; tool calls stream as
 *   `tool_call_start`, a few `tool_call_delta` fragments of the JSON
 *   arguments, and `tool_call_done`; every turn ends with `usage` then
 *   `stop` (or a scripted `error`).
 * - A turn's `expect` checks the last user message (a kernel that sent the
 *   wrong history gets an INVALID_REQUEST naming the mismatch); a turn's
 *   `delay_ms` spaces the events, so cancellation can be tested.
 * - CountTokens is exact by definition: the scripted tokenizer counts
 *   whitespace-separated words (see `script.ts`).
 *
 * The script is read and fully validated at Configure, from the file named
 * by `script` (a path the plugin may read, relative to the project) or from the inline
 * `turns_json`. The format is documented in README.md and `script.ts`.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { StopReason } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  parseManifest,
  serve,
  service,
} from "../sdk/mod.ts";
import {
  countRequestTokens,
  modelSpec,
  parseScript,
  parseScriptText,
  planTurn,
  type Script,
  ScriptError,
  type StreamEventInit,
} from "./script.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "scripted/plugin.json");

/** The script in force; undefined until Configure. */
let script: Script | undefined;

function invalidConfig(message: string): never {
  throw new GrpcStatusError(Code.INVALID_ARGUMENT, message);
}

async function loadScript(config: JsonObject | undefined): Promise<Script> {
  const cfg = config ?? {};
  for (const key of Object.keys(cfg)) {
    if (key !== "script" && key !== "turns_json") {
      invalidConfig(
        `config attribute "${key}" is not supported by scripted (it takes "script" or "turns_json")`,
      );
    }
  }
  const path = cfg.script ?? undefined;
  const inline = cfg.turns_json ?? undefined;
  if (path !== undefined && typeof path !== "string") {
    invalidConfig(`config attribute "script" must be a string`);
  }
  if (inline !== undefined && typeof inline !== "string") {
    invalidConfig(`config attribute "turns_json" must be a string`);
  }
  const hasPath = typeof path === "string" && path !== "";
  const hasInline = typeof inline === "string" && inline !== "";
  if (hasPath === hasInline) {
    invalidConfig(
      hasPath
        ? `config attributes "script" and "turns_json" are exclusive: set one`
        : `config attribute "script" (a path) or "turns_json" (inline JSON) is required`,
    );
  }
  try {
    if (hasInline) return parseScriptText(inline as string, "turns_json");
    // Plugins run in the kernel's working directory (the project), so a
    // relative path means what the operator wrote in agent.hcl.
    const file = path as string;
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        invalidConfig(`cannot read script "${file}": the file does not exist`);
      }
      if (
        err instanceof Deno.errors.NotCapable ||
        err instanceof Deno.errors.PermissionDenied
      ) {
        invalidConfig(
          `cannot read script "${file}": missing read permission (the plugin may read only inside the kernel's working directory, granted with allow_read = ["."] in the provider block)`,
        );
      }
      invalidConfig(
        `cannot read script "${file}": ${(err as Error).message}`,
      );
    }
    return parseScriptText(text, `"${file}"`);
  } catch (err) {
    if (err instanceof ScriptError) invalidConfig(err.message);
    throw err;
  }
}

/** The default script's model before Configure: capabilities stay answerable. */
const UNCONFIGURED: Script = parseScript({ turns: [{ text: "unconfigured" }] });

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
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
            models: [modelSpec((script ?? UNCONFIGURED).model)],
            slashCommands: [],
            configSchema: configSchemaOf(manifest),
            supportedHookPoints: [],
          },
        }),
        configure: async (req) => {
          script = await loadScript(req.config);
          return {};
        },
        async *streamCompletion(
          req,
          { signal },
        ): AsyncGenerator<StreamEventInit> {
          const current = script;
          if (!current) {
            throw new GrpcStatusError(
              Code.FAILED_PRECONDITION,
              "the scripted provider is not configured: Configure must set script or turns_json first",
            );
          }
          const plan = planTurn(current, req);
          const session = req.callContext?.sessionId ?? "";
          for (const [i, event] of plan.events.entries()) {
            if (i > 0 && plan.delayMs > 0) await sleep(plan.delayMs, signal);
            if (signal.aborted) {
              ctx.log.info(
                `turn ${plan.turn} cancelled after ${i} of ${plan.events.length} events`,
                {
                  turn: plan.turn,
                  delivered: i,
                  total: plan.events.length,
                  session,
                },
              );
              yield {
                event: {
                  case: "stop",
                  value: { reason: StopReason.CANCELLED },
                },
              };
              return;
            }
            yield event;
          }
        },
        countTokens: (req) => {
          const current = script;
          if (!current) {
            throw new GrpcStatusError(
              Code.FAILED_PRECONDITION,
              "the scripted provider is not configured",
            );
          }
          if (!req.modelId) {
            throw new GrpcStatusError(
              Code.INVALID_ARGUMENT,
              "CountTokens needs model_id",
            );
          }
          if (req.modelId !== current.model.id) {
            throw new GrpcStatusError(
              Code.INVALID_ARGUMENT,
              `unknown model "${req.modelId}": this script serves "${current.model.id}"`,
            );
          }
          return { count: BigInt(countRequestTokens(req)) };
        },
        render: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "scripted has no Render",
          );
        },
        getAccount: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "scripted has no account",
          );
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
