/**
 * What the agent loop writes to the session store: {@linkcode SessionLogWriter}
 * turns each durable fact of a session — a message and its cost, a tool
 * call, a tool result, a plan, an apply, a hook error — into one event of
 * its {@linkcode SessionLog}. Live session events are not its concern.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import type { Message } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  ApplyEventSchema,
  ControlEventSchema,
  HookErrorEventSchema,
  MessageEventSchema,
  PlanEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type {
  ApplyResult,
  Plan,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import type { ToolCall } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { planItemEntriesOf } from "../state/_convert.ts";
import { KERNEL_PRODUCER, type SessionLog } from "../state/session_store.ts";
import { producerOf, producerRefOfIdentity } from "./_proto.ts";
import type { StoredOutcome } from "./history.ts";
import type { HookFailure } from "./hook_dispatch.ts";
import type { ModelResponse } from "./model_call.ts";

const DEFER = { defer: true } as const;

/** What a model call produced besides its message: usage, cost, model. */
export interface ModelSpend {
  /** Token usage. */
  readonly usage: ModelResponse["usage"];
  /** Dollars. */
  readonly costUsd: number;
  /** The model that answered. */
  readonly model: { readonly provider: string; readonly id: string };
  /** The model plugin that answered. */
  readonly identity: PluginIdentity;
}

/** Writes a session's durable events to its {@linkcode SessionLog}. */
export class SessionLogWriter {
  readonly #log: SessionLog;

  /**
   * Writes to this log.
   *
   * @param log The session's log.
   */
  constructor(log: SessionLog) {
    this.#log = log;
  }

  /**
   * A user message (produced on behalf of the session's first model).
   *
   * @param message The message.
   * @param identity The model plugin recorded as its producer.
   */
  async userMessage(message: Message, identity: PluginIdentity): Promise<void> {
    await this.#log.emit({
      kind: EventKind.MESSAGE,
      producer: producerOf(identity),
      schemaVersion: "1",
      id: message.id,
      payload: toBinary(
        MessageEventSchema,
        create(MessageEventSchema, {
          message,
          model: producerRefOfIdentity(identity),
        }),
      ),
    });
  }

  /**
   * An assistant message with its `cost_ledger` row.
   *
   * @param message The message.
   * @param r The model call's usage, cost and model.
   * @param defer Commit it with the next write (see
   * {@linkcode SessionLog.emit}).
   */
  async assistantMessage(
    message: Message,
    r: ModelSpend,
    defer = false,
  ): Promise<void> {
    await this.#log.emit({
      kind: EventKind.MESSAGE,
      producer: producerOf(r.identity),
      schemaVersion: "1",
      id: message.id,
      payload: toBinary(
        MessageEventSchema,
        create(MessageEventSchema, {
          message,
          model: producerRefOfIdentity(r.identity),
          usage: r.usage,
          costUsd: r.costUsd,
        }),
      ),
      cost: {
        providerName: r.model.provider,
        modelId: r.model.id,
        inputTokens: r.usage.inputTokens,
        outputTokens: r.usage.outputTokens,
        cacheWriteTokens: r.usage.cacheWriteTokens ?? 0n,
        cacheReadTokens: r.usage.cacheReadTokens ?? 0n,
        costUsd: r.costUsd,
      },
    }, defer ? DEFER : undefined);
  }

  /**
   * A failed hook subscriber.
   *
   * @param f The failure.
   */
  async hookError(f: HookFailure): Promise<void> {
    await this.#log.emit({
      kind: EventKind.HOOK_ERROR,
      producer: producerOf(f.identity),
      schemaVersion: "1",
      payload: toBinary(
        HookErrorEventSchema,
        create(HookErrorEventSchema, { error: f.error }),
      ),
    });
  }

  /**
   * A tool call as the kernel will send it.
   *
   * @param call The call.
   * @param identity The tool plugin.
   */
  async toolCall(call: ToolCall, identity: PluginIdentity): Promise<void> {
    await this.#log.emit({
      kind: EventKind.TOOL_CALL,
      producer: producerOf(identity),
      schemaVersion: "1",
      payload: toBinary(
        ToolCallEventSchema,
        create(ToolCallEventSchema, { call }),
      ),
    });
  }

  /**
   * A call's terminal outcome.
   *
   * @param toolCallId The call.
   * @param outcome Its result or error.
   * @param identity The tool plugin.
   * @param defer Commit it with the next write (see
   * {@linkcode SessionLog.emit}).
   */
  async toolResult(
    toolCallId: string,
    outcome: StoredOutcome,
    identity: PluginIdentity,
    defer = false,
  ): Promise<void> {
    await this.#log.emit({
      kind: EventKind.TOOL_RESULT,
      producer: producerOf(identity),
      schemaVersion: "1",
      payload: toBinary(
        ToolResultEventSchema,
        create(ToolResultEventSchema, {
          toolCallId,
          outcome: "result" in outcome
            ? { case: "result", value: { payload: outcome.result } }
            : { case: "error", value: outcome.error },
        }),
      ),
    }, defer ? DEFER : undefined);
  }

  /**
   * A turn's plan, with its items indexed for the store.
   *
   * @param plan The decided plan.
   */
  async plan(plan: Plan): Promise<void> {
    await this.#log.emit({
      kind: EventKind.PLAN,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: toBinary(PlanEventSchema, create(PlanEventSchema, { plan })),
      planItems: planItemEntriesOf(plan),
    });
  }

  /**
   * A turn's apply result, once every item is terminal.
   *
   * @param result The result.
   */
  async apply(result: ApplyResult): Promise<void> {
    await this.#log.emit({
      kind: EventKind.APPLY,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: toBinary(ApplyEventSchema, create(ApplyEventSchema, { result })),
    });
  }

  /**
   * A compactor's rewrite of the history (a `control` event of channel
   * `compaction` without rendered text; see compaction.ts).
   *
   * @param r The provider, token counts and the rewrite.
   */
  async compaction(r: {
    provider: string;
    tokensBefore: number;
    tokensAfter: number;
    kept: number;
    body: string;
    turnId: string;
    exact: boolean;
  }): Promise<void> {
    await this.#log.emit({
      kind: EventKind.CONTROL,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: toBinary(
        ControlEventSchema,
        create(ControlEventSchema, {
          channel: "compaction",
          direction: "system_to_agent",
          attributes: [
            { name: "strategy", value: "summary" },
            { name: "provider", value: r.provider },
            { name: "tokens-before", value: String(r.tokensBefore) },
            { name: "tokens-after", value: String(r.tokensAfter) },
            { name: "kept", value: String(r.kept) },
            { name: "exact", value: String(r.exact) },
          ],
          body: r.body,
          rendered: "",
          source: r.provider,
          turnId: r.turnId,
        }),
      ),
    });
  }
}
