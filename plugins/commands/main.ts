/**
 * `commands`: the first-party slash-command provider
 * (`SlashCommandService`, plugins.md §6.7). Its direct-invoke commands run
 * without a model turn, through the kernel's policy and plan/apply gate,
 * and read the session through the callback channel (the kernel grants
 * the plugin the session for the call):
 *
 * - `/help` lists these commands;
 * - `/cost` sums the session's model calls (dollars and tokens) from its
 *   `message` events;
 * - `/context` shows the model and the context window's use
 *   (`GetSessionState`);
 * - `/export [file]` writes the transcript as Markdown to `file` (relative
 *   to the session's working directory, under the operator's
 *   `allow_write`), or returns it.
 *
 * The session commands need operations only the kernel holds: their
 * result names a kernel action (`{ kernel_action: { action, ... } }`),
 * which the kernel carries out for the invoking session and frontend and
 * records as the command's result (kernel/frontend/kernel_actions.ts):
 *
 * - `/model [id]` shows the profile's model candidates, or makes one the
 *   first choice;
 * - `/plan [on|off]` toggles plan mode (read-only tools);
 * - `/compact` compacts the context now through the profile's compactor
 *   ("No compactor configured" without one);
 * - `/clear` starts a new session of the same profile;
 * - `/sessions` lists the stored sessions;
 * - `/resume ID` goes on in a stored session;
 * - `/verify [id]` checks a session's hash chain (this one by default).
 *
 * `/worktree merge NAME [merge]` merges a finished worktree sub-agent's
 * branch into the session's tree (kernel `MergeWorktree`: a squash commit,
 * or a merge commit with `merge`); a conflict is reported and nothing
 * changes.
 *
 * @module
 */
import {
  fromBinary,
  type JsonObject,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { isAbsolute, resolve } from "node:path";
import { SlashCommandService } from "../../proto/gen/pluggableharness/slashcommand/v1/service_pb.ts";
import type { InvokeResponseSchema } from "../../proto/gen/pluggableharness/slashcommand/v1/rpc_response_pb.ts";
import type { SlashCommandSpecSchema } from "../../proto/gen/pluggableharness/slashcommand/v1/types_pb.ts";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  MessageEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  describeResponse,
  type KernelClient,
  parseManifest,
  serve,
  service,
} from "../sdk/mod.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "commands/plugin.json");

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Spec = MessageInitShape<typeof SlashCommandSpecSchema>;

const none = { type: SchemaType.OBJECT };

const COMMANDS: Spec[] = [
  {
    name: "help",
    description: "Lists these commands.",
    inputSchema: none,
    kind: ToolKind.DATA_SOURCE,
    risk: RiskClass.READ_ONLY,
    concurrency: { safe: true },
    idempotent: true,
  },
  {
    name: "cost",
    description: "What the session's model calls cost, in dollars and tokens.",
    inputSchema: none,
    kind: ToolKind.DATA_SOURCE,
    risk: RiskClass.READ_ONLY,
    concurrency: { safe: true },
    idempotent: true,
  },
  {
    name: "context",
    description: "The model and how much of its context window is used.",
    inputSchema: none,
    kind: ToolKind.DATA_SOURCE,
    risk: RiskClass.READ_ONLY,
    concurrency: { safe: true },
    idempotent: true,
  },
  {
    name: "export",
    description:
      "The transcript as Markdown: written to FILE (relative to the session's directory), or returned.",
    inputSchema: {
      type: SchemaType.OBJECT,
      properties: {
        file: { type: SchemaType.STRING, description: "Where to write it." },
      },
    },
    kind: ToolKind.RESOURCE,
    risk: RiskClass.LOW,
    concurrency: { safe: false },
    idempotent: true,
  },
  {
    name: "compact",
    description:
      "Compacts the context now (needs a compactor context provider).",
    inputSchema: none,
    kind: ToolKind.RESOURCE,
    risk: RiskClass.MODERATE,
    concurrency: { safe: false },
    idempotent: false,
  },
  {
    name: "model",
    description:
      "The profile's model candidates; with ID, that candidate becomes the first choice.",
    inputSchema: {
      type: SchemaType.OBJECT,
      properties: {
        id: {
          type: SchemaType.STRING,
          description: "PROVIDER/ID or ID of one of the profile's candidates.",
        },
      },
    },
    kind: ToolKind.RESOURCE,
    risk: RiskClass.LOW,
    concurrency: { safe: false },
    idempotent: true,
  },
  {
    name: "plan",
    description:
      "Toggles plan mode (the model gets read-only tools); on or off sets it.",
    inputSchema: {
      type: SchemaType.OBJECT,
      properties: {
        mode: { type: SchemaType.STRING, description: "on or off." },
      },
    },
    kind: ToolKind.RESOURCE,
    risk: RiskClass.LOW,
    concurrency: { safe: false },
    idempotent: false,
  },
  {
    name: "clear",
    description:
      "Starts a new session of the same profile (this one can be resumed).",
    inputSchema: none,
    kind: ToolKind.RESOURCE,
    risk: RiskClass.LOW,
    concurrency: { safe: false },
    idempotent: false,
  },
  {
    name: "sessions",
    description: "Lists the stored sessions, most recent first.",
    inputSchema: none,
    kind: ToolKind.DATA_SOURCE,
    risk: RiskClass.READ_ONLY,
    concurrency: { safe: true },
    idempotent: true,
  },
  {
    name: "resume",
    description: "Goes on in stored session ID.",
    inputSchema: {
      type: SchemaType.OBJECT,
      properties: {
        session_id: { type: SchemaType.STRING, description: "The session." },
      },
      required: ["session_id"],
    },
    kind: ToolKind.RESOURCE,
    risk: RiskClass.LOW,
    concurrency: { safe: false },
    idempotent: true,
  },
  {
    name: "verify",
    description: "Checks the hash chain of this session, or of session ID.",
    inputSchema: {
      type: SchemaType.OBJECT,
      properties: {
        session_id: { type: SchemaType.STRING, description: "The session." },
      },
    },
    kind: ToolKind.DATA_SOURCE,
    risk: RiskClass.READ_ONLY,
    concurrency: { safe: true },
    idempotent: true,
  },
  {
    name: "worktree",
    description:
      "merge NAME [merge]: merges worktree sub-agent NAME's branch into the working tree (a squash commit, or a merge commit).",
    inputSchema: {
      type: SchemaType.OBJECT,
      properties: {
        command: {
          type: SchemaType.STRING,
          description: "merge NAME [merge]",
        },
      },
    },
    kind: ToolKind.RESOURCE,
    risk: RiskClass.MODERATE,
    concurrency: { safe: false },
    idempotent: false,
  },
];

/** A result asking the kernel to carry out a session operation. */
function kernelAction(action: string, args: JsonObject = {}): JsonObject {
  return { kernel_action: { action, ...args } };
}

function optionalString(args: JsonObject, field: string): JsonObject {
  const v = args[field];
  return typeof v === "string" && v !== "" ? { [field]: v } : {};
}

class CommandError extends Error {
  constructor(readonly category: ToolErrorCategory, message: string) {
    super(message);
  }
}

function textOf(content: { block: { case?: string; value?: unknown } }[]) {
  return content.map((b) =>
    b.block.case === "text" ? (b.block.value as { text: string }).text : ""
  ).join("");
}

async function cost(kernel: KernelClient, sessionId: string) {
  let usd = 0, calls = 0, input = 0n, output = 0n;
  for await (
    const e of kernel.readEvents({ sessionId, kinds: [EventKind.MESSAGE] })
  ) {
    const m = fromBinary(MessageEventSchema, e.payload);
    if (m.message?.role !== Role.ASSISTANT) continue;
    calls++;
    usd += m.costUsd;
    input += m.usage?.inputTokens ?? 0n;
    output += m.usage?.outputTokens ?? 0n;
  }
  return {
    text: `$${usd.toFixed(4)} over ${calls} model call${
      calls === 1 ? "" : "s"
    } (${input} input, ${output} output tokens)`,
    cost_usd: usd,
    model_calls: calls,
    input_tokens: Number(input),
    output_tokens: Number(output),
  };
}

async function context(kernel: KernelClient, sessionId: string) {
  const { state } = await kernel.getSessionState({ sessionId });
  const used = Number(state?.context?.usedTokens ?? 0n);
  const window = Number(state?.context?.windowTokens ?? 0n);
  const model = state?.model
    ? `${state.model.provider}/${state.model.id}`
    : "no model yet";
  return {
    text: `${model}: ${used} of ${window || "?"} context tokens used${
      window ? ` (${Math.round((used / window) * 100)}%)` : ""
    }, ${state?.turnCount ?? 0} turns, ${
      state?.totalTokens ?? 0n
    } tokens in all`,
    model,
    used_tokens: used,
    window_tokens: window,
  };
}

async function transcript(
  kernel: KernelClient,
  sessionId: string,
): Promise<string> {
  const out = [`# Session ${sessionId}\n`];
  for await (
    const e of kernel.readEvents({
      sessionId,
      kinds: [EventKind.MESSAGE, EventKind.TOOL_CALL, EventKind.TOOL_RESULT],
    })
  ) {
    if (e.kind === EventKind.MESSAGE) {
      const m = fromBinary(MessageEventSchema, e.payload).message;
      if (!m) continue;
      const text = textOf(m.content);
      if (!text) continue;
      out.push(
        `## ${m.role === Role.USER ? "User" : "Assistant"}\n\n${text}\n`,
      );
    } else if (e.kind === EventKind.TOOL_CALL) {
      const c = fromBinary(ToolCallEventSchema, e.payload).call;
      out.push(
        `### Tool call \`${c?.toolName}\`\n\n\`\`\`json\n${
          JSON.stringify(c?.arguments ?? {}, null, 2)
        }\n\`\`\`\n`,
      );
    } else {
      const r = fromBinary(ToolResultEventSchema, e.payload);
      out.push(
        r.outcome.case === "result"
          ? `### Result\n\n\`\`\`json\n${
            JSON.stringify(r.outcome.value.payload ?? {}, null, 2)
          }\n\`\`\`\n`
          : `### Error\n\n${r.outcome.value?.message ?? "unknown"}\n`,
      );
    }
  }
  return out.join("\n");
}

/** `/worktree merge NAME [merge]`. */
async function worktree(
  kernel: KernelClient,
  sessionId: string,
  command: string,
): Promise<JsonObject> {
  const [verb, name, kind, ...rest] = command.trim().split(/\s+/);
  if (
    verb !== "merge" || !name || rest.length > 0 ||
    (kind !== undefined && kind !== "merge" && kind !== "squash")
  ) {
    throw new CommandError(
      ToolErrorCategory.INVALID_ARGUMENTS,
      `Usage: /worktree merge NAME [merge] (got "${command.trim()}")`,
    );
  }
  let res;
  try {
    res = await kernel.mergeWorktree({
      sessionId,
      name,
      mergeCommit: kind === "merge",
    });
  } catch (err) {
    throw new CommandError(
      (err as { code?: number }).code === Code.NOT_FOUND
        ? ToolErrorCategory.NOT_FOUND
        : ToolErrorCategory.EXECUTION_FAILED,
      (err as Error).message,
    );
  }
  return res.merged
    ? {
      text: `Merged ${res.branch} (${res.kind}) as ${
        res.commit.slice(0, 12)
      }\n${res.diffstat}`,
      merged: true,
      commit: res.commit,
    }
    : {
      text: `Not merged: ${res.branch} conflicts in ${
        res.conflicts.join(", ")
      }; nothing was changed.`,
      merged: false,
      conflicts: [...res.conflicts],
    };
}

async function run(
  kernel: KernelClient,
  name: string,
  args: JsonObject,
  sessionId: string,
  workingDirectory: string,
): Promise<JsonObject> {
  switch (name) {
    case "help":
      return {
        text: COMMANDS.map((c) => `/${c.name} — ${c.description}`).join("\n"),
      };
    case "cost":
      return await cost(kernel, sessionId);
    case "context":
      return await context(kernel, sessionId);
    case "export": {
      const markdown = await transcript(kernel, sessionId);
      const file = typeof args.file === "string" ? args.file : "";
      if (!file) return { text: markdown };
      const path = isAbsolute(file) ? file : resolve(workingDirectory, file);
      try {
        await Deno.writeTextFile(path, markdown);
      } catch (err) {
        throw new CommandError(
          err instanceof Deno.errors.PermissionDenied ||
            err instanceof Deno.errors.NotCapable
            ? ToolErrorCategory.PERMISSION_DENIED
            : ToolErrorCategory.EXECUTION_FAILED,
          `Cannot write "${path}": ${
            (err as Error).message
          } (grant it with allow_write in the commands provider block)`,
        );
      }
      return { text: `Exported the transcript to ${path}`, file: path };
    }
    case "compact":
    case "clear":
    case "sessions":
      return kernelAction(name);
    case "model":
      return kernelAction("model", optionalString(args, "id"));
    case "resume":
      return kernelAction("resume", optionalString(args, "session_id"));
    case "verify":
      return kernelAction("verify", optionalString(args, "session_id"));
    case "plan": {
      const mode = typeof args.mode === "string"
        ? args.mode.trim().toLowerCase()
        : "";
      if (mode !== "" && mode !== "on" && mode !== "off") {
        throw new CommandError(
          ToolErrorCategory.INVALID_ARGUMENTS,
          `/plan takes on, off or nothing (to toggle), not "${args.mode}"`,
        );
      }
      return kernelAction("plan", mode ? { on: mode === "on" } : {});
    }
    case "worktree":
      return await worktree(kernel, sessionId, String(args.command ?? ""));
    default:
      throw new CommandError(
        ToolErrorCategory.NOT_FOUND,
        `No command "/${name}" (see /help)`,
      );
  }
}

await serve({
  identity: {
    name: manifest.name,
    version: manifest.version,
    category: "slashcommand",
  },
  services: (ctx) => [
    service(SlashCommandService, {
      getCapabilities: () => ({ commands: COMMANDS }),
      configure: () => ({}),
      describe: () => describeResponse(manifest),
      async *invoke(req): AsyncGenerator<Event> {
        const call = req.call;
        const sessionId = call?.callContext?.sessionId;
        if (!call || !sessionId) {
          throw new GrpcStatusError(
            Code.INVALID_ARGUMENT,
            "call.call_context.session_id is required",
          );
        }
        try {
          const payload = await run(
            await ctx.kernel(),
            call.name,
            call.arguments ?? {},
            sessionId,
            call.callContext?.workingDirectory || Deno.cwd(),
          );
          yield { event: { event: { case: "result", value: { payload } } } };
        } catch (err) {
          yield {
            event: {
              event: {
                case: "error",
                value: {
                  category: err instanceof CommandError
                    ? err.category
                    : ToolErrorCategory.EXECUTION_FAILED,
                  message: (err as Error).message,
                },
              },
            },
          };
        }
      },
      render: () => {
        throw new GrpcStatusError(Code.UNIMPLEMENTED, "commands has no Render");
      },
      preview: () => {
        throw new GrpcStatusError(
          Code.UNIMPLEMENTED,
          "commands has no Preview",
        );
      },
    }),
  ],
});
