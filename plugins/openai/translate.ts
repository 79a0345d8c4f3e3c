/**
 * Canonical requests (`content.v1`, `schema.v1`, `model.v1`) translated to
 * the two OpenAI wire formats, after the generation parameters are checked
 * against the resolved model.
 *
 * Chat Completions (`POST /chat/completions`):
 * - assembled context → one `developer` message (`system` for models the
 *   roster does not know, which OpenAI-compatible servers understand);
 * - user text/image/PDF blocks → content parts (`text`, `image_url` with a
 *   data URL, `file` with `file_data`); tool results → `tool` messages
 *   placed before the rest of the user turn;
 * - assistant text → `content`, tool uses → `tool_calls` with JSON-string
 *   arguments; thinking blocks are not sent (Chat has no reasoning input);
 * - `stream_options.include_usage` so the last chunk carries usage.
 *
 * Responses (`POST /responses`, stateless: `store: false`):
 * - assembled context → `instructions`;
 * - user blocks → `input_text` / `input_image` / `input_file`; tool
 *   results → `function_call_output` items; assistant text → assistant
 *   messages, tool uses → `function_call` items; thinking blocks whose
 *   signature this provider produced → `reasoning` items with their
 *   `encrypted_content` (so reasoning carries over between turns);
 * - `include: ["reasoning.encrypted_content"]` and `reasoning.summary:
 *   "auto"` for reasoning models.
 *
 * Both: `cache_breakpoints` are ignored (OpenAI caches prefixes by itself);
 * `provider_options` pass through for an allow-list of knobs that change
 * neither routing, cost nor replay ({@linkcode PROVIDER_OPTION_KEYS}).
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type {
  ContentBlock,
  ContextSection,
  Message,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import {
  type GenerationParams,
  ToolChoiceMode,
  type ToolDeclaration,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  type Schema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { ApiName, RosterModel } from "./roster.ts";

/** A JSON request body. */
export type Body = Record<string, unknown>;

/** A parameter or block the resolved model cannot take (INVALID_ARGUMENT). */
export class ParamError extends RangeError {
  /**
   * Creates the error.
   *
   * @param param The parameter's name (`temperature`, `messages[2].content[0]`, …).
   * @param message What is wrong.
   */
  constructor(readonly param: string, message: string) {
    super(`invalid ${param}: ${message}`);
    this.name = "ParamError";
  }
}

/** The `thinking_signature` bytes of a Responses reasoning item. */
export interface ReasoningSignature {
  /** Marks the signature format. */
  v: "openai.reasoning.v1";
  /** The reasoning item id. */
  id: string;
  /** Its encrypted content (absent when the server sent none). */
  encrypted_content?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Encodes a reasoning item as `thinking_signature` bytes.
 *
 * @param sig The item's id and encrypted content.
 * @returns UTF-8 JSON bytes.
 */
export function encodeSignature(
  sig: Omit<ReasoningSignature, "v">,
): Uint8Array {
  return encoder.encode(JSON.stringify({ v: "openai.reasoning.v1", ...sig }));
}

/**
 * Decodes `thinking_signature` bytes produced by {@linkcode encodeSignature}.
 *
 * @param bytes The signature.
 * @returns The reasoning item, or `undefined` for any other vendor's bytes.
 */
export function decodeSignature(
  bytes: Uint8Array,
): ReasoningSignature | undefined {
  if (bytes.length === 0) return undefined;
  try {
    const v = JSON.parse(decoder.decode(bytes));
    if (v?.v === "openai.reasoning.v1" && typeof v.id === "string") return v;
  } catch {
    // not ours
  }
  return undefined;
}

/**
 * The reasoning effort a request runs with: the requested one, else the
 * model's default.
 *
 * @param model The model.
 * @param params The generation parameters.
 * @returns The effort, or `undefined` for a model without reasoning.
 */
export function effectiveEffort(
  model: RosterModel,
  params: GenerationParams | undefined,
): string | undefined {
  if (!model.reasoning) return undefined;
  return params?.thinkingEffort ?? model.reasoning.default;
}

/**
 * Checks a request against the resolved model before anything reaches the
 * wire.
 *
 * @param req The request.
 * @param model The model it names.
 * @param api The wire API in use.
 * @throws {ParamError} Naming the parameter or block.
 */
export function validateRequest(
  req: StreamCompletionRequest,
  model: RosterModel,
  api: ApiName,
): void {
  const p = req.params;
  if (!model.apis.includes(api)) {
    throw new ParamError(
      "model_id",
      `model "${model.id}" is served by the ${
        model.apis.join(" and ")
      } API, not ${api} (set api in the provider block)`,
    );
  }
  if (p?.thinkingEffort !== undefined) {
    if (!model.reasoning) {
      throw new ParamError(
        "thinking_effort",
        `model "${model.id}" has no reasoning effort control`,
      );
    }
    if (!model.reasoning.efforts.includes(p.thinkingEffort)) {
      throw new ParamError(
        "thinking_effort",
        `"${p.thinkingEffort}" is not a level of model "${model.id}" (it takes ${
          model.reasoning.efforts.map((e) => `"${e}"`).join(", ")
        })`,
      );
    }
  }
  if (p?.thinkingBudgetTokens !== undefined) {
    throw new ParamError(
      "thinking_budget_tokens",
      `OpenAI models take a reasoning effort, not a token budget (model "${model.id}")`,
    );
  }
  if (p?.temperature !== undefined) {
    const effort = effectiveEffort(model, p);
    if (
      model.temperature === "never" ||
      (model.temperature === "without_reasoning" && effort !== "none")
    ) {
      throw new ParamError(
        "temperature",
        model.temperature === "never"
          ? `model "${model.id}" does not accept temperature`
          : `model "${model.id}" accepts temperature only with thinking_effort "none" (it runs with "${effort}")`,
      );
    }
    if (!(p.temperature >= 0 && p.temperature <= 2)) {
      throw new ParamError(
        "temperature",
        `must be between 0 and 2, got ${p.temperature}`,
      );
    }
  }
  if (p?.maxOutputTokens !== undefined) {
    const n = p.maxOutputTokens;
    if (n <= 0n || n > BigInt(model.maxOutputTokens)) {
      throw new ParamError(
        "max_output_tokens",
        `must be between 1 and ${model.maxOutputTokens} for model "${model.id}", got ${n}`,
      );
    }
  }
  if (p && p.stopSequences.length > 0) {
    if (api === "responses") {
      throw new ParamError(
        "stop_sequences",
        `the Responses API has no stop sequences (use api = "chat")`,
      );
    }
    if (model.reasoning) {
      throw new ParamError(
        "stop_sequences",
        `reasoning model "${model.id}" does not accept stop sequences`,
      );
    }
    if (p.stopSequences.length > 4) {
      throw new ParamError(
        "stop_sequences",
        `OpenAI accepts at most 4, got ${p.stopSequences.length}`,
      );
    }
  }
  if (req.tools.length > 0 && !model.toolUse) {
    throw new ParamError(
      "tools",
      `model "${model.id}" does not take tools`,
    );
  }
  const tc = p?.toolChoice;
  if (tc) {
    if (!model.toolUse) {
      throw new ParamError(
        "tool_choice",
        `model "${model.id}" does not take tools`,
      );
    }
    if (tc.mode === ToolChoiceMode.UNSPECIFIED) {
      throw new ParamError("tool_choice", "mode is unspecified");
    }
    if (tc.mode === ToolChoiceMode.SPECIFIC) {
      if (!tc.toolName || !req.tools.some((t) => t.name === tc.toolName)) {
        throw new ParamError(
          "tool_choice",
          `tool_name "${tc.toolName ?? ""}" is not one of the request's tools`,
        );
      }
    }
  }
  const checkBlocks = (blocks: readonly ContentBlock[], at: string) => {
    blocks.forEach((b, j) => {
      const where = `${at}.content[${j}]`;
      switch (b.block.case) {
        case "image":
          if (!model.vision) {
            throw new ParamError(
              where,
              `model "${model.id}" does not accept images`,
            );
          }
          if (!/^image\/(png|jpeg|gif|webp)$/.test(b.block.value.mediaType)) {
            throw new ParamError(
              where,
              `image media type "${b.block.value.mediaType}" is not png, jpeg, gif or webp`,
            );
          }
          break;
        case "document":
          if (!model.documents) {
            throw new ParamError(
              where,
              `model "${model.id}" does not accept documents`,
            );
          }
          if (b.block.value.mediaType !== "application/pdf") {
            throw new ParamError(
              where,
              `document media type "${b.block.value.mediaType}" is not application/pdf`,
            );
          }
          break;
        case "toolUse":
        case "toolResult":
          if (!model.toolUse) {
            throw new ParamError(
              where,
              `model "${model.id}" does not take tools`,
            );
          }
          if (b.block.case === "toolResult") {
            checkBlocks(b.block.value.content, where);
          }
          break;
        default:
          break;
      }
    });
  };
  req.messages.forEach((m, i) => {
    if (m.role !== Role.USER && m.role !== Role.ASSISTANT) {
      throw new ParamError(`messages[${i}].role`, "must be user or assistant");
    }
    checkBlocks(m.content, `messages[${i}]`);
  });
}

/**
 * The `provider_options` keys passed through to the request body: vendor
 * knobs that change neither routing, cost nor replay. Any other key is
 * refused, so nothing (`model`, `service_tier`, `store`, …) can override
 * what the kernel decided.
 */
export const PROVIDER_OPTION_KEYS: Readonly<
  Record<ApiName, readonly string[]>
> = {
  chat: [
    "user",
    "safety_identifier",
    "prompt_cache_key",
    "seed",
    "top_p",
    "frequency_penalty",
    "presence_penalty",
    "metadata",
  ],
  responses: [
    "user",
    "safety_identifier",
    "prompt_cache_key",
    "top_p",
    "metadata",
  ],
};

/**
 * Copies `provider_options` into a request body.
 *
 * @param body The body.
 * @param options The request's `provider_options`.
 * @param api The wire API.
 * @throws {ParamError} For a key not in {@linkcode PROVIDER_OPTION_KEYS}.
 */
export function applyProviderOptions(
  body: Body,
  options: JsonObject | undefined,
  api: ApiName,
): void {
  if (!options) return;
  const allowed = PROVIDER_OPTION_KEYS[api];
  for (const [k, v] of Object.entries(options)) {
    if (!allowed.includes(k)) {
      throw new ParamError(
        `provider_options.${k}`,
        `not a pass-through option of the ${api} API (it takes ${
          allowed.join(", ")
        })`,
      );
    }
    body[k] = v;
  }
}

/**
 * The JSON Schema of a `schema.v1` schema (the supported subset maps
 * directly: `enum_values` → `enum`).
 *
 * @param s The schema.
 * @returns JSON Schema.
 */
export function jsonSchemaOf(s: Schema | undefined): JsonObject {
  if (!s) return { type: "object", properties: {} };
  const out: JsonObject = {};
  switch (s.type) {
    case SchemaType.OBJECT: {
      out.type = "object";
      const props: JsonObject = {};
      for (const [k, v] of Object.entries(s.properties)) {
        props[k] = jsonSchemaOf(v);
      }
      out.properties = props;
      if (s.required.length > 0) out.required = [...s.required];
      break;
    }
    case SchemaType.STRING:
      out.type = "string";
      if (s.enumValues.length > 0) out.enum = [...s.enumValues];
      break;
    case SchemaType.NUMBER:
      out.type = "number";
      break;
    case SchemaType.BOOLEAN:
      out.type = "boolean";
      break;
    case SchemaType.ARRAY:
      out.type = "array";
      out.items = jsonSchemaOf(s.items);
      break;
    default:
      throw new ParamError(
        "tools",
        `a schema has an unspecified type`,
      );
  }
  if (s.description) out.description = s.description;
  return out;
}

/**
 * The system prompt: each section's text blocks, sections separated by a
 * blank line (the kernel already wrapped each in its labelled boundary).
 *
 * @param sections The assembled context.
 * @returns The text ("" when there is none).
 */
export function systemText(sections: readonly ContextSection[]): string {
  return sections.map((s) =>
    s.content.flatMap((b) =>
      b.block.case === "text" ? [b.block.value.text] : []
    )
      .join("\n")
  ).filter((t) => t !== "").join("\n\n");
}

function base64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

function dataUrl(mediaType: string, data: Uint8Array): string {
  return `data:${mediaType};base64,${base64(data)}`;
}

/** The text of a tool result (its text blocks; `Error: ` first if is_error). */
function toolResultText(
  blocks: readonly ContentBlock[],
  isError: boolean,
): string {
  const text = blocks.flatMap((b) =>
    b.block.case === "text" ? [b.block.value.text] : []
  ).join("\n");
  return isError ? `Error: ${text}` : text;
}

function argumentsJson(args: JsonObject | undefined): string {
  return JSON.stringify(args ?? {});
}

function toolChoiceOf(
  params: GenerationParams | undefined,
  api: ApiName,
): unknown {
  const tc = params?.toolChoice;
  if (!tc) return undefined;
  switch (tc.mode) {
    case ToolChoiceMode.AUTO:
      return "auto";
    case ToolChoiceMode.ANY:
      return "required";
    case ToolChoiceMode.NONE:
      return "none";
    case ToolChoiceMode.SPECIFIC:
      return api === "chat"
        ? { type: "function", function: { name: tc.toolName } }
        : { type: "function", name: tc.toolName };
    default:
      return undefined;
  }
}

function chatTools(tools: readonly ToolDeclaration[]): Body[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      parameters: jsonSchemaOf(t.inputSchema),
    },
  }));
}

function chatUserParts(blocks: readonly ContentBlock[]): Body[] {
  const parts: Body[] = [];
  for (const b of blocks) {
    switch (b.block.case) {
      case "text":
        parts.push({ type: "text", text: b.block.value.text });
        break;
      case "image":
        parts.push({
          type: "image_url",
          image_url: {
            url: dataUrl(b.block.value.mediaType, b.block.value.data),
          },
        });
        break;
      case "document":
        parts.push({
          type: "file",
          file: {
            filename: b.block.value.filename ?? "document.pdf",
            file_data: dataUrl(b.block.value.mediaType, b.block.value.data),
          },
        });
        break;
      default:
        break;
    }
  }
  return parts;
}

function chatMessages(messages: readonly Message[]): Body[] {
  const out: Body[] = [];
  for (const m of messages) {
    if (m.role === Role.ASSISTANT) {
      const text = m.content.flatMap((b) =>
        b.block.case === "text" ? [b.block.value.text] : []
      ).join("");
      const calls = m.content.flatMap((b) =>
        b.block.case === "toolUse"
          ? [{
            id: b.block.value.id,
            type: "function",
            function: {
              name: b.block.value.name,
              arguments: argumentsJson(b.block.value.arguments),
            },
          }]
          : []
      );
      out.push({
        role: "assistant",
        content: text === "" && calls.length > 0 ? null : text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    // Tool results answer the previous assistant turn, so they go first.
    const rest: ContentBlock[] = [];
    for (const b of m.content) {
      if (b.block.case === "toolResult") {
        const r = b.block.value;
        out.push({
          role: "tool",
          tool_call_id: r.toolUseId,
          content: toolResultText(r.content, r.isError),
        });
        rest.push(
          ...r.content.filter((c) =>
            c.block.case === "image" || c.block.case === "document"
          ),
        );
      } else {
        rest.push(b);
      }
    }
    const parts = chatUserParts(rest);
    if (parts.length === 0) continue;
    out.push({
      role: "user",
      content: parts.length === 1 && parts[0]!.type === "text"
        ? parts[0]!.text
        : parts,
    });
  }
  return out;
}

/**
 * The Chat Completions request body.
 *
 * @param req The (validated) request.
 * @param model The model.
 * @returns The body (`stream: true`).
 */
export function chatRequest(
  req: StreamCompletionRequest,
  model: RosterModel,
): Body {
  const system = systemText(req.assembledContext);
  const messages = [
    ...(system !== ""
      ? [{ role: model.known ? "developer" : "system", content: system }]
      : []),
    ...chatMessages(req.messages),
  ];
  const p = req.params;
  const body: Body = {
    model: model.id,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) {
    body.tools = chatTools(req.tools);
    if (model.parallelToolCalls) body.parallel_tool_calls = true;
    else if (model.known) body.parallel_tool_calls = false;
  }
  const choice = toolChoiceOf(p, "chat");
  if (choice !== undefined) body.tool_choice = choice;
  if (p?.maxOutputTokens !== undefined) {
    body[model.known ? "max_completion_tokens" : "max_tokens"] = Number(
      p.maxOutputTokens,
    );
  }
  if (p?.temperature !== undefined) body.temperature = p.temperature;
  if (p && p.stopSequences.length > 0) body.stop = [...p.stopSequences];
  if (p?.thinkingEffort !== undefined) body.reasoning_effort = p.thinkingEffort;
  applyProviderOptions(body, req.providerOptions, "chat");
  return body;
}

function responsesInput(messages: readonly Message[]): Body[] {
  const out: Body[] = [];
  for (const m of messages) {
    if (m.role === Role.ASSISTANT) {
      let text = "";
      const flush = () => {
        if (text !== "") out.push({ role: "assistant", content: text });
        text = "";
      };
      for (const b of m.content) {
        switch (b.block.case) {
          case "text":
            text += b.block.value.text;
            break;
          case "thinking": {
            const sig = decodeSignature(b.block.value.signature);
            if (!sig) break; // another vendor's reasoning: not replayable here
            flush();
            out.push({
              type: "reasoning",
              id: sig.id,
              summary: b.block.value.text
                ? [{ type: "summary_text", text: b.block.value.text }]
                : [],
              ...(sig.encrypted_content !== undefined
                ? { encrypted_content: sig.encrypted_content }
                : {}),
            });
            break;
          }
          case "toolUse":
            flush();
            out.push({
              type: "function_call",
              call_id: b.block.value.id,
              name: b.block.value.name,
              arguments: argumentsJson(b.block.value.arguments),
            });
            break;
          default:
            break;
        }
      }
      flush();
      continue;
    }
    const parts: Body[] = [];
    const pushParts = (blocks: readonly ContentBlock[]) => {
      for (const b of blocks) {
        switch (b.block.case) {
          case "text":
            parts.push({ type: "input_text", text: b.block.value.text });
            break;
          case "image":
            parts.push({
              type: "input_image",
              image_url: dataUrl(b.block.value.mediaType, b.block.value.data),
              detail: "auto",
            });
            break;
          case "document":
            parts.push({
              type: "input_file",
              filename: b.block.value.filename ?? "document.pdf",
              file_data: dataUrl(b.block.value.mediaType, b.block.value.data),
            });
            break;
          default:
            break;
        }
      }
    };
    for (const b of m.content) {
      if (b.block.case === "toolResult") {
        const r = b.block.value;
        out.push({
          type: "function_call_output",
          call_id: r.toolUseId,
          output: toolResultText(r.content, r.isError),
        });
        pushParts(
          r.content.filter((c) =>
            c.block.case === "image" || c.block.case === "document"
          ),
        );
      } else {
        pushParts([b]);
      }
    }
    if (parts.length > 0) out.push({ role: "user", content: parts });
  }
  return out;
}

/**
 * The Responses request body.
 *
 * @param req The (validated) request.
 * @param model The model.
 * @returns The body (`stream: true`, `store: false`).
 */
export function responsesRequest(
  req: StreamCompletionRequest,
  model: RosterModel,
): Body {
  const system = systemText(req.assembledContext);
  const p = req.params;
  const body: Body = {
    model: model.id,
    ...(system !== "" ? { instructions: system } : {}),
    input: responsesInput(req.messages),
    stream: true,
    store: false,
  };
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: "function",
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      parameters: jsonSchemaOf(t.inputSchema),
      strict: false,
    }));
    body.parallel_tool_calls = model.parallelToolCalls;
  }
  const choice = toolChoiceOf(p, "responses");
  if (choice !== undefined) body.tool_choice = choice;
  if (p?.maxOutputTokens !== undefined) {
    body.max_output_tokens = Number(p.maxOutputTokens);
  }
  if (p?.temperature !== undefined) body.temperature = p.temperature;
  if (model.reasoning) {
    const effort = p?.thinkingEffort;
    const summary = model.reasoning.summary &&
      effectiveEffort(model, p) !== "none";
    if (effort !== undefined || summary) {
      body.reasoning = {
        ...(effort !== undefined ? { effort } : {}),
        ...(summary ? { summary: "auto" } : {}),
      };
    }
    body.include = ["reasoning.encrypted_content"];
  }
  applyProviderOptions(body, req.providerOptions, "responses");
  return body;
}
