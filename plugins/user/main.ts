/**
 * `user`: the `ask_user` operation (plugins.md §7.2), an INTERACTIVE,
 * read-only call that asks the person at the keyboard a question.
 *
 * The plugin validates and normalizes the question, then streams it as one
 * `partial_result` — `{ question, options?, multi_select }` — and keeps the
 * stream open. The kernel surfaces that prompt to whoever can answer (the
 * CLI prompt, a library `answer` callback, `ResolveInteractive`), and the
 * first answer, `{ answer }`, becomes the call's result; the kernel then
 * closes the stream. Interactive calls skip the approval gate, pass the
 * policy precheck and run one at a time (kernel.md §6.6.3).
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import type { InvokeResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import {
  describeResponse,
  parseManifest,
  serve,
  service,
  toolError,
} from "../sdk/mod.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "user/plugin.json");

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;

/** At most this many options. */
export const MAX_OPTIONS = 10;

const INPUT: Schema = {
  type: SchemaType.OBJECT,
  properties: {
    question: {
      type: SchemaType.STRING,
      description:
        "The question, complete and specific: the user sees nothing else of the conversation.",
    },
    options: {
      type: SchemaType.ARRAY,
      description:
        `Up to ${MAX_OPTIONS} suggested answers; the user may still answer freely.`,
      items: {
        type: SchemaType.OBJECT,
        properties: {
          label: { type: SchemaType.STRING, description: "A short answer." },
          description: {
            type: SchemaType.STRING,
            description: "What choosing it means.",
          },
        },
        required: ["label"],
      },
    },
    multi_select: {
      type: SchemaType.BOOLEAN,
      description: "True when several options may be chosen.",
    },
  },
  required: ["question"],
};

const OUTPUT: Schema = {
  type: SchemaType.OBJECT,
  properties: {
    answer: { type: SchemaType.STRING, description: "The user's answer." },
  },
  required: ["answer"],
};

/** The prompt the kernel surfaces. */
export interface AskPrompt {
  /** The question. */
  question: string;
  /** Suggested answers. */
  options: { label: string; description?: string }[];
  /** Several options may be chosen. */
  multi_select: boolean;
}

/**
 * Validates `ask_user` arguments into the prompt.
 *
 * @param args The call's arguments.
 * @returns The prompt, or an error message naming the bad field.
 */
export function parseAsk(args: JsonObject): AskPrompt | string {
  const q = args.question;
  if (typeof q !== "string" || q.trim() === "") {
    return '"question" must be a non-empty string';
  }
  const raw = args.options ?? [];
  if (!Array.isArray(raw)) return '"options" must be a list';
  if (raw.length > MAX_OPTIONS) {
    return `"options" holds ${raw.length} entries; at most ${MAX_OPTIONS} are allowed`;
  }
  const options: AskPrompt["options"] = [];
  const seen = new Set<string>();
  for (const [i, o] of raw.entries()) {
    if (o === null || typeof o !== "object" || Array.isArray(o)) {
      return `"options[${i}]" must be an object with a "label"`;
    }
    const label = o.label;
    if (typeof label !== "string" || label.trim() === "") {
      return `"options[${i}].label" must be a non-empty string`;
    }
    if (seen.has(label.trim())) {
      return `"options[${i}].label" repeats ${JSON.stringify(label.trim())}`;
    }
    seen.add(label.trim());
    const description = o.description;
    if (description !== undefined && typeof description !== "string") {
      return `"options[${i}].description" must be a string`;
    }
    options.push({
      label: label.trim(),
      ...(description ? { description } : {}),
    });
  }
  const multi = args.multi_select ?? false;
  if (typeof multi !== "boolean") return '"multi_select" must be a boolean';
  return { question: q.trim(), options, multi_select: multi };
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: () => [
      service(ToolService, {
        getSchema: () => ({
          tools: [{
            name: "ask_user",
            kind: ToolKind.INTERACTIVE,
            risk: RiskClass.READ_ONLY,
            description:
              "Ask the user a question when you cannot go on without their decision or knowledge (a choice between approaches, a missing fact, a preference). Do not ask for permission to use tools: the harness asks for approval itself. Blocks until the user answers.",
            inputSchema: INPUT,
            outputSchema: OUTPUT,
            idempotent: false,
          }],
          configSchema: {},
        }),
        configure: (req) => {
          const keys = Object.keys(req.config ?? {});
          if (keys.length) {
            throw new GrpcStatusError(
              Code.INVALID_ARGUMENT,
              `the user provider takes no configuration, got "${keys[0]}"`,
            );
          }
          return {};
        },
        async *invoke(req, { signal }): AsyncGenerator<Event> {
          const call = req.call;
          if (call?.toolName !== "ask_user") {
            yield toolError(
              ToolErrorCategory.INVALID_ARGUMENTS,
              `unknown tool ${JSON.stringify(call?.toolName)}`,
            );
            return;
          }
          const prompt = parseAsk(call.arguments ?? {});
          if (typeof prompt === "string") {
            yield toolError(ToolErrorCategory.INVALID_ARGUMENTS, prompt);
            return;
          }
          yield {
            event: {
              event: {
                case: "partialResult",
                value: { payload: prompt as unknown as JsonObject },
              },
            },
          };
          // The kernel answers and closes the stream; until then, wait.
          await new Promise<void>((resolve) => {
            if (signal.aborted) return resolve();
            signal.addEventListener("abort", () => resolve(), { once: true });
          });
          yield toolError(
            ToolErrorCategory.CANCELLED,
            "The question was withdrawn before anyone answered.",
          );
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "user has no Render");
        },
        preview: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "interactive calls have no preview",
          );
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
