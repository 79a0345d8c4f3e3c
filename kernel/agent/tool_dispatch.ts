/**
 * Tool dispatch (kernel.md §6, steps 7–14): {@linkcode ToolDispatcher}
 * turns a turn's `tool_use` blocks into calls, runs the `pre-tool-call`
 * veto chain, schedules data-source calls concurrently by key and
 * interactive calls one at a time, hands resource calls to the plan/apply
 * gate, invokes each tool under its deadline with live output, maps a
 * failed call to an error outcome, and dispatches `post-tool-call` and
 * `post-apply`.
 *
 * @module
 */
import { resolve } from "node:path";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import type { ToolUseBlock } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { HookPayloadSchema } from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import {
  type ApplyResult_ApplyItem,
  ApplyResultSchema,
  PlanDecision,
  PlanItemSchema,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import type { Schema } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  type ToolError,
  ToolErrorCategory,
} from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { OutputStream } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import {
  ToolCallSchema,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { PluginCrashedError } from "../plugin/errors.ts";
import { ulid } from "../state/ulid.ts";
import { abortable, allSettledOrThrow } from "./_async.ts";
import { type CallRecord, pathsOf, type ToolTurn } from "./_call_record.ts";
import { denialError, durationMs, toolError } from "./_proto.ts";
import type { SessionCore } from "./_session_core.ts";
import type { ToolEntry, ToolIndex } from "./_tool_index.ts";
import type { ApprovalGate } from "./approval_gate.ts";
import { CIRCUIT_BREAKER_CRASHES, CircuitBreaker } from "./circuit_breaker.ts";
import { concurrencyKey, INTERACTIVE_LOCK, KeyedQueue } from "./concurrency.ts";
import { callHash, type DoomLoopDetector, sortJsonKeys } from "./doom_loop.ts";
import {
  AgentError,
  HookChainAbortedError,
  TurnCancelledError,
} from "./errors.ts";
import type { StoredOutcome } from "./history.ts";
import type { InteractiveGate } from "./interactive_gate.ts";
import { abortedBy, type CallExecutor, PlanGate } from "./plan_gate.ts";
import { schemaViolation } from "./schema_check.ts";
import {
  toolErrorText,
  toolErrorView,
  toolKindText,
} from "./session_events.ts";
import { traceHeaders } from "./session_spans.ts";
import { endSpanWithError } from "./tracing.ts";
import { boundOutcome, OutputBound } from "./result_bound.ts";
import { postToolOutcome } from "../control/tool_channels.ts";
import { postMemoryOutcome } from "../control/memory_channels.ts";
import { postLostCommands } from "../control/shell_watch.ts";

/** What a tool dispatcher needs besides the session. */
export interface ToolDispatchOptions {
  /** Policy and approvals. */
  readonly gate: ApprovalGate;
  /** Answers interactive calls. */
  readonly interactive: InteractiveGate;
  /** Records every non-interactive call (step 16 reads it). */
  readonly doom: DoomLoopDetector;
}

/** Dispatches the tool calls of a session's turns. */
export class ToolDispatcher implements CallExecutor {
  readonly #core: SessionCore;
  readonly #interactive: InteractiveGate;
  readonly #doom: DoomLoopDetector;
  readonly #breaker: CircuitBreaker;
  readonly #plan: PlanGate;
  readonly #crashed = new Set<string>();
  /** When each running call of the session started (for `time`). */
  readonly #started = new Map<string, number>();
  /** The call whose tool_result is committed with the round's stamps. */
  #deferFor: CallRecord | undefined;

  /**
   * Creates the dispatcher of a session.
   *
   * @param core The session.
   * @param options Gates and the doom-loop detector.
   */
  constructor(core: SessionCore, options: ToolDispatchOptions) {
    this.#core = core;
    this.#interactive = options.interactive;
    this.#doom = options.doom;
    this.#breaker = new CircuitBreaker((provider) =>
      core.emit({
        type: "warning",
        code: "circuit_open",
        message:
          `The "${provider}" tool provider crashed ${CIRCUIT_BREAKER_CRASHES} times in a row; its tools are disabled for the rest of this session.`,
      })
    );
    this.#plan = new PlanGate(core, options.gate, this);
  }

  /**
   * The tool providers whose plugin crashed during a call of this session
   * (the run then ends with a provider error's exit code, 6).
   */
  get crashedProviders(): ReadonlySet<string> {
    return this.#crashed;
  }

  /**
   * Steps 7–14 for a turn's tool use.
   *
   * @param t The turn.
   * @param tools The session's tools this turn.
   * @param uses The message's `tool_use` blocks, in order.
   * @param invalidArguments Arguments the model call found invalid, by id.
   * @returns Whether a `terminates_turn` call succeeded.
   */
  async run(
    t: ToolTurn,
    tools: ToolIndex,
    uses: ToolUseBlock[],
    invalidArguments: ReadonlyMap<string, string>,
  ): Promise<boolean> {
    const records: CallRecord[] = uses.map((toolUse) => ({
      toolUse,
      entry: tools.lookup(toolUse.name),
    }));
    for (const r of records) await this.#identify(t, r, invalidArguments);
    await this.#preToolCall(t, records);
    // The only call of the turn, a data source, with nothing to observe its
    // result before the round's time stamp is written (no post-tool-call
    // subscriber): its tool_result is committed with that stamp, in the
    // same order, one transaction instead of two (see #finishCall).
    const only = records.length === 1 ? records[0] : undefined;
    this.#deferFor = only?.call && !only.outcome &&
        only.entry!.schema.kind === ToolKind.DATA_SOURCE &&
        this.#core.control?.isEnabled("time") === true &&
        !this.#core.hooks.has("post-tool-call")
      ? only
      : undefined;

    // Step 8: split by kind.
    const pending = (kind: ToolKind) =>
      records.filter((r) =>
        r.call && !r.outcome && r.entry!.schema.kind === kind
      );
    const queue = new KeyedQueue();

    // Step 9: data-source calls — precheck, then concurrently by key.
    const dataSources: CallRecord[] = [];
    for (const r of pending(ToolKind.DATA_SOURCE)) {
      if (await this.#plan.precheck(t, r)) dataSources.push(r);
    }
    await allSettledOrThrow(dataSources.map((r) =>
      queue.run(
        concurrencyKey(r.entry!.schema, {
          provider: r.entry!.provider,
          input: r.call!.arguments ?? {},
        }),
        () => this.execute(t, r),
      )
    ));

    // Step 9b: interactive calls — precheck, then one at a time.
    for (const r of pending(ToolKind.INTERACTIVE)) {
      if (!(await this.#plan.precheck(t, r))) continue;
      await queue.run(INTERACTIVE_LOCK, () => this.execute(t, r));
    }

    // Steps 10–12: the plan of resource calls.
    const resources = pending(ToolKind.RESOURCE);
    let applied: ApplyResult_ApplyItem[] | undefined;
    if (resources.length > 0) {
      applied = await this.#plan.planAndApply(t, resources, queue);
    }

    const terminates = await this.#postToolCall(t, records);

    // Step 14: post-apply.
    if (applied) {
      const apply = create(ApplyResultSchema, {
        turnId: t.turnId,
        items: applied,
      });
      await this.#core.dispatchQuiet(
        "post-apply",
        create(HookPayloadSchema, {
          payload: { case: "postApply", value: { apply } },
        }),
        t.signal,
      );
    }
    return terminates;
  }

  /**
   * Identification: out-of-scope tools (or an UNSPECIFIED kind) never
   * reach a hook; they become an error result in their own slot. A call in
   * scope gets its call, plan item, `tool_call` event and doom-loop entry,
   * and invalid arguments become its error result.
   */
  async #identify(
    t: ToolTurn,
    r: CallRecord,
    invalidArguments: ReadonlyMap<string, string>,
  ): Promise<void> {
    const { sessionId, spec } = this.#core;
    const entry = r.entry;
    if (!entry || entry.schema.kind === ToolKind.UNSPECIFIED) {
      const error = toolError(
        ToolErrorCategory.NOT_FOUND,
        `The tool "${r.toolUse.name}" is not available in this session.`,
      );
      this.#setOutcome(t, r, { error });
      if (this.#core.control) {
        postToolOutcome(this.#core.control, {
          tool: r.toolUse.name,
          ...pathOf(r.toolUse.arguments ?? {}),
          deniedBy: "out-of-scope",
          error: { permissionDenied: true, message: error.message },
        });
      }
      this.#core.emit({
        type: "tool_result",
        turnId: t.turnId,
        callId: r.toolUse.id,
        provider: entry?.provider ?? "",
        tool: r.toolUse.name,
        isError: true,
        error: toolErrorView(error),
        text: toolErrorText(error),
      });
      return;
    }
    const input = sortJsonKeys(r.toolUse.arguments ?? {});
    r.call = create(ToolCallSchema, {
      id: r.toolUse.id,
      toolName: entry.schema.name,
      arguments: input,
      callContext: {
        sessionId,
        turnId: t.turnId,
        workingDirectory: spec.workingDirectory,
      },
    });
    for (const path of pathsOf(input)) {
      this.#core.filesTouched.delete(path);
      this.#core.filesTouched.add(path);
    }
    r.planItem = create(PlanItemSchema, {
      id: ulid(),
      callId: r.toolUse.id,
      provider: entry.provider,
      operationName: entry.schema.name,
      input,
      decision: PlanDecision.PENDING,
      kind: entry.schema.kind,
      risk: entry.schema.risk,
      description: entry.schema.description,
      producerCategory: entry.producerCategory ?? Category.TOOL,
    });
    await this.#core.writer.toolCall(r.call, entry.endpoint.identity);
    // A deferred assistant message was committed with it (or before).
    if (t.messageStored) await t.messageStored;
    this.#core.emit({
      type: "tool_call",
      turnId: t.turnId,
      callId: r.call.id,
      provider: entry.provider,
      tool: entry.schema.name,
      kind: toolKindText(entry.schema.kind)!,
      input,
    });
    if (entry.schema.kind !== ToolKind.INTERACTIVE) {
      this.#doom.record(
        callHash({
          provider: entry.provider,
          tool: entry.schema.name,
          input,
        }),
      );
    }
    const bad = invalidArguments.get(r.toolUse.id) ??
      (entry.schema.inputSchema
        ? argumentsViolation(input, entry.schema.inputSchema)
        : undefined);
    if (bad !== undefined) {
      await this.#finishCall(t, r, {
        error: toolError(ToolErrorCategory.INVALID_ARGUMENTS, bad),
      });
    }
  }

  /** Step 7: pre-tool-call, per call in declaration order (veto-bearing). */
  async #preToolCall(t: ToolTurn, records: CallRecord[]): Promise<void> {
    const hooks = this.#core.hooks;
    if (!hooks.has("pre-tool-call")) return;
    for (const r of records) {
      if (!r.call || r.outcome) continue;
      let verdict: { decision: "allow" | "deny"; decidedBy?: string };
      try {
        verdict = await hooks.dispatch(
          "pre-tool-call",
          create(HookPayloadSchema, {
            payload: {
              case: "preToolCall",
              value: { call: r.call, planItem: r.planItem },
            },
          }),
          t.signal,
        );
      } catch (err) {
        if (!(err instanceof HookChainAbortedError)) throw err;
        verdict = { decision: "deny", decidedBy: abortedBy(err) };
      }
      if (verdict.decision === "deny") {
        await this.deny(t, r, verdict.decidedBy ?? "hook-veto");
      }
    }
  }

  /**
   * Step 13: post-tool-call in tool_use order; DoneCheck for
   * terminates_turn.
   */
  async #postToolCall(t: ToolTurn, records: CallRecord[]): Promise<boolean> {
    let terminates = false;
    for (const r of records) {
      if (!r.call || !r.outcome) continue;
      await this.#core.dispatchQuiet(
        "post-tool-call",
        create(HookPayloadSchema, {
          payload: {
            case: "postToolCall",
            value: {
              call: r.call,
              outcome: "result" in r.outcome
                ? { case: "result", value: { payload: r.outcome.result } }
                : { case: "error", value: r.outcome.error },
            },
          },
        }),
        t.signal,
      );
      if (
        r.entry!.schema.terminatesTurn &&
        r.entry!.schema.kind === ToolKind.RESOURCE && "result" in r.outcome
      ) {
        terminates = true;
      }
    }
    return terminates;
  }

  #setOutcome(
    t: ToolTurn,
    r: CallRecord,
    outcome: StoredOutcome,
    deniedBy?: string,
  ): void {
    r.outcome = outcome;
    if (deniedBy !== undefined) r.deniedBy = deniedBy;
    t.outcomes.set(r.toolUse.id, outcome);
  }

  /**
   * Records a call as denied.
   *
   * @param t The turn.
   * @param r The call.
   * @param decidedBy The policy, hook or answer that denied it.
   */
  async deny(t: ToolTurn, r: CallRecord, decidedBy: string): Promise<void> {
    await this.#finishCall(t, r, { error: denialError(decidedBy) }, decidedBy);
  }

  /** Records a call's outcome: the `tool_result` event and session event. */
  async #finishCall(
    t: ToolTurn,
    r: CallRecord,
    outcome: StoredOutcome,
    deniedBy?: string,
  ): Promise<void> {
    const entry = r.entry!;
    this.#breaker.record(entry.provider, outcome);
    // Tool MUST 15: a result that breaks the output schema is an error.
    if ("result" in outcome && entry.schema.outputSchema) {
      const bad = schemaViolation(outcome.result, entry.schema.outputSchema);
      if (bad) {
        outcome = {
          error: toolError(
            ToolErrorCategory.UNKNOWN,
            `The tool's result does not match its output schema: ${bad}`,
            false,
            { payload: outcome.result },
          ),
        };
      }
    }
    // kernel.md §6.3: only max_result_bytes reach the model, the events and
    // the log; the whole result goes to an overflow file.
    outcome = await boundOutcome(outcome, this.#boundOptions(r));
    this.#setOutcome(t, r, outcome, deniedBy);
    this.#core.spans.endTool(r, outcome, deniedBy);
    const defer = this.#deferFor === r;
    if (defer) this.#deferFor = undefined;
    const written = this.#core.writer.toolResult(
      r.toolUse.id,
      outcome,
      entry.endpoint.identity,
      defer,
    );
    if (!defer) await written;
    if (this.#core.control) {
      const started = this.#started.get(r.toolUse.id);
      if (started !== undefined) {
        this.#started.delete(r.toolUse.id);
        this.#core.toolDurations.set(r.toolUse.id, this.#now() - started);
      }
      if ("result" in outcome) {
        this.#core.control.shells.noteResult(entry.provider, outcome.result);
        if (entry.endpoint.identity.category === "memory") {
          postMemoryOutcome(
            this.#core.control,
            entry.schema.name,
            r.call?.arguments ?? {},
            outcome.result,
          );
        }
      } else if (outcome.error.category === ToolErrorCategory.PROCESS_CRASHED) {
        postLostCommands(this.#core.control, entry.provider);
      }
      postToolOutcome(this.#core.control, {
        tool: entry.schema.name,
        ...(r.call ? pathOf(r.call.arguments ?? {}) : {}),
        ...(deniedBy !== undefined ? { deniedBy } : {}),
        ...("error" in outcome
          ? {
            error: {
              permissionDenied: outcome.error.category ===
                ToolErrorCategory.PERMISSION_DENIED,
              message: outcome.error.message,
            },
          }
          : { result: outcome.result }),
      });
    }
    this.#core.emit({
      type: "tool_result",
      turnId: t.turnId,
      callId: r.toolUse.id,
      provider: entry.provider,
      tool: entry.schema.name,
      isError: "error" in outcome,
      ...("result" in outcome
        ? { result: outcome.result, text: JSON.stringify(outcome.result) }
        : {
          error: toolErrorView(outcome.error),
          text: toolErrorText(outcome.error),
        }),
      ...(deniedBy !== undefined ? { deniedBy } : {}),
    });
    if (defer) {
      // Announced as before, ahead of the round's stamp (whose control
      // event goes out when it is queued, as every control event); stored
      // with that stamp. A failed write fails the round where the session
      // awaits it with the stamp's.
      t.written = written;
      written.catch(() => {});
    }
  }

  #now(): number {
    return (this.#core.deps.now ?? Date.now)();
  }

  #boundOptions(r: CallRecord) {
    const { deps, sessionId, spec } = this.#core;
    return {
      maxBytes: spec.maxResultBytes,
      dir: deps.store.artifactsDirOf?.(sessionId),
      callId: r.toolUse.id,
    };
  }

  /**
   * Invokes one call under its deadline and records the outcome.
   *
   * @param t The turn.
   * @param r The call.
   * @throws {TurnCancelledError} When the turn is cancelled.
   */
  async execute(t: ToolTurn, r: CallRecord): Promise<void> {
    const signal = t.signal;
    if (signal.aborted) throw new TurnCancelledError({ cause: signal.reason });
    const entry = r.entry!;
    const crashes = this.#breaker.openCrashes(entry.provider);
    if (crashes !== undefined) {
      // The circuit is open: the provider is not called again this session.
      return await this.#finishCall(t, r, {
        error: toolError(
          ToolErrorCategory.PROCESS_CRASHED,
          `The "${entry.provider}" tool provider crashed ${crashes} times in a row; its tools are disabled for the rest of this session (circuit breaker). Go on without them.`,
        ),
      });
    }
    if (entry.schema.kind === ToolKind.INTERACTIVE) {
      return await this.#executeInteractive(t, r);
    }
    const timeoutMs = durationMs(entry.schema.defaultTimeout) ??
      this.#core.spec.defaultToolTimeoutMs;
    this.#started.set(r.toolUse.id, this.#now());
    // fs-change leaves out what the session's own calls write.
    const fs = entry.schema.kind !== ToolKind.DATA_SOURCE
      ? this.#core.control?.fs
      : undefined;
    if (fs) {
      const paths = pathsOf(r.call?.arguments ?? {}).map((p) =>
        resolve(this.#core.spec.workingDirectory, p)
      );
      // A call that names no path (a shell command) may write anywhere.
      fs.callStarted(r.toolUse.id, paths, paths.length === 0);
    }
    let invoked;
    try {
      invoked = await this.#invokeTool(t, r, timeoutMs);
    } catch (err) {
      if (
        err instanceof TurnCancelledError &&
        entry.schema.kind === ToolKind.RESOURCE
      ) {
        await this.#recordCancelled(t, r);
      }
      throw err;
    } finally {
      fs?.callEnded(r.toolUse.id);
    }
    const { outcome } = invoked;
    await this.#finishCall(
      t,
      r,
      outcome ?? {
        error: toolError(
          ToolErrorCategory.UNKNOWN,
          "The tool ended its stream without a result or an error.",
        ),
      },
    );
  }

  /**
   * Records a resource call stopped by the turn's cancellation (an
   * `Interrupt`, Ctrl-C): a `CANCELLED` error carrying what the operation
   * had reported doing (plugins.md §6.2 MUST 16, §6.7 MUST 11), so that
   * the log, every attached frontend and the model see the partial
   * mutation — never a success. Its span has ended as cancelled already.
   */
  async #recordCancelled(t: ToolTurn, r: CallRecord): Promise<void> {
    const entry = r.entry!;
    const outcome = await boundOutcome(
      {
        error: withPartialMutation(
          toolError(
            ToolErrorCategory.CANCELLED,
            "The call was cancelled before it finished.",
          ),
          entry,
          r,
        ),
      },
      this.#boundOptions(r),
    );
    this.#started.delete(r.toolUse.id);
    this.#setOutcome(t, r, outcome);
    await this.#core.writer.toolResult(
      r.toolUse.id,
      outcome,
      entry.endpoint.identity,
    );
    if ("error" in outcome) {
      this.#core.emit({
        type: "tool_result",
        turnId: t.turnId,
        callId: r.toolUse.id,
        provider: entry.provider,
        tool: entry.schema.name,
        isError: true,
        error: toolErrorView(outcome.error),
        text: toolErrorText(outcome.error),
      });
    }
  }

  /**
   * Invokes a call's tool and reads its stream until the terminal event
   * (or, with `timeoutMs` undefined, an interactive tool's prompt): live
   * output and progress become session events, and a failure of the call
   * itself becomes an error outcome (`TIMEOUT` past the deadline,
   * `PROCESS_CRASHED` when the plugin died, else `UNKNOWN`). The call's
   * grant lasts while the stream is read; the stream is closed on return.
   *
   * @throws {TurnCancelledError} When the turn is cancelled.
   */
  async #invokeTool(
    t: ToolTurn,
    r: CallRecord,
    timeoutMs: number | undefined,
  ): Promise<{ outcome?: StoredOutcome; prompt?: JsonObject }> {
    const { signal, turnId } = t;
    const entry = r.entry!;
    const call = r.call!;
    if (this.#core.spans.tracer.enabled) r.span = this.#core.spans.startTool(r);
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      ac.abort(new Error("tool deadline exceeded"));
    }, timeoutMs);
    // max_wall_clock_s holds mid-call: the call is stopped when the session
    // runs out of time, and the bounds check after the turn fires.
    let outOfTime = false;
    const deadlineAt = this.#core.deadlineAt;
    const wallTimer = deadlineAt === undefined ? undefined : setTimeout(() => {
      outOfTime = true;
      ac.abort(new Error("max_wall_clock_s reached"));
    }, Math.max(0, deadlineAt - (this.#core.deps.now ?? Date.now)()));
    await using output = new OutputBound(this.#boundOptions(r));
    const release = this.#core.deps.registry?.grant(
      entry.endpoint.identity,
      this.#core.sessionId,
    );
    try {
      const events = entry.endpoint.invoke(call, {
        signal: ac.signal,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...traceHeaders(r.span),
      });
      const decoder = new TextDecoder();
      for await (const ev of abortable(events, ac.signal)) {
        const e = ev.event;
        switch (e.case) {
          case "result":
            return {
              outcome: {
                result: sortJsonKeys(e.value.payload ?? {}) as JsonObject,
              },
            };
          case "error":
            return { outcome: { error: e.value } };
          case "partialResult":
            if (timeoutMs === undefined) {
              return {
                prompt: sortJsonKeys(e.value.payload ?? {}) as JsonObject,
              };
            }
            // What it has done so far: reported if the call is stopped.
            r.reported = sortJsonKeys(e.value.payload ?? {}) as JsonObject;
            break;
          case "outputChunk": {
            const { pass, note } = await output.take(e.value.data);
            const stream = e.value.stream === OutputStream.STDERR
              ? "stderr"
              : "stdout";
            if (pass.length > 0) {
              this.#core.emit({
                type: "tool_output",
                turnId,
                callId: call.id,
                stream,
                text: decoder.decode(pass, { stream: true }),
              });
            }
            if (note !== undefined) {
              this.#core.emit({
                type: "tool_output",
                turnId,
                callId: call.id,
                stream,
                text: decoder.decode() + note,
              });
            }
            break;
          }
          case "progress":
            this.#core.emit({
              type: "tool_progress",
              turnId,
              callId: call.id,
              message: e.value.message,
              ...(e.value.fractionComplete !== undefined
                ? { fraction: e.value.fractionComplete }
                : {}),
            });
            break;
        }
      }
      return {};
    } catch (err) {
      if (signal.aborted) {
        if (r.span) endSpanWithError(r.span, err, true);
        throw new TurnCancelledError({ cause: err });
      }
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof PluginCrashedError) this.#crashed.add(entry.provider);
      const stopped = outOfTime
        ? toolError(
          ToolErrorCategory.TIMEOUT,
          "The session reached its wall-clock limit (max_wall_clock_s) while this tool was running; the call was stopped.",
        )
        : timedOut
        ? toolError(
          ToolErrorCategory.TIMEOUT,
          `The tool did not finish within ${timeoutMs} ms.`,
          true,
        )
        : err instanceof PluginCrashedError
        ? toolError(ToolErrorCategory.PROCESS_CRASHED, message)
        : toolError(ToolErrorCategory.UNKNOWN, message);
      return { outcome: { error: withPartialMutation(stopped, entry, r) } };
    } finally {
      clearTimeout(timer);
      clearTimeout(wallTimer);
      ac.abort(new Error("tool call settled"));
      signal.removeEventListener("abort", onAbort);
      release?.();
    }
  }

  /**
   * Runs an interactive call: the tool streams its prompt as a
   * `partial_result`, the {@linkcode InteractiveGate} waits for the first
   * answer (no tool deadline applies; the ask timeout does), and the
   * answer becomes the result. The tool's stream is closed either way.
   */
  async #executeInteractive(t: ToolTurn, r: CallRecord): Promise<void> {
    const signal = t.signal;
    const entry = r.entry!;
    const call = r.call!;
    let { outcome, prompt } = await this.#invokeTool(t, r, undefined);
    if (!outcome && prompt) {
      let asked;
      try {
        asked = await this.#interactive.ask({
          sessionId: this.#core.sessionId,
          callId: call.id,
          provider: entry.provider,
          tool: call.toolName,
          prompt,
        }, signal);
      } catch (err) {
        if (r.span) endSpanWithError(r.span, err, true);
        throw err;
      }
      if (asked.answered) {
        outcome = { result: sortJsonKeys(asked.response) as JsonObject };
      } else if (asked.decidedBy === "on_ask:fail") {
        const err = new AgentError(
          "approval_required",
          `Cannot run "${entry.provider}.${call.toolName}": it asks the user, nobody can answer and on_ask is "fail"`,
        );
        if (r.span) endSpanWithError(r.span, err, false);
        throw err;
      } else {
        outcome = {
          error: toolError(
            ToolErrorCategory.EXECUTION_FAILED,
            asked.decidedBy === "on_ask:timeout"
              ? `Nobody answered within ${this.#core.spec.askTimeoutMs} ms. Go on with your best judgement and say what you assumed.`
              : "Nobody can answer in this run (it is not interactive). Go on with your best judgement and say what you assumed.",
          ),
        };
      }
    }
    await this.#finishCall(
      t,
      r,
      outcome ?? {
        error: toolError(
          ToolErrorCategory.UNKNOWN,
          "The interactive tool ended its stream without a prompt, a result or an error.",
        ),
      },
    );
  }
}

/**
 * A kernel-made error for a resource call that was stopped (cancelled,
 * past its deadline, crashed): it says what the operation had reported
 * doing — its last `partial_result`, also in `details.partial_result` —
 * or that it reported nothing and may still have changed things.
 */
function withPartialMutation(
  error: ToolError,
  entry: ToolEntry,
  r: CallRecord,
): ToolError {
  if (entry.schema.kind !== ToolKind.RESOURCE) return error;
  if (r.reported === undefined) {
    return toolError(
      error.category,
      `${error.message} It reported no progress before it was stopped, and may have changed some things.`,
      error.retryable,
    );
  }
  return toolError(
    error.category,
    `${error.message} Before it was stopped it had reported: ${
      JSON.stringify(r.reported)
    }. The rest was not done.`,
    error.retryable,
    { partial_result: r.reported },
  );
}

/** A call's arguments against its input schema, as the model should read it. */
function argumentsViolation(
  input: JsonObject,
  schema: Schema,
): string | undefined {
  const bad = schemaViolation(input, schema, "arguments");
  return bad ? `Invalid arguments: ${bad}.` : undefined;
}

/** The first path a call's arguments name, as `{ path }`. */
function pathOf(input: JsonObject): { path?: string } {
  const path = pathsOf(input)[0];
  return path !== undefined ? { path } : {};
}
