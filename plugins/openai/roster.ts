/**
 * The model roster of the `openai` provider: `models.json` parsed and
 * validated, and the `ModelSpec` each model declares. Models a server
 * serves that the roster does not know (Ollama, llama.cpp, vLLM, LM Studio
 * ids) get a spec built from the provider block's `model_defaults`.
 *
 * Pure functions, no I/O: the roster is imported as JSON.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  type ModelSpecSchema,
  ThinkingDisableSupport,
  ToolChoiceMode,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import rosterJson from "./models.json" with { type: "json" };

/** The two wire APIs the provider speaks. */
export type ApiName = "responses" | "chat";

/** When a model accepts `temperature`. */
export type TemperatureSupport = "always" | "never" | "without_reasoning";

/** One pricing tier, USD per million tokens. */
export interface RosterPrice {
  /** Uncached input. */
  input: number;
  /** Cached input (OpenAI's automatic prompt caching); absent = no caching. */
  cachedInput?: number;
  /** Output (reasoning tokens are billed at this rate too). */
  output: number;
  /** First input-token count of the tier (inclusive). */
  inputTokensFrom?: number;
  /** First input-token count past the tier (exclusive). */
  inputTokensUntil?: number;
}

/** A model's reasoning controls. */
export interface RosterReasoning {
  /** The `reasoning.effort` / `reasoning_effort` levels it accepts. */
  efforts: string[];
  /** The level the vendor applies when none is sent. */
  default: string;
  /** It can return reasoning summaries (Responses API). */
  summary: boolean;
}

/** One model: a roster entry, or an unknown id with the configured defaults. */
export interface RosterModel {
  /** The vendor model id. */
  id: string;
  /** Name shown in pickers. */
  displayName: string;
  /** Family, for pickers. */
  family?: string;
  /** Input token budget. */
  contextWindow: number;
  /** Output tokens per response (reasoning included). */
  maxOutputTokens: number;
  /** The APIs that serve it. */
  apis: ApiName[];
  /** Accepts image blocks. */
  vision: boolean;
  /** Accepts PDF document blocks. */
  documents: boolean;
  /** Takes tools and emits tool calls. */
  toolUse: boolean;
  /** May emit several tool calls in one turn. */
  parallelToolCalls: boolean;
  /** Reasoning controls; absent = not a reasoning model. */
  reasoning?: RosterReasoning;
  /** When `temperature` may be sent. */
  temperature: TemperatureSupport;
  /** The gpt-tokenizer encoding; absent = no exact tokenizer. */
  encoding?: "o200k_base";
  /** Pricing tiers; empty = free. */
  pricing: RosterPrice[];
  /** It is in the roster (false: built from `model_defaults`). */
  known: boolean;
}

/** The `model_defaults` of a provider block: the spec of unknown ids. */
export interface ModelDefaults {
  /** Input token budget. */
  contextWindow: number;
  /** Output tokens per response. */
  maxOutputTokens: number;
  /** Takes tools. */
  toolUse: boolean;
  /** Accepts images. */
  vision: boolean;
  /** May emit several tool calls in one turn. */
  parallelToolCalls: boolean;
  /** Input price (0 with output 0 = free). */
  inputPerMtok: number;
  /** Output price. */
  outputPerMtok: number;
  /** Cached-input price; absent = the server has no cache pricing. */
  cachedInputPerMtok?: number;
}

/** The defaults of `model_defaults` (a small local model, free). */
export const DEFAULT_MODEL_DEFAULTS: Readonly<ModelDefaults> = {
  contextWindow: 32768,
  maxOutputTokens: 4096,
  toolUse: true,
  vision: false,
  parallelToolCalls: false,
  inputPerMtok: 0,
  outputPerMtok: 0,
};

/** A roster file that does not validate. */
export class RosterError extends SyntaxError {
  /**
   * Creates the error.
   *
   * @param problems Every problem found, each naming its JSON path.
   */
  constructor(readonly problems: string[]) {
    super(
      `Invalid plugins/openai/models.json: ${problems.length} problem${
        problems.length === 1 ? "" : "s"
      }:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    this.name = "RosterError";
  }
}

type Raw = Record<string, unknown>;

function isRecord(v: unknown): v is Raw {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const MODEL_KEYS = new Set([
  "id",
  "display_name",
  "family",
  "context_window",
  "max_output_tokens",
  "apis",
  "vision",
  "documents",
  "tool_use",
  "parallel_tool_calls",
  "reasoning",
  "temperature",
  "encoding",
  "pricing",
]);

/**
 * Parses and validates a roster document (the shape of `models.json`).
 *
 * @param raw The parsed JSON.
 * @returns The models, in file order.
 * @throws {RosterError} Naming every problem.
 */
export function parseRoster(raw: unknown): RosterModel[] {
  const problems: string[] = [];
  const out: RosterModel[] = [];
  if (!isRecord(raw) || !Array.isArray(raw.models)) {
    throw new RosterError([`"models" must be a list`]);
  }
  const ids = new Set<string>();
  raw.models.forEach((m: unknown, i: number) => {
    const at = `models[${i}]`;
    if (!isRecord(m)) return problems.push(`${at} must be an object`);
    for (const k of Object.keys(m)) {
      if (!MODEL_KEYS.has(k)) problems.push(`${at}.${k} is not a known key`);
    }
    const str = (k: string): string => {
      const v = m[k];
      if (typeof v !== "string" || v === "") {
        problems.push(`${at}.${k} must be a non-empty string`);
        return "";
      }
      return v;
    };
    const int = (k: string): number => {
      const v = m[k];
      if (!Number.isSafeInteger(v) || (v as number) <= 0) {
        problems.push(`${at}.${k} must be a positive integer`);
        return 0;
      }
      return v as number;
    };
    const bool = (k: string): boolean => {
      if (typeof m[k] !== "boolean") {
        problems.push(`${at}.${k} must be true or false`);
        return false;
      }
      return m[k] as boolean;
    };
    const id = str("id");
    if (ids.has(id)) problems.push(`${at}.id "${id}" is listed twice`);
    ids.add(id);
    const apis = Array.isArray(m.apis) ? m.apis : [];
    if (
      apis.length === 0 ||
      !apis.every((a) => a === "responses" || a === "chat")
    ) {
      problems.push(`${at}.apis must list "responses" and/or "chat"`);
    }
    let reasoning: RosterReasoning | undefined;
    if (m.reasoning !== undefined) {
      const r = m.reasoning;
      if (
        !isRecord(r) || !Array.isArray(r.efforts) || r.efforts.length === 0 ||
        !r.efforts.every((e) => typeof e === "string") ||
        typeof r.default !== "string" || !r.efforts.includes(r.default) ||
        typeof r.summary !== "boolean"
      ) {
        problems.push(
          `${at}.reasoning must be { efforts: [..], default: one of efforts, summary: bool }`,
        );
      } else {
        reasoning = {
          efforts: r.efforts as string[],
          default: r.default,
          summary: r.summary,
        };
      }
    }
    const temperature = m.temperature;
    if (
      temperature !== "always" && temperature !== "never" &&
      temperature !== "without_reasoning"
    ) {
      problems.push(
        `${at}.temperature must be "always", "never" or "without_reasoning"`,
      );
    }
    if (m.encoding !== "o200k_base") {
      problems.push(`${at}.encoding must be "o200k_base"`);
    }
    const pricing: RosterPrice[] = [];
    if (!Array.isArray(m.pricing) || m.pricing.length === 0) {
      problems.push(`${at}.pricing must be a non-empty list of tiers`);
    } else {
      m.pricing.forEach((t: unknown, j: number) => {
        const tat = `${at}.pricing[${j}]`;
        if (!isRecord(t)) return problems.push(`${tat} must be an object`);
        const rate = (k: string, optional = false): number | undefined => {
          const v = t[k];
          if (v === undefined && optional) return undefined;
          if (typeof v !== "number" || !(v >= 0)) {
            problems.push(`${tat}.${k} must be a non-negative number`);
            return 0;
          }
          return v;
        };
        const bound = (k: string): number | undefined => {
          const v = t[k];
          if (v === undefined) return undefined;
          if (!Number.isSafeInteger(v) || (v as number) < 0) {
            problems.push(`${tat}.${k} must be a non-negative integer`);
            return undefined;
          }
          return v as number;
        };
        const tier: RosterPrice = {
          input: rate("input")!,
          output: rate("output")!,
        };
        const cached = rate("cached_input", true);
        if (cached !== undefined) tier.cachedInput = cached;
        const from = bound("input_tokens_from");
        const until = bound("input_tokens_until");
        if (from !== undefined) tier.inputTokensFrom = from;
        if (until !== undefined) tier.inputTokensUntil = until;
        pricing.push(tier);
      });
      checkCoverage(pricing, at, problems);
    }
    out.push({
      id,
      displayName: str("display_name"),
      ...(typeof m.family === "string" ? { family: m.family } : {}),
      contextWindow: int("context_window"),
      maxOutputTokens: int("max_output_tokens"),
      apis: apis as ApiName[],
      vision: bool("vision"),
      documents: bool("documents"),
      toolUse: bool("tool_use"),
      parallelToolCalls: bool("parallel_tool_calls"),
      ...(reasoning ? { reasoning } : {}),
      temperature: temperature as TemperatureSupport,
      encoding: "o200k_base",
      pricing,
      known: true,
    });
  });
  if (problems.length > 0) throw new RosterError(problems);
  return out;
}

/** Tiers must cover every input size exactly once (sorted by start). */
function checkCoverage(
  tiers: RosterPrice[],
  at: string,
  problems: string[],
): void {
  const sorted = [...tiers].sort((a, b) =>
    (a.inputTokensFrom ?? 0) - (b.inputTokensFrom ?? 0)
  );
  let next = 0;
  for (const t of sorted) {
    if ((t.inputTokensFrom ?? 0) !== next) {
      problems.push(
        `${at}.pricing: the tiers must cover every input size exactly once (a gap or overlap at ${next} tokens)`,
      );
      return;
    }
    next = t.inputTokensUntil ?? Infinity;
  }
  if (next !== Infinity) {
    problems.push(
      `${at}.pricing: the last tier must have no input_tokens_until`,
    );
  }
}

/** The built-in roster (`models.json`), validated at import. */
export const ROSTER: readonly RosterModel[] = parseRoster(rosterJson);

const BY_ID = new Map(ROSTER.map((m) => [m.id, m]));

/**
 * The roster entry of an id.
 *
 * @param id The model id.
 * @returns The entry, or `undefined` for an id the roster does not know.
 */
export function rosterModel(id: string): RosterModel | undefined {
  return BY_ID.get(id);
}

/**
 * The model an id that the roster does not know gets: the configured
 * defaults, no reasoning controls, no exact tokenizer.
 *
 * @param id The model id (as the server names it).
 * @param d The provider block's `model_defaults`.
 * @returns The model.
 */
export function unknownModel(id: string, d: ModelDefaults): RosterModel {
  const free = d.inputPerMtok === 0 && d.outputPerMtok === 0 &&
    (d.cachedInputPerMtok ?? 0) === 0;
  return {
    id,
    displayName: id,
    contextWindow: d.contextWindow,
    maxOutputTokens: d.maxOutputTokens,
    apis: ["responses", "chat"],
    vision: d.vision,
    documents: false,
    toolUse: d.toolUse,
    parallelToolCalls: d.parallelToolCalls,
    temperature: "always",
    pricing: free ? [] : [{
      input: d.inputPerMtok,
      output: d.outputPerMtok,
      ...(d.cachedInputPerMtok !== undefined
        ? { cachedInput: d.cachedInputPerMtok }
        : {}),
    }],
    known: false,
  };
}

/**
 * The ModelSpec a model declares in GetCapabilities.
 *
 * OpenAI caches prompt prefixes automatically and bills cached input at
 * its own rate; writing the cache costs the ordinary input rate (there is
 * no surcharge), so `cache_write_per_mtok` equals `input_per_mtok`.
 *
 * @param m The model.
 * @returns The ModelSpec init.
 */
export function modelSpecOf(
  m: RosterModel,
): MessageInitShape<typeof ModelSpecSchema> {
  const caching = m.pricing.some((t) => t.cachedInput !== undefined);
  const r = m.reasoning;
  return {
    id: m.id,
    contextWindow: BigInt(m.contextWindow),
    maxOutputTokens: BigInt(m.maxOutputTokens),
    supportsToolUse: m.toolUse,
    supportsVision: m.vision,
    supportsStreaming: true,
    supportsParallelToolCalls: m.toolUse && m.parallelToolCalls,
    supportsDocuments: m.documents,
    supportedToolChoiceModes: m.toolUse
      ? [
        ToolChoiceMode.AUTO,
        ToolChoiceMode.ANY,
        ToolChoiceMode.NONE,
        ToolChoiceMode.SPECIFIC,
      ]
      : [],
    thinking: r
      ? {
        supported: true,
        effort: { levels: [...r.efforts], default: r.default },
        adaptiveByDefault: false,
        disable: r.efforts.includes("none")
          ? ThinkingDisableSupport.ALWAYS
          : ThinkingDisableSupport.NEVER,
        supportsReasoningSummary: r.summary,
        ...(r.summary ? { defaultReasoningSummary: "auto" } : {}),
      }
      : { supported: false, adaptiveByDefault: false },
    caching: {
      supported: caching,
      keepaliveSupported: false,
      explicitMarkers: false,
      implicitAutomatic: caching,
    },
    pricing: {
      currency: "USD",
      free: m.pricing.length === 0,
      tiers: m.pricing.map((t) => ({
        inputPerMtok: t.input,
        outputPerMtok: t.output,
        ...(caching
          ? {
            cacheReadPerMtok: t.cachedInput ?? t.input,
            cacheWritePerMtok: t.input,
          }
          : {}),
        ...(t.inputTokensFrom !== undefined
          ? { inputTokensFrom: BigInt(t.inputTokensFrom) }
          : {}),
        ...(t.inputTokensUntil !== undefined
          ? { inputTokensUntil: BigInt(t.inputTokensUntil) }
          : {}),
      })),
      sourceUnit: "USD per million tokens",
    },
    catalog: {
      displayName: m.displayName,
      ...(m.family ? { family: m.family } : {}),
      supportedInApi: true,
      visible: true,
      aliases: [],
    },
    apiBackend: m.apis.join(","),
  };
}
