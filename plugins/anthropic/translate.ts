/**
 * Canonical request → Messages API request body, with the generation
 * parameters checked against the resolved model first.
 *
 * What goes where (as the vendor documents the Messages API):
 *
 * - `assembled_context` sections → `system`, one text block per section
 *   text block, in chain order.
 * - `messages` → `messages`: text, `tool_use` (arguments as the `input`
 *   object), `tool_result` (`is_error` only when true), images and
 *   documents as base64 sources, `thinking` with its `signature` and
 *   `redacted_thinking` with its `data`, both byte-exact (the bytes the
 *   stream produced, decoded back to the same string).
 * - `tools` → `tools` with `input_schema` in JSON Schema (`schema.v1` maps
 *   one to one: `type`, `description`, `properties`, `required`, `items`,
 *   `enum`).
 * - `cache_breakpoints` → `cache_control: { type: "ephemeral" }` on the last
 *   system block, the last tool, or the last block of a message.
 * - `params`: `max_output_tokens` → `max_tokens`, `temperature`,
 *   `stop_sequences`, `tool_choice`; `thinking_effort` → adaptive thinking
 *   with `output_config.effort`; `thinking_budget_tokens` → `thinking:
 *   { type: "enabled", budget_tokens }`.
 * - `provider_options` → `top_k`, `top_p` and `metadata` only.
 *
 * Every problem is a {@linkcode RequestError} naming the request field.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type {
  ContentBlock,
  ContextSection,
  Message,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type {
  CountTokensRequest,
  StreamCompletionRequest,
} from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import {
  type GenerationParams,
  ToolChoiceMode,
  type ToolDeclaration,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  type Schema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { RosterModel, ToolChoiceName } from "./roster.ts";

/** A request the plugin refuses, naming the field (INVALID_ARGUMENT). */
export class RequestError extends Error {
  /**
   * Creates the error.
   *
   * @param field The request field, e.g. `params.thinking_effort`.
   * @param detail What is wrong with it.
   */
  constructor(readonly field: string, detail: string) {
    super(`${field}: ${detail}`);
    this.name = "RequestError";
  }
}

/** A JSON object of the vendor's wire format. */
export type Wire = Record<string, unknown>;

/** The Messages API body this plugin sends (`stream: true`). */
export interface WireRequest extends Wire {
  model: string;
  max_tokens: number;
  messages: Wire[];
  stream: true;
  system?: Wire[];
  tools?: Wire[];
  tool_choice?: Wire;
  temperature?: number;
  stop_sequences?: string[];
  thinking?: Wire;
  output_config?: Wire;
}

/** Options of {@linkcode toWireRequest}. */
export interface TranslateOptions {
  /** `max_tokens` when the request sets no `max_output_tokens`. */
  readonly defaultMaxTokens: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function bytesToString(bytes: Uint8Array, field: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new RequestError(
      field,
      "is not the UTF-8 text the vendor produced (it must be sent back byte for byte)",
    );
  }
}

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

const SCHEMA_TYPES: Readonly<Record<number, string>> = {
  [SchemaType.OBJECT]: "object",
  [SchemaType.STRING]: "string",
  [SchemaType.NUMBER]: "number",
  [SchemaType.BOOLEAN]: "boolean",
  [SchemaType.ARRAY]: "array",
};

/**
 * A `schema.v1.Schema` as JSON Schema.
 *
 * @param schema The schema.
 * @param field Where it is, for errors.
 * @returns The JSON Schema object.
 */
export function jsonSchema(schema: Schema, field: string): Wire {
  const type = SCHEMA_TYPES[schema.type];
  if (!type) {
    throw new RequestError(`${field}.type`, "must be set (it is unspecified)");
  }
  const out: Wire = { type };
  if (schema.description) out.description = schema.description;
  if (schema.type === SchemaType.OBJECT) {
    const props: Wire = {};
    for (const [k, v] of Object.entries(schema.properties)) {
      props[k] = jsonSchema(v, `${field}.properties.${k}`);
    }
    out.properties = props;
    for (const r of schema.required) {
      if (!(r in schema.properties)) {
        throw new RequestError(
          `${field}.required`,
          `names "${r}", which is not a property`,
        );
      }
    }
    if (schema.required.length > 0) out.required = [...schema.required];
  }
  if (schema.type === SchemaType.ARRAY && schema.items) {
    out.items = jsonSchema(schema.items, `${field}.items`);
  }
  if (schema.type === SchemaType.STRING && schema.enumValues.length > 0) {
    out.enum = [...schema.enumValues];
  }
  return out;
}

function toolWire(t: ToolDeclaration, i: number): Wire {
  const field = `tools[${i}]`;
  if (!/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) {
    throw new RequestError(
      `${field}.name`,
      `"${t.name}" is not a valid tool name (1–128 letters, digits, _ or -)`,
    );
  }
  const schema = t.inputSchema
    ? jsonSchema(t.inputSchema, `${field}.input_schema`)
    : { type: "object", properties: {} };
  if (schema.type !== "object") {
    throw new RequestError(
      `${field}.input_schema.type`,
      "must be OBJECT (tool arguments are a JSON object)",
    );
  }
  return {
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    input_schema: schema,
  };
}

function blockWire(
  b: ContentBlock,
  field: string,
  model: RosterModel,
  inToolResult: boolean,
): Wire | undefined {
  const v = b.block;
  switch (v.case) {
    case "text":
      // The API refuses empty text blocks; an empty one carries nothing.
      return v.value.text === ""
        ? undefined
        : { type: "text", text: v.value.text };
    case "image": {
      if (!model.vision) {
        throw new RequestError(
          field,
          `is an image, and model "${model.id}" does not accept images`,
        );
      }
      if (!IMAGE_TYPES.includes(v.value.mediaType)) {
        throw new RequestError(
          `${field}.media_type`,
          `"${v.value.mediaType}" is not one of ${IMAGE_TYPES.join(", ")}`,
        );
      }
      return {
        type: "image",
        source: {
          type: "base64",
          media_type: v.value.mediaType,
          data: base64(v.value.data),
        },
      };
    }
    case "document": {
      if (!model.documents) {
        throw new RequestError(
          field,
          `is a document, and model "${model.id}" does not accept documents`,
        );
      }
      const title = v.value.filename ? { title: v.value.filename } : {};
      if (v.value.mediaType === "application/pdf") {
        return {
          type: "document",
          source: {
            type: "base64",
            media_type: "application/pdf",
            data: base64(v.value.data),
          },
          ...title,
        };
      }
      if (v.value.mediaType === "text/plain") {
        return {
          type: "document",
          source: {
            type: "text",
            media_type: "text/plain",
            data: bytesToString(v.value.data, `${field}.data`),
          },
          ...title,
        };
      }
      throw new RequestError(
        `${field}.media_type`,
        `"${v.value.mediaType}" is not application/pdf or text/plain`,
      );
    }
    case "toolUse":
      if (inToolResult) break;
      return {
        type: "tool_use",
        id: v.value.id,
        name: v.value.name,
        input: (v.value.arguments ?? {}) as JsonObject,
      };
    case "toolResult": {
      if (inToolResult) break;
      const content = v.value.content.flatMap((c, k) => {
        const w = blockWire(c, `${field}.content[${k}]`, model, true);
        return w ? [w] : [];
      });
      return {
        type: "tool_result",
        tool_use_id: v.value.toolUseId,
        ...(content.length > 0 ? { content } : {}),
        ...(v.value.isError ? { is_error: true } : {}),
      };
    }
    case "thinking":
      if (inToolResult) break;
      return {
        type: "thinking",
        thinking: v.value.text,
        signature: bytesToString(v.value.signature, `${field}.signature`),
      };
    case "redactedThinking":
      if (inToolResult) break;
      return {
        type: "redacted_thinking",
        data: bytesToString(v.value.data, `${field}.data`),
      };
    case undefined:
      throw new RequestError(field, "is an empty content block");
  }
  throw new RequestError(
    field,
    `a ${v.case} block cannot be part of a tool result`,
  );
}

function messageWire(m: Message, i: number, model: RosterModel): Wire {
  const field = `messages[${i}]`;
  if (m.role !== Role.USER && m.role !== Role.ASSISTANT) {
    throw new RequestError(`${field}.role`, "must be USER or ASSISTANT");
  }
  const content = m.content.flatMap((b, j) => {
    const w = blockWire(b, `${field}.content[${j}]`, model, false);
    return w ? [w] : [];
  });
  if (content.length === 0) {
    throw new RequestError(`${field}.content`, "has no content to send");
  }
  return { role: m.role === Role.USER ? "user" : "assistant", content };
}

function systemWire(sections: readonly ContextSection[]): Wire[] {
  const out: Wire[] = [];
  for (const [i, s] of sections.entries()) {
    for (const [j, b] of s.content.entries()) {
      if (b.block.case !== "text") {
        throw new RequestError(
          `assembled_context[${i}].content[${j}]`,
          "context sections hold text only",
        );
      }
      if (b.block.value.text !== "") {
        out.push({ type: "text", text: b.block.value.text });
      }
    }
  }
  return out;
}

const EPHEMERAL = { type: "ephemeral" } as const;

const CHOICE_NAMES: Readonly<Record<number, ToolChoiceName>> = {
  [ToolChoiceMode.AUTO]: "auto",
  [ToolChoiceMode.ANY]: "any",
  [ToolChoiceMode.NONE]: "none",
  [ToolChoiceMode.SPECIFIC]: "specific",
};

/** The vendor limit on cache breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * Checks the generation parameters against the model and returns the body
 * fields they set: `max_tokens`, `temperature`, `stop_sequences`,
 * `thinking`, `output_config`, `tool_choice`.
 *
 * @param params The parameters (absent: model defaults).
 * @param model The resolved model.
 * @param tools The tool names offered.
 * @param options The default `max_tokens`.
 * @returns The body fields.
 * @throws {RequestError} Naming the parameter.
 */
export function paramsWire(
  params: GenerationParams | undefined,
  model: RosterModel,
  tools: readonly string[],
  options: TranslateOptions,
): Pick<
  WireRequest,
  | "max_tokens"
  | "temperature"
  | "stop_sequences"
  | "thinking"
  | "output_config"
  | "tool_choice"
> {
  const out: ReturnType<typeof paramsWire> = {
    max_tokens: Math.min(options.defaultMaxTokens, model.maxOutputTokens),
  };
  const th = model.thinking;
  if (params?.maxOutputTokens !== undefined) {
    const n = Number(params.maxOutputTokens);
    if (n < 1 || n > model.maxOutputTokens) {
      throw new RequestError(
        "params.max_output_tokens",
        `${n} is outside 1–${model.maxOutputTokens}, the output cap of model "${model.id}"`,
      );
    }
    out.max_tokens = n;
  }
  let thinkingOn = th.mode === "adaptive_always";
  if (params?.thinkingEffort !== undefined) {
    const effort = params.thinkingEffort;
    if (th.mode !== "adaptive" && th.mode !== "adaptive_always") {
      throw new RequestError(
        "params.thinking_effort",
        `model "${model.id}" has no effort control${
          th.mode === "budget" ? " (it takes thinking_budget_tokens)" : ""
        }`,
      );
    }
    if (!th.effort.includes(effort)) {
      throw new RequestError(
        "params.thinking_effort",
        `"${effort}" is not an effort level of model "${model.id}" (${
          th.effort.join(", ")
        })`,
      );
    }
    out.thinking = { type: "adaptive" };
    out.output_config = { effort };
    thinkingOn = true;
  }
  if (params?.thinkingBudgetTokens !== undefined) {
    const budget = Number(params.thinkingBudgetTokens);
    if (th.mode !== "budget") {
      throw new RequestError(
        "params.thinking_budget_tokens",
        `model "${model.id}" has no thinking budget${
          th.mode === "none" ? "" : " (it takes thinking_effort)"
        }`,
      );
    }
    if (budget !== 0) {
      if (budget < th.budgetMin! || budget > th.budgetMax!) {
        throw new RequestError(
          "params.thinking_budget_tokens",
          `${budget} is outside ${th.budgetMin}–${th.budgetMax}, the budget range of model "${model.id}"`,
        );
      }
      if (budget >= out.max_tokens) {
        throw new RequestError(
          "params.thinking_budget_tokens",
          `${budget} must be below max_tokens (${out.max_tokens}): the budget is part of the output`,
        );
      }
      out.thinking = { type: "enabled", budget_tokens: budget };
      thinkingOn = true;
    }
  }
  if (params?.temperature !== undefined) {
    const t = params.temperature;
    if (!model.temperature) {
      throw new RequestError(
        "params.temperature",
        `model "${model.id}" does not take a temperature`,
      );
    }
    if (thinkingOn) {
      throw new RequestError(
        "params.temperature",
        "cannot be set while thinking is on (the vendor refuses the combination)",
      );
    }
    if (!(t >= 0 && t <= 1)) {
      throw new RequestError("params.temperature", `${t} is outside 0–1`);
    }
    out.temperature = t;
  }
  if (params && params.stopSequences.length > 0) {
    for (const [i, s] of params.stopSequences.entries()) {
      if (s.trim() === "") {
        throw new RequestError(
          `params.stop_sequences[${i}]`,
          "must contain a non-whitespace character",
        );
      }
    }
    out.stop_sequences = [...params.stopSequences];
  }
  const choice = params?.toolChoice;
  if (choice) {
    const name = CHOICE_NAMES[choice.mode];
    if (!name) {
      throw new RequestError("params.tool_choice.mode", "must be set");
    }
    if (!model.toolChoice.includes(name)) {
      throw new RequestError(
        "params.tool_choice.mode",
        `"${name}" is not a tool-choice mode of model "${model.id}" (${
          model.toolChoice.join(", ")
        })`,
      );
    }
    if ((name === "any" || name === "specific") && thinkingOn) {
      throw new RequestError(
        "params.tool_choice.mode",
        `"${name}" forces a tool call, which the vendor refuses while thinking is on`,
      );
    }
    if (name === "specific") {
      const tool = choice.toolName ?? "";
      if (!tools.includes(tool)) {
        throw new RequestError(
          "params.tool_choice.tool_name",
          `"${tool}" is not one of the request's tools`,
        );
      }
      out.tool_choice = { type: "tool", name: tool };
    } else {
      if (choice.toolName !== undefined) {
        throw new RequestError(
          "params.tool_choice.tool_name",
          `is only set with mode SPECIFIC`,
        );
      }
      out.tool_choice = { type: name };
    }
  }
  return out;
}

const PASS_THROUGH = new Set(["top_k", "top_p", "metadata"]);

function markLast(blocks: Wire[] | undefined, field: string): void {
  const last = blocks?.at(-1);
  if (!last) {
    throw new RequestError(field, "marks a position with nothing before it");
  }
  last.cache_control = { ...EPHEMERAL };
}

/**
 * The Messages API body for a `StreamCompletion` request.
 *
 * @param req The canonical request.
 * @param model The resolved model (`req.model_id` or an alias of it).
 * @param options Defaults.
 * @returns The body.
 * @throws {RequestError} Naming the field.
 */
export function toWireRequest(
  req: StreamCompletionRequest,
  model: RosterModel,
  options: TranslateOptions,
): WireRequest {
  if (req.tools.length > 0 && !model.toolUse) {
    throw new RequestError(
      "tools",
      `model "${model.id}" does not take tools`,
    );
  }
  const tools = req.tools.map(toolWire);
  const names = new Set<string>();
  for (const [i, t] of req.tools.entries()) {
    if (names.has(t.name)) {
      throw new RequestError(
        `tools[${i}].name`,
        `"${t.name}" is declared twice`,
      );
    }
    names.add(t.name);
  }
  const system = systemWire(req.assembledContext);
  const messages = req.messages.map((m, i) => messageWire(m, i, model));
  const body: WireRequest = {
    model: model.id,
    ...paramsWire(req.params, model, [...names], options),
    messages,
    stream: true,
  };
  if (system.length > 0) body.system = system;
  if (tools.length > 0) body.tools = tools;
  if (req.cacheBreakpoints.length > MAX_CACHE_BREAKPOINTS) {
    throw new RequestError(
      "cache_breakpoints",
      `${req.cacheBreakpoints.length} breakpoints; the vendor takes at most ${MAX_CACHE_BREAKPOINTS}`,
    );
  }
  for (const [i, bp] of req.cacheBreakpoints.entries()) {
    const field = `cache_breakpoints[${i}]`;
    const p = bp.position;
    switch (p.case) {
      case "afterAssembledContext":
        markLast(body.system, `${field}.after_assembled_context`);
        break;
      case "afterTools":
        markLast(body.tools, `${field}.after_tools`);
        break;
      case "afterMessageIndex": {
        const k = Number(p.value);
        const m = messages[k];
        if (!m) {
          throw new RequestError(
            `${field}.after_message_index`,
            `${k} is not the index of a message (there are ${messages.length})`,
          );
        }
        markLast(m.content as Wire[], `${field}.after_message_index`);
        break;
      }
      default:
        throw new RequestError(`${field}.position`, "must be set");
    }
  }
  for (const [k, v] of Object.entries(req.providerOptions ?? {})) {
    if (!PASS_THROUGH.has(k)) {
      throw new RequestError(
        `provider_options.${k}`,
        `is not a pass-through option of this provider (${
          [...PASS_THROUGH].join(", ")
        })`,
      );
    }
    body[k] = v as JsonValue;
  }
  return body;
}

/**
 * The body of `POST /v1/messages/count_tokens` for a would-be request.
 *
 * @param req The canonical count request.
 * @param model The resolved model.
 * @returns The body.
 * @throws {RequestError} Naming the field.
 */
export function toWireCountRequest(
  req: CountTokensRequest,
  model: RosterModel,
): Wire {
  const body: Wire = {
    model: model.id,
    messages: req.messages.map((m, i) => messageWire(m, i, model)),
  };
  const system = systemWire(req.assembledContext);
  if (system.length > 0) body.system = system;
  if (req.tools.length > 0) body.tools = req.tools.map(toolWire);
  return body;
}
