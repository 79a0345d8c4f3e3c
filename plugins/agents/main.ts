/**
 * `agents`: the first-party delegation tool. A session hands work to
 * sub-agents — child sessions the kernel runs through `RunSession`, with
 * fresh context, depth and cost budgets that only shrink, and at most
 * `max_concurrent_subagents` of one parent at a time — and talks to them.
 *
 * - `spawn_subagent` `{ agent | profile, prompt, name?, worktree?,
 *   background?, max_cost_usd? }` (data source, low; spawn-capable, so it
 *   is removed when the session's remaining depth is spent): runs a child
 *   and returns its final report, status and subtree usage; with
 *   `background: true` it returns at once and `wait_subagent` collects the
 *   result. `agent` names an `agent "NAME" {}` block of agent.hcl (the
 *   kernel lists them in this tool's description). `worktree: true` runs
 *   the child in its own git worktree on branch `agent/<name>`.
 * - `wait_subagent` `{ name? }`: waits for one child (or every unfinished
 *   one) and returns the outcomes.
 * - `list_subagents` `{}`: this session's children and their states.
 * - `send_message` `{ to, text }`: a message to another named agent of
 *   the session tree (`"parent"`, a child, a sibling), delivered as
 *   `<cp:mailbox>` at its next round boundary (kernel `SendMailbox`).
 * - `wait_message` `{ timeout_s? }`: waits until a message for this
 *   session arrives (the text itself comes as `<cp:mailbox>`).
 * - `merge_worktree` `{ name, merge_commit? }` (resource, moderate): merges
 *   a finished worktree child's branch into this session's tree, a squash
 *   commit by default (kernel `MergeWorktree`); a conflict is reported and
 *   nothing changes. The session then gets `<cp:worktree-merged>`.
 *
 * Background children live as long as the parent's turn: they are
 * cancelled with it, so wait for them before the turn ends.
 *
 * The plugin needs no host capability: git, the worktrees and the merges
 * are the kernel's.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type {
  GetSchemaResponseSchema,
  InvokeResponseSchema,
} from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  type KernelClient,
  parseManifest,
  serve,
  service,
  toolError,
} from "../sdk/mod.ts";
import {
  objectSchema as object,
  toolResult as result,
} from "../sdk/tool_kit.ts";
import {
  ArgumentError,
  type Child,
  type ChildOutcome,
  ChildTable,
  MailboxCounter,
  parseFlat,
  parseSpawn,
  type SpawnArgs,
} from "./_agents.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;

const manifest = parseManifest(manifestJson, "agents/plugin.json");

const str = (description: string): Schema => ({
  type: SchemaType.STRING,
  description,
});
const bool = (description: string): Schema => ({
  type: SchemaType.BOOLEAN,
  description,
});
const num = (description: string): Schema => ({
  type: SchemaType.NUMBER,
  description,
});
const LONG = { seconds: 3600n };
const SHORT = { seconds: 30n };
const MAX_WAIT_MESSAGE_S = 600;
/** `remaining_depth` that leaves the kernel's own figure as it is. */
const NO_NARROWING = 2 ** 31 - 1;

const tool = (
  name: string,
  kind: ToolKind,
  risk: RiskClass,
  description: string,
  input: Schema,
  timeout = SHORT,
) => ({
  name,
  kind,
  risk,
  description,
  inputSchema: input,
  streaming: false,
  concurrency: { safe: true, keyFields: [] },
  defaultTimeout: timeout,
  idempotent: false,
});

const SCHEMA: MessageInitShape<typeof GetSchemaResponseSchema> = {
  tools: [
    tool(
      "spawn_subagent",
      ToolKind.DATA_SOURCE,
      RiskClass.LOW,
      "Hands a task to a sub-agent: a fresh session that sees only your " +
        "prompt (give it everything it needs) and answers with a final " +
        "report. Name a named agent (agent) or an agent profile (profile). " +
        "Several calls in one turn run in parallel. background: true returns " +
        "at once (collect the result with wait_subagent before your turn " +
        "ends; background agents are cancelled with it). worktree: true runs " +
        "it in its own git worktree on branch agent/<name>; merge its work " +
        "with merge_worktree. You hear of each sub-agent's start and end as " +
        "<cp:subagent> blocks.",
      object({
        agent: str("A named agent (see the list below), e.g. reviewer."),
        profile: str("An agent profile, when no named agent fits."),
        prompt: str("The sub-agent's task, complete and self-contained."),
        name: str(
          "Its name among your sub-agents (its mailbox address and worktree branch). Default: the named agent's name, or <profile>-<n>.",
        ),
        worktree: bool("Work in its own git worktree. Default false."),
        background: bool("Return at once; wait_subagent collects it."),
        max_cost_usd: num("A cost ceiling for it and its own sub-agents."),
      }, ["prompt"]),
      LONG,
    ),
    tool(
      "wait_subagent",
      ToolKind.DATA_SOURCE,
      RiskClass.READ_ONLY,
      "Waits for a background sub-agent (name) or for every unfinished one " +
        "(no name) and returns their final reports, statuses and costs.",
      object({ name: str("The sub-agent's name; default: all.") }, []),
      LONG,
    ),
    tool(
      "list_subagents",
      ToolKind.DATA_SOURCE,
      RiskClass.READ_ONLY,
      "Lists the sub-agents this session spawned: name, agent or profile, " +
        "state (running, completed, failed, …) and worktree branch.",
      object({}, []),
    ),
    tool(
      "send_message",
      ToolKind.DATA_SOURCE,
      RiskClass.LOW,
      'Sends a message to another agent of this session: "parent" (the ' +
        "agent that spawned you), one of your sub-agents or a sibling, by " +
        "name. It arrives as a <cp:mailbox> block at the recipient's next " +
        "step; only running agents receive messages.",
      object({
        to: str('The recipient\'s name, or "parent".'),
        text: str("The message."),
      }, ["to", "text"]),
    ),
    tool(
      "wait_message",
      ToolKind.DATA_SOURCE,
      RiskClass.READ_ONLY,
      "Waits until another agent sends you a message (send_message); the " +
        "message itself arrives as a <cp:mailbox> block right after.",
      object({
        timeout_s: num(
          `How long to wait, in seconds (default 60, at most ${MAX_WAIT_MESSAGE_S}).`,
        ),
      }, []),
      { seconds: BigInt(MAX_WAIT_MESSAGE_S + 30) },
    ),
    tool(
      "merge_worktree",
      ToolKind.RESOURCE,
      RiskClass.MODERATE,
      "Merges a finished worktree sub-agent's branch into your working " +
        "tree: one squash commit (or a merge commit with merge_commit: " +
        "true). A branch that conflicts is reported with the conflicting " +
        "files and nothing changes. On success you get a " +
        "<cp:worktree-merged> block with the diffstat and its report.",
      object({
        name: str("The worktree sub-agent's name."),
        merge_commit: bool("A merge commit instead of a squash."),
      }, ["name"]),
      { seconds: 120n },
    ),
  ],
  configSchema: configSchemaOf(manifest),
  supportedHookPoints: [],
};

/** A failure that becomes a ToolError. */
class Failure extends Error {
  constructor(readonly category: ToolErrorCategory, message: string) {
    super(message);
  }
}

function classify(err: unknown, what: string): Failure {
  if (err instanceof Failure) return err;
  if (err instanceof ArgumentError) {
    return new Failure(ToolErrorCategory.INVALID_ARGUMENTS, err.message);
  }
  if (err instanceof GrpcStatusError) {
    const category = err.code === Code.NOT_FOUND
      ? ToolErrorCategory.NOT_FOUND
      : err.code === Code.INVALID_ARGUMENT
      ? ToolErrorCategory.INVALID_ARGUMENTS
      : err.code === Code.PERMISSION_DENIED
      ? ToolErrorCategory.PERMISSION_DENIED
      : err.code === Code.CANCELLED
      ? ToolErrorCategory.CANCELLED
      : ToolErrorCategory.EXECUTION_FAILED;
    return new Failure(category, `${what}: ${err.message}`);
  }
  return new Failure(
    ToolErrorCategory.EXECUTION_FAILED,
    `${what}: ${err instanceof Error ? err.message : String(err)}`,
  );
}

function textOf(
  m: { content: { block: { case?: string; value?: unknown } }[] } | undefined,
): string {
  return m?.content.map((b) =>
    b.block.case === "text" ? (b.block.value as { text: string }).text : ""
  ).join("") ?? "";
}

/** Runs one child through RunSession; the promise never rejects. */
async function runChild(
  kernel: KernelClient,
  sessionId: string,
  name: string,
  args: SpawnArgs,
): Promise<ChildOutcome> {
  try {
    const res = await kernel.runSession({
      ...(args.agent ? { agent: args.agent } : { profile: args.profile! }),
      prompt: args.prompt,
      parentSessionId: sessionId,
      // The kernel computes the child's depth; this does not narrow it.
      remainingDepth: NO_NARROWING,
      remainingCostBudgetUsd: args.maxCostUsd ?? 0,
      name,
      worktree: args.worktree,
    });
    return {
      name: res.name || name,
      session_id: res.sessionId,
      status: SessionStatus[res.status].toLowerCase(),
      final_text: textOf(res.finalMessage),
      total_cost_usd: res.totalCostUsd,
      total_input_tokens: Number(res.totalInputTokens),
      total_output_tokens: Number(res.totalOutputTokens),
      ...(res.worktreeBranch
        ? {
          worktree_branch: res.worktreeBranch,
          worktree_path: res.worktreePath,
        }
        : {}),
    };
  } catch (err) {
    const f = classify(err, `sub-agent "${name}" could not run`);
    return {
      name,
      status: "error",
      error: f.message,
      error_category: ToolErrorCategory[f.category].toLowerCase(),
    };
  }
}

function stateOf(c: Child): string {
  return c.outcome ? String(c.outcome.status) : "running";
}

/** The tools' behaviour, over the callback client. */
class Agents {
  readonly #kernel: () => Promise<KernelClient>;
  readonly #children = new ChildTable();
  readonly #mail = new MailboxCounter();

  constructor(kernel: () => Promise<KernelClient>) {
    this.#kernel = kernel;
  }

  async spawn(sessionId: string, args: JsonObject): Promise<JsonObject> {
    const spawn = parseSpawn(args);
    const kind = spawn.agent ?? spawn.profile!;
    const name = spawn.name ??
      this.#children.nameFor(sessionId, kind, spawn.agent !== undefined);
    const held = this.#children.get(sessionId, name);
    if (held && !held.outcome) {
      throw new ArgumentError(
        `a sub-agent named "${name}" is still running: wait for it or choose another name`,
      );
    }
    const kernel = await this.#kernel();
    const done = runChild(kernel, sessionId, name, spawn);
    this.#children.add(sessionId, {
      name,
      kind,
      background: spawn.background,
      worktree: spawn.worktree,
      done,
    });
    if (spawn.background) {
      // The kernel authorizes RunSession on arrival, against this call's
      // grant on the session, which ends when this call returns: a call
      // sent after RunSession on the same connection is handled after it.
      await kernel.getSession({ sessionId });
      return {
        name,
        status: "running",
        note:
          "Running in the background: call wait_subagent before your turn ends.",
      };
    }
    const outcome = await done;
    if (outcome.status === "error") {
      throw new Failure(
        outcome.error_category === "not_found"
          ? ToolErrorCategory.NOT_FOUND
          : outcome.error_category === "invalid_arguments"
          ? ToolErrorCategory.INVALID_ARGUMENTS
          : ToolErrorCategory.EXECUTION_FAILED,
        String(outcome.error),
      );
    }
    return outcome;
  }

  async wait(
    sessionId: string,
    args: JsonObject,
    signal: AbortSignal,
  ): Promise<JsonObject> {
    const { name } = parseFlat(args, { name: "name" });
    let children: Child[];
    if (name !== undefined) {
      const child = this.#children.get(sessionId, String(name));
      if (!child) {
        const known = this.#children.of(sessionId).map((c) => c.name);
        throw new Failure(
          ToolErrorCategory.NOT_FOUND,
          `no sub-agent named "${name}" in this session${
            known.length ? ` (yours: ${known.join(", ")})` : " (none spawned)"
          }`,
        );
      }
      children = [child];
    } else {
      children = this.#children.of(sessionId).filter((c) =>
        c.background && !c.collected
      );
    }
    const aborted = new Promise<never>((_, reject) => {
      const stop = () =>
        reject(
          new Failure(ToolErrorCategory.CANCELLED, "the wait was cancelled"),
        );
      if (signal.aborted) stop();
      signal.addEventListener("abort", stop, { once: true });
    });
    aborted.catch(() => {});
    const outcomes = await Promise.race([
      Promise.all(children.map((c) => c.done)),
      aborted,
    ]);
    for (const c of children) c.collected = true;
    return { agents: outcomes };
  }

  list(sessionId: string, args: JsonObject): JsonObject {
    parseFlat(args, {});
    return {
      agents: this.#children.of(sessionId).map((c) => ({
        name: c.name,
        kind: c.kind,
        state: stateOf(c),
        background: c.background,
        ...(c.outcome?.session_id ? { session_id: c.outcome.session_id } : {}),
        ...(c.outcome?.worktree_branch
          ? { worktree_branch: c.outcome.worktree_branch }
          : c.worktree
          ? { worktree_branch: `agent/${c.name}` }
          : {}),
      })),
    };
  }

  async send(sessionId: string, args: JsonObject): Promise<JsonObject> {
    const { to, text } = parseFlat(args, { to: "string", text: "string" });
    if (to === undefined) throw new ArgumentError('"to" is required');
    if (text === undefined || !String(text).trim()) {
      throw new ArgumentError('"text" is required: the message');
    }
    const kernel = await this.#kernel();
    const res = await kernel.sendMailbox({
      sessionId,
      to: String(to),
      text: String(text),
    });
    if (res.outcome === "queued") this.#mail.delivered(res.recipientSessionId);
    return { to: String(to), outcome: res.outcome };
  }

  async waitMessage(
    sessionId: string,
    args: JsonObject,
    signal: AbortSignal,
  ): Promise<JsonObject> {
    const { timeout_s } = parseFlat(args, { timeout_s: "number" });
    const seconds = Math.min(Number(timeout_s ?? 60), MAX_WAIT_MESSAGE_S);
    const timer = AbortSignal.timeout(seconds * 1000);
    const n = await this.#mail.wait(
      sessionId,
      AbortSignal.any([signal, timer]),
    );
    if (signal.aborted) {
      throw new Failure(ToolErrorCategory.CANCELLED, "the wait was cancelled");
    }
    return n > 0
      ? { messages: n }
      : { messages: 0, timed_out: true, waited_s: seconds };
  }

  async merge(sessionId: string, args: JsonObject): Promise<JsonObject> {
    const { name, merge_commit } = parseFlat(args, {
      name: "name",
      merge_commit: "boolean",
    });
    if (name === undefined) throw new ArgumentError('"name" is required');
    const kernel = await this.#kernel();
    const res = await kernel.mergeWorktree({
      sessionId,
      name: String(name),
      mergeCommit: merge_commit === true,
    });
    return res.merged
      ? {
        merged: true,
        kind: res.kind,
        branch: res.branch,
        commit: res.commit,
        diffstat: res.diffstat,
      }
      : {
        merged: false,
        branch: res.branch,
        conflicts: [...res.conflicts],
        note:
          "Nothing was changed. The branch conflicts with your tree: resolve it (e.g. ask a sub-agent to rebase its work) and merge again.",
      };
  }
}

function configure(config: JsonObject | undefined): void {
  const keys = Object.keys(config ?? {});
  if (keys.length > 0) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `config attribute "${
        keys[0]
      }" is not supported: the agents provider takes no attributes (named agents are agent "NAME" {} blocks of agent.hcl)`,
    );
  }
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: (ctx) => {
      const agents = new Agents(() => ctx.kernel());
      return [
        service(ToolService, {
          getSchema: () => SCHEMA,
          configure: (req) => {
            configure(req.config);
            return {};
          },
          async *invoke(req, { signal }): AsyncGenerator<Event> {
            const call = req.call;
            const name = call?.toolName ?? "";
            try {
              const args = call?.arguments ?? {};
              const sessionId = call?.callContext?.sessionId ?? "";
              if (!sessionId) {
                throw new ArgumentError(
                  "the call has no session (call_context.session_id is empty)",
                );
              }
              switch (name) {
                case "spawn_subagent":
                  yield result(await agents.spawn(sessionId, args));
                  return;
                case "wait_subagent":
                  yield result(await agents.wait(sessionId, args, signal));
                  return;
                case "list_subagents":
                  yield result(agents.list(sessionId, args));
                  return;
                case "send_message":
                  yield result(await agents.send(sessionId, args));
                  return;
                case "wait_message":
                  yield result(
                    await agents.waitMessage(sessionId, args, signal),
                  );
                  return;
                case "merge_worktree":
                  yield result(await agents.merge(sessionId, args));
                  return;
                default:
                  throw new ArgumentError(
                    `unknown tool ${JSON.stringify(name)}: this provider has ${
                      SCHEMA.tools!.map((t) => t.name).join(", ")
                    }`,
                  );
              }
            } catch (err) {
              const f = classify(err, `${name} failed`);
              yield toolError(f.category, f.message);
            }
          },
          preview: (req) => {
            const call = req.call;
            if (call?.toolName !== "merge_worktree") {
              throw new GrpcStatusError(
                Code.UNIMPLEMENTED,
                `${call?.toolName || "this tool"} has no preview`,
              );
            }
            const args = call.arguments ?? {};
            const target = String(args.name ?? "?");
            return {
              preview: {
                root: {
                  node: {
                    case: "text",
                    value: {
                      content:
                        `Merge branch agent/${target} into the working tree (${
                          args.merge_commit === true ? "merge commit" : "squash"
                        }); refused without change if it conflicts.`,
                    },
                  },
                },
              },
            };
          },
          render: () => ({}),
          describe: () => describeResponse(manifest),
        }),
      ];
    },
  });
}
