/**
 * One tool call of a turn as the dispatcher tracks it
 * ({@linkcode CallRecord}): from its `tool_use` block, through its call,
 * plan item and span, to its outcome; and what policy judges of it
 * ({@linkcode policyCallOf}).
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { commandArgument, type PolicyCall } from "../../contract/policy.ts";
import type { ToolUseBlock } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { PlanItem } from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import type {
  ToolCall,
  ToolSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { ToolEntry } from "./_tool_index.ts";
import type { StoredOutcome } from "./history.ts";
import { riskText, toolKindText } from "./session_events.ts";
import type { KernelSpan } from "./tracing.ts";

/** A call of the current turn. */
export interface CallRecord {
  /** The model's block. */
  readonly toolUse: ToolUseBlock;
  /** The tool it names, when in scope. */
  readonly entry: ToolEntry | undefined;
  /** The call as sent (absent for an out-of-scope tool). */
  call?: ToolCall;
  /** Its plan item. */
  planItem?: PlanItem;
  /** Its terminal outcome. */
  outcome?: StoredOutcome;
  /** The policy, hook or answer that denied it. */
  deniedBy?: string;
  /** Its `tool.execute` span. */
  span?: KernelSpan;
  /**
   * The last `partial_result` the operation streamed while it ran: what
   * it says it has done so far, reported if the call is stopped
   * (plugins.md §6.2 MUST 16, §6.7 MUST 11).
   */
  reported?: JsonObject;
}

/**
 * What policy judges: kind, provider, tool and risk, and the arguments'
 * string `command` when there is one (a shell line such as `exec.bash`'s:
 * policy then judges each of its segments, contract/policy.ts).
 *
 * @param r A call with an entry.
 * @returns The policy input.
 */
export function policyCallOf(r: CallRecord): PolicyCall {
  return policyCallOfTool(
    r.entry!.provider,
    r.entry!.schema,
    r.call?.arguments ?? r.toolUse.arguments,
  );
}

/**
 * {@linkcode policyCallOf} for a tool and arguments (`agent test` judges
 * calls offline through it, as the dispatcher does).
 *
 * @param provider The provider's local name.
 * @param schema The tool's schema (kind and risk).
 * @param args The call's arguments.
 * @returns The policy input.
 */
export function policyCallOfTool(
  provider: string,
  schema: Pick<ToolSchema, "name" | "kind" | "risk">,
  args: Readonly<Record<string, unknown>> | undefined,
): PolicyCall {
  const command = commandArgument(args);
  return {
    kind: toolKindText(schema.kind)!,
    provider,
    toolName: schema.name,
    risk: riskText(schema.risk, schema.kind),
    ...(command !== undefined ? { command } : {}),
  };
}

/**
 * The paths a call's arguments name: a string `path`, and the `path` of
 * each object of a `files` list (multi-file edits).
 *
 * @param input The call's arguments.
 * @returns The paths, in order.
 */
export function pathsOf(input: JsonObject): string[] {
  const out: string[] = [];
  if (typeof input.path === "string" && input.path !== "") out.push(input.path);
  if (Array.isArray(input.files)) {
    for (const f of input.files) {
      if (
        f && typeof f === "object" && !Array.isArray(f) &&
        typeof f.path === "string" && f.path !== ""
      ) out.push(f.path);
    }
  }
  return out;
}

/** The turn a batch of tool calls belongs to. */
export interface ToolTurn {
  /** The turn's id. */
  readonly turnId: string;
  /** Cancels the turn. */
  readonly signal: AbortSignal;
  /** Each call's outcome by `tool_use` id, as it settles (step 15 reads it). */
  readonly outcomes: Map<string, StoredOutcome>;
  /**
   * Set when the dispatcher left the `tool_result` of the turn's only call
   * to be committed with the round's time stamps (one transaction instead
   * of two): resolves once it is stored. The session awaits it with the
   * stamps' writes.
   */
  written?: Promise<void>;
  /**
   * The write of the turn's assistant message when it was left to commit
   * with the first `tool_call` (see `TurnDriver`): awaited after that
   * write, before anything runs.
   */
  readonly messageStored?: Promise<void>;
}
