/**
 * The typed events a running (or replayed) session yields to the CLI and
 * to library users. Every field is plain JSON data (numbers, strings,
 * objects; no protobuf messages or bigints), so `--json` can print each
 * event with `JSON.stringify`.
 *
 * @module
 */
import { toJson } from "@bufbuild/protobuf";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { ControlView } from "../control/control_plane.ts";
import {
  type ContentBlock,
  type Message,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { Usage } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  type ToolError,
  ToolErrorCategory,
} from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  type RenderTree,
  RenderTreeSchema,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  type ApplyResult,
  ApplyResult_ApplyOutcome,
  PlanDecision,
  type PlanItem,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import {
  type HookError,
  HookErrorCategory,
} from "../../proto/gen/pluggableharness/hook/v1/errors_pb.ts";
import { HookMode } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { HookPoint } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import type {
  RiskClass as PolicyRisk,
  ToolKind as PolicyKind,
} from "../../contract/policy.ts";
import { type UsageCounts, usageCounts } from "../../contract/cost.ts";
import type { HookModeName, HookPointName } from "./session_spec.ts";

/** A session's status as stored text. */
export type SessionStatusText =
  | "running"
  | "completed"
  | "error_max_turns"
  | "error_max_budget_usd"
  | "error_max_wall_clock"
  | "cancelled"
  | "failed";

/** A bound or detector that ended the loop through the final-answer turn. */
export type BoundName =
  | "max_turns"
  | "max_cost_usd"
  | "max_wall_clock_s"
  | "doom_loop";

/** A content block as plain data. */
export type ContentView =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly text: string }
  | { readonly type: "redacted_thinking" }
  | {
    readonly type: "tool_use";
    readonly id: string;
    readonly name: string;
    readonly input: JsonObject;
  }
  | {
    readonly type: "tool_result";
    readonly toolUseId: string;
    readonly isError: boolean;
    readonly text: string;
  }
  | { readonly type: "image"; readonly mediaType: string }
  | {
    readonly type: "document";
    readonly mediaType: string;
    readonly filename?: string;
  };

/** A tool error as plain data. */
export interface ToolErrorView {
  /** The category text, e.g. `permission_denied`. */
  readonly category: string;
  /** The message. */
  readonly message: string;
  /** Whether the provider marked it retryable. */
  readonly retryable: boolean;
}

/** One plan item as plain data. */
export interface PlanItemView {
  /** The plan item's id. */
  readonly planItemId: string;
  /** The tool call it gates. */
  readonly callId: string;
  /** The tool provider's local name. */
  readonly provider: string;
  /** The tool's name. */
  readonly tool: string;
  /** The parsed arguments. */
  readonly input: JsonObject;
  /** The snapshot kind. */
  readonly kind: PolicyKind;
  /** The snapshot risk. */
  readonly risk: PolicyRisk;
  /** The snapshot description. */
  readonly description: string;
  /** The decision: `allow`, `ask` or `deny`. */
  readonly decision: "allow" | "ask" | "deny";
  /** Who decided: `policy:<rule>`, `session:<provider>.<tool>`, `hook-veto:<name>`, … */
  readonly decidedBy: string;
  /** The provider's `Preview` (protobuf JSON of a `render.v1.RenderTree`). */
  readonly preview?: JsonValue;
}

/** Who answered an approval. */
export type ApprovalSource = "callback" | "external" | "on_ask";

/** An approval answer. */
export interface ApprovalAnswer {
  /** Allow or deny the item. */
  readonly decision: "allow" | "deny";
  /**
   * How long the verdict holds: this item, the rest of the session for the
   * same `(provider, tool)`, or persisted as policy.
   */
  readonly scope: "once" | "session" | "always";
  /**
   * Corrected arguments to run the call with instead of the model's (an
   * `allow` only); the caller validated them against the tool's
   * `input_schema`.
   */
  readonly input?: JsonObject;
}

/** What an approver is asked. */
export interface ApprovalRequest {
  /** The session. */
  readonly sessionId: string;
  /** The plan item awaiting a decision. */
  readonly planItemId: string;
  /** The tool call. */
  readonly callId: string;
  /** The tool provider's local name. */
  readonly provider: string;
  /** The tool's name. */
  readonly tool: string;
  /** The parsed arguments (show these when there is no preview). */
  readonly input: JsonObject;
  /** The snapshot risk. */
  readonly risk: PolicyRisk;
  /** The snapshot description. */
  readonly description: string;
  /** The provider's `Preview` (protobuf JSON of a `render.v1.RenderTree`). */
  readonly preview?: JsonValue;
  /** The scopes this kernel accepts (`always` only with a policy persister). */
  readonly scopes: readonly ApprovalAnswer["scope"][];
}

/** The typed events of a session. */
export type SessionEvent =
  | {
    readonly type: "session_started";
    readonly sessionId: string;
    readonly profile: string;
    /** True when an existing session was resumed. */
    readonly resumed: boolean;
  }
  | {
    readonly type: "turn_started";
    /** 1-based turn number within the session (this process). */
    readonly turn: number;
    readonly turnId: string;
    /** The model chosen for the turn. */
    readonly model: { readonly provider: string; readonly id: string };
    /** `context_window − reserved_output − system_overhead`. */
    readonly contextBudgetTokens: number;
    /** True for the final-answer turn after a bound fired (no tools). */
    readonly final: boolean;
  }
  | {
    /**
     * Live output of a running tool call (a command's stdout or stderr),
     * in order; not persisted (the result holds what the model sees).
     */
    readonly type: "tool_output";
    readonly turnId: string;
    readonly callId: string;
    readonly stream: "stdout" | "stderr";
    readonly text: string;
  }
  | {
    /** A running tool call's progress note; not persisted. */
    readonly type: "tool_progress";
    readonly turnId: string;
    readonly callId: string;
    readonly message: string;
    /** In [0, 1], when the tool knows. */
    readonly fraction?: number;
  }
  | {
    /** An interactive call (`ask_user`) waits for an answer. */
    readonly type: "interactive_requested";
    readonly callId: string;
    readonly provider: string;
    readonly tool: string;
    /** The tool's prompt, e.g. `{ question, options }`. */
    readonly prompt: JsonObject;
  }
  | {
    /** How an interactive call's ask ended. */
    readonly type: "interactive_resolved";
    readonly callId: string;
    readonly answered: boolean;
    /** Who answered: the session's answerer or `ResolveInteractive`. */
    readonly source?: "callback" | "external";
    /** Why nobody did (`on_ask:deny`, `on_ask:timeout`, `on_ask:fail`). */
    readonly decidedBy?: string;
  }
  | {
    /** Step 1's outcome: the request's context sections, in chain order. */
    readonly type: "context_assembled";
    readonly turnId: string;
    readonly sections: readonly {
      readonly provider: string;
      readonly label: string;
      readonly tokens: number;
    }[];
    /** The sections' tokens together. */
    readonly tokens: number;
  }
  | {
    /**
     * How full the model's window is after step 1, when the fill crossed a
     * band (`comfortable` < 50 %, `filling` < 80 %, `near_full`).
     */
    readonly type: "context_usage";
    readonly turnId: string;
    /** The request's tokens (messages and sections). */
    readonly used: number;
    /** The model's context window. */
    readonly window: number;
    /** `used / window` in percent, rounded down. */
    readonly pct: number;
    /** The band the fill is in now. */
    readonly band: "comfortable" | "filling" | "near_full";
    /** `true` when the model's own tokenizer counted `used`. */
    readonly exact: boolean;
  }
  | {
    /** A compactor rewrote the durable history (plugins.md §6.3). */
    readonly type: "compaction";
    readonly turnId: string;
    /** The compactor's local name. */
    readonly provider: string;
    /** The history's tokens before. */
    readonly tokensBefore: number;
    /** The history's tokens after. */
    readonly tokensAfter: number;
    /** `true` when the model's own tokenizer counted both. */
    readonly exact: boolean;
  }
  | {
    readonly type: "text_delta";
    readonly turnId: string;
    readonly text: string;
  }
  | {
    readonly type: "thinking_delta";
    readonly turnId: string;
    readonly text: string;
  }
  | {
    readonly type: "model_retry";
    readonly turnId: string;
    readonly provider: string;
    readonly modelId: string;
    /** The error category that is retried, e.g. `rate_limited`. */
    readonly category: string;
    /** 1-based retry number of this call. */
    readonly attempt: number;
    readonly delayMs: number;
    /** Set when the retry moves to the next model of the chain. */
    readonly fallback?: { readonly provider: string; readonly id: string };
  }
  | {
    readonly type: "message";
    readonly messageId: string;
    readonly role: "user" | "assistant";
    readonly content: readonly ContentView[];
    /** The concatenated text blocks. */
    readonly text: string;
    readonly turnId?: string;
    readonly model?: { readonly provider: string; readonly id: string };
    readonly usage?: UsageCounts;
    readonly costUsd?: number;
    /** The model's stop reason text, e.g. `end_turn`, `tool_use`. */
    readonly stopReason?: string;
  }
  | {
    readonly type: "tool_call";
    readonly turnId?: string;
    readonly callId: string;
    readonly provider: string;
    readonly tool: string;
    readonly kind?: PolicyKind;
    readonly input: JsonObject;
  }
  | {
    readonly type: "tool_result";
    readonly turnId?: string;
    readonly callId: string;
    readonly provider: string;
    readonly tool: string;
    readonly isError: boolean;
    readonly result?: JsonObject;
    readonly error?: ToolErrorView;
    /** Set for a denial: the rule or subscriber that denied. */
    readonly deniedBy?: string;
    /** The text the model sees. */
    readonly text: string;
  }
  | {
    readonly type: "plan";
    readonly turnId: string;
    readonly items: readonly PlanItemView[];
  }
  | ({ readonly type: "approval_requested" } & ApprovalRequest)
  | {
    readonly type: "approval_resolved";
    readonly planItemId: string;
    readonly decision: "allow" | "deny";
    readonly scope: ApprovalAnswer["scope"];
    readonly source: ApprovalSource;
    /** `approval:<source>`, `on_ask:<value>`, … */
    readonly decidedBy: string;
    /** Set when an answer was refused (e.g. ALWAYS without a persister). */
    readonly refused?: { readonly code: string; readonly message: string };
  }
  | {
    readonly type: "apply";
    readonly turnId: string;
    readonly items: readonly {
      readonly planItemId: string;
      readonly callId: string;
      readonly outcome: "applied" | "failed" | "denied" | "skipped";
    }[];
  }
  | {
    readonly type: "hook_error";
    readonly point: HookPointName;
    readonly subscriber: string;
    readonly mode: HookModeName;
    /** `transform_failed`, `veto_failed`, `timeout`, `invalid_response`, `process_crashed`, `unknown`. */
    readonly category: string;
    readonly message: string;
  }
  | {
    readonly type: "warning";
    /** e.g. `ask_downgraded`. */
    readonly code: string;
    readonly message: string;
  }
  | { readonly type: "bound_fired"; readonly bound: BoundName }
  | ({
    /**
     * A control-plane message (`<cp:NAME>`): delivered into the model's
     * input, or parsed from its output; persisted as a `control` event.
     */
    readonly type: "control";
  } & ControlView)
  | {
    readonly type: "session_ended";
    readonly sessionId: string;
    readonly status: SessionStatusText;
    /** The last assistant message's text. */
    readonly finalText: string;
    readonly totalCostUsd: number;
    readonly boundFired?: BoundName;
    readonly error?: { readonly code: string; readonly message: string };
    /** Tool providers whose plugin crashed during a call. */
    readonly crashedProviders?: readonly string[];
  };

/** The session event types. */
export type SessionEventType = SessionEvent["type"];

function enumText(name: string | undefined): string {
  return (name ?? "unspecified").toLowerCase();
}

/**
 * A tool error category as text (`permission_denied`, …).
 *
 * @param category The enum value.
 * @returns The text.
 */
export function toolErrorCategoryText(category: ToolErrorCategory): string {
  return enumText(ToolErrorCategory[category]);
}

/**
 * A tool error as plain data.
 *
 * @param error The error.
 * @returns The view.
 */
export function toolErrorView(error: ToolError): ToolErrorView {
  return {
    category: toolErrorCategoryText(error.category),
    message: error.message,
    retryable: error.retryable,
  };
}

/**
 * The text of a tool error the model sees in its `tool_result` block.
 *
 * @param error The error.
 * @returns The text.
 */
export function toolErrorText(error: ToolError): string {
  return `Error (${toolErrorCategoryText(error.category)}): ${error.message}`;
}

/**
 * The policy-DSL text of a tool kind (`undefined` for UNSPECIFIED).
 *
 * @param kind The enum value.
 * @returns The text.
 */
export function toolKindText(kind: ToolKind): PolicyKind | undefined {
  switch (kind) {
    case ToolKind.RESOURCE:
      return "resource";
    case ToolKind.DATA_SOURCE:
      return "data_source";
    case ToolKind.INTERACTIVE:
      return "interactive";
    default:
      return undefined;
  }
}

/**
 * The policy-DSL text of a risk class. UNSPECIFIED reads as `critical` for
 * a resource (fail safe) and `read_only` otherwise.
 *
 * @param risk The enum value.
 * @param kind The operation's kind.
 * @returns The text.
 */
export function riskText(risk: RiskClass, kind: ToolKind): PolicyRisk {
  switch (risk) {
    case RiskClass.READ_ONLY:
      return "read_only";
    case RiskClass.LOW:
      return "low";
    case RiskClass.MODERATE:
      return "moderate";
    case RiskClass.HIGH:
      return "high";
    case RiskClass.CRITICAL:
      return "critical";
    default:
      return kind === ToolKind.RESOURCE ? "critical" : "read_only";
  }
}

/**
 * The text a `tool_result` block carries.
 *
 * @param block The block.
 * @returns The concatenated text of its content.
 */
function resultText(content: readonly ContentBlock[]): string {
  return content.map((b) => b.block.case === "text" ? b.block.value.text : "")
    .join("");
}

/**
 * A content block as plain data.
 *
 * @param block The block.
 * @returns The view.
 */
export function contentView(block: ContentBlock): ContentView | undefined {
  const b = block.block;
  switch (b.case) {
    case "text":
      return { type: "text", text: b.value.text };
    case "thinking":
      return { type: "thinking", text: b.value.text };
    case "redactedThinking":
      return { type: "redacted_thinking" };
    case "toolUse":
      return {
        type: "tool_use",
        id: b.value.id,
        name: b.value.name,
        input: b.value.arguments ?? {},
      };
    case "toolResult":
      return {
        type: "tool_result",
        toolUseId: b.value.toolUseId,
        isError: b.value.isError,
        text: resultText(b.value.content),
      };
    case "image":
      return { type: "image", mediaType: b.value.mediaType };
    case "document":
      return {
        type: "document",
        mediaType: b.value.mediaType,
        ...(b.value.filename !== undefined
          ? { filename: b.value.filename }
          : {}),
      };
    default:
      return undefined;
  }
}

/**
 * The concatenated text blocks of a message.
 *
 * @param message The message.
 * @returns The text.
 */
export function messageText(message: Message | undefined): string {
  if (!message) return "";
  return message.content.map((b) =>
    b.block.case === "text" ? b.block.value.text : ""
  )
    .join("");
}

/**
 * A `message` session event for a message.
 *
 * @param message The message.
 * @param extra Turn, model, usage and cost.
 * @returns The event.
 */
export function messageEventOf(
  message: Message,
  extra: {
    turnId?: string;
    model?: { provider: string; id: string };
    usage?: Usage;
    costUsd?: number;
    stopReason?: string;
  } = {},
): SessionEvent {
  return {
    type: "message",
    messageId: message.id,
    role: message.role === Role.ASSISTANT ? "assistant" : "user",
    content: message.content.map(contentView).filter((v) => v !== undefined),
    text: messageText(message),
    ...(extra.turnId !== undefined ? { turnId: extra.turnId } : {}),
    ...(extra.model !== undefined ? { model: extra.model } : {}),
    ...(extra.usage !== undefined ? { usage: usageCounts(extra.usage) } : {}),
    ...(extra.costUsd !== undefined ? { costUsd: extra.costUsd } : {}),
    ...(extra.stopReason !== undefined ? { stopReason: extra.stopReason } : {}),
  };
}

/**
 * A preview as protobuf JSON.
 *
 * @param tree The render tree.
 * @returns Its JSON form, or `undefined`.
 */
export function previewJson(
  tree: RenderTree | undefined,
): JsonValue | undefined {
  return tree === undefined ? undefined : toJson(RenderTreeSchema, tree);
}

/**
 * A plan item as plain data.
 *
 * @param item The plan item.
 * @returns The view.
 */
export function planItemView(item: PlanItem): PlanItemView {
  const decision = item.decision === PlanDecision.ALLOW
    ? "allow"
    : item.decision === PlanDecision.DENY
    ? "deny"
    : "ask";
  const preview = previewJson(item.preview);
  return {
    planItemId: item.id,
    callId: item.callId,
    provider: item.provider,
    tool: item.operationName,
    input: item.input ?? {},
    kind: toolKindText(item.kind) ?? "resource",
    risk: riskText(item.risk, item.kind),
    description: item.description,
    decision,
    decidedBy: item.decidedBy,
    ...(preview !== undefined ? { preview } : {}),
  };
}

/**
 * The `apply` session event of an apply result.
 *
 * @param result The apply result.
 * @returns The event.
 */
export function applyEventOf(result: ApplyResult): SessionEvent {
  return {
    type: "apply",
    turnId: result.turnId,
    items: result.items.map((i) => ({
      planItemId: i.planItemId,
      callId: i.callId,
      outcome: enumText(ApplyResult_ApplyOutcome[i.outcome]) as
        | "applied"
        | "failed"
        | "denied"
        | "skipped",
    })),
  };
}

/**
 * The hook point name of a wire `HookPoint`.
 *
 * @param point The enum value.
 * @returns The name, e.g. `plan-ready`.
 */
export function hookPointName(point: HookPoint): HookPointName {
  return enumText(HookPoint[point]).replaceAll("_", "-") as HookPointName;
}

/**
 * The `hook_error` session event of a hook error.
 *
 * @param error The hook error.
 * @param subscriber The subscriber's provider name.
 * @returns The event.
 */
export function hookErrorEventOf(
  error: HookError,
  subscriber: string,
): SessionEvent {
  return {
    type: "hook_error",
    point: hookPointName(error.point),
    subscriber,
    mode: enumText(HookMode[error.mode]) as HookModeName,
    category: enumText(HookErrorCategory[error.category]),
    message: error.message,
  };
}
