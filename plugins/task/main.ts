/**
 * `task`: the session's own todo list (plugins.md §7.2, the reference
 * catalogue's `task` provider).
 *
 * - `task_create` (resource, low): adds a task (`pending` unless told);
 * - `task_update` (resource, low): changes a task's subject, description,
 *   status or position;
 * - `task_list` (data source, read only): the list, optionally by status.
 *
 * The list has no storage of its own: every change is one event on the
 * calling session, written through the kernel callback `Emit` (a
 * `memory_write` for a new task, a `memory_update` for a change; the
 * payload is a `MemoryMutationEvent` holding the task's whole state, see
 * `_tasks.ts`), and the list is rebuilt from the session's events with
 * `ReadEvents`. So it survives a restart of this plugin and a resumed
 * session, and two sessions never see each other's tasks. The kernel grants
 * the plugin its session for the duration of each `Invoke` and `Preview`.
 *
 * `Preview` shows what a create or an update will change (a table of
 * fields, before and after) without writing anything; `Render` draws a
 * stored task event.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import {
  create,
  fromBinary,
  type JsonObject,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { MemoryMutationEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  type RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
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
  counts,
  eventAttributes,
  listText,
  parseCreate,
  parseUpdate,
  planCreate,
  planUpdate,
  sorted,
  type Task,
  TASK_EVENT_SCHEMA,
  TASK_STATUSES,
  TaskArgumentError,
  taskJson,
  type TaskList,
  TaskNotFoundError,
  taskOfEvent,
  type TaskStatus,
} from "./_tasks.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;
type Tree = MessageInitShape<typeof RenderTreeSchema>;

const manifest = parseManifest(manifestJson, "task/plugin.json");

const str = (description: string, enumValues: string[] = []): Schema => ({
  type: SchemaType.STRING,
  description,
  enumValues,
});
const num = (description: string): Schema => ({
  type: SchemaType.NUMBER,
  description,
});

const STATUS_DOC =
  "pending (not started), in_progress (being worked on) or completed";
const TASK = object({
  id: str('The task\'s id in this session\'s list ("1", "2", …).'),
  subject: str("A short imperative title."),
  description: str("Details; may be empty."),
  status: str(STATUS_DOC, [...TASK_STATUSES]),
  order: num("Position in the list (ascending)."),
}, ["id", "subject", "description", "status", "order"]);
const LIST = str(
  "The whole list after the call, one line per task: [ ] pending, [~] in progress, [x] completed.",
);
const TIMEOUT = { seconds: 10n };

const SCHEMA: MessageInitShape<typeof GetSchemaResponseSchema> = {
  tools: [
    {
      name: "task_create",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.LOW,
      description:
        "Adds a task to this session's todo list, to plan and track multi-step " +
        "work. Give a short imperative subject and, if useful, a description. " +
        "New tasks are pending and go to the end of the list unless status or " +
        "order say otherwise. Returns the task (with its id) and the whole list.",
      inputSchema: object({
        subject: str('A short imperative title, e.g. "Write the tests".'),
        description: str("Details: what done means, files involved."),
        status: str(`Initial status: ${STATUS_DOC}. Default pending.`, [
          ...TASK_STATUSES,
        ]),
        order: num("Position in the list (ascending). Default: last."),
      }, ["subject"]),
      outputSchema: object({ task: TASK, list: LIST }, ["task", "list"]),
      streaming: false,
      concurrency: { safe: false, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: false,
    },
    {
      name: "task_update",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.LOW,
      description:
        "Changes a task of this session's todo list: mark it in_progress when " +
        "you start it and completed when it is done, or change its subject, " +
        "description or position. Give the id and only the fields to change. " +
        "Returns the task, the fields that changed and the whole list.",
      inputSchema: object({
        id: str("The task's id, from task_create or task_list."),
        subject: str("A new subject."),
        description: str("A new description."),
        status: str(`A new status: ${STATUS_DOC}.`, [...TASK_STATUSES]),
        order: num("A new position (ascending)."),
      }, ["id"]),
      outputSchema: object({
        task: TASK,
        changed: {
          type: SchemaType.ARRAY,
          description: "The fields whose value changed (empty: none did).",
          items: str("A field name."),
        },
        list: LIST,
      }, ["task", "changed", "list"]),
      streaming: false,
      concurrency: { safe: false, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: true,
    },
    {
      name: "task_list",
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      description:
        "Shows this session's todo list in order, with each task's id, " +
        "subject, description and status, and counts by status. Give status " +
        "to see only the tasks in that status.",
      inputSchema: object({
        status: str(`Only tasks in this status: ${STATUS_DOC}.`, [
          ...TASK_STATUSES,
        ]),
      }, []),
      outputSchema: object({
        tasks: {
          type: SchemaType.ARRAY,
          description: "The tasks in list order.",
          items: TASK,
        },
        counts: object({
          pending: num("Pending tasks."),
          in_progress: num("Tasks in progress."),
          completed: num("Completed tasks."),
        }, ["pending", "in_progress", "completed"]),
        list: LIST,
      }, ["tasks", "counts", "list"]),
      streaming: false,
      concurrency: { safe: true, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: true,
    },
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

/** A gRPC status code. */
type StatusCode = (typeof Code)[keyof typeof Code];

const STATUS_OF: Partial<Record<ToolErrorCategory, StatusCode>> = {
  [ToolErrorCategory.INVALID_ARGUMENTS]: Code.INVALID_ARGUMENT,
  [ToolErrorCategory.NOT_FOUND]: Code.NOT_FOUND,
  [ToolErrorCategory.PERMISSION_DENIED]: Code.PERMISSION_DENIED,
  [ToolErrorCategory.CANCELLED]: Code.CANCELLED,
};

/** Maps any error to a tool failure. */
function classify(err: unknown, what: string): Failure {
  if (err instanceof Failure) return err;
  if (err instanceof TaskArgumentError) {
    return new Failure(ToolErrorCategory.INVALID_ARGUMENTS, err.message);
  }
  if (err instanceof TaskNotFoundError) {
    return new Failure(ToolErrorCategory.NOT_FOUND, err.message);
  }
  if (err instanceof GrpcStatusError) {
    if (err.code === Code.PERMISSION_DENIED) {
      return new Failure(
        ToolErrorCategory.PERMISSION_DENIED,
        `${what}: the kernel refused access to the session (${err.message})`,
      );
    }
    if (err.code === Code.CANCELLED) {
      return new Failure(ToolErrorCategory.CANCELLED, `${what}: cancelled`);
    }
    return new Failure(
      ToolErrorCategory.EXECUTION_FAILED,
      `${what}: the kernel's session store failed (${err.message})`,
    );
  }
  return new Failure(
    ToolErrorCategory.EXECUTION_FAILED,
    `${what}: ${err instanceof Error ? err.message : String(err)}`,
  );
}

/** The cached list of one session and the last sequence folded in. */
interface SessionCache {
  list: TaskList;
  last: bigint;
  /** Serializes calls on this session. */
  queue: Promise<unknown>;
}

/** The task store: caches per session, rebuilt from the session's events. */
class TaskStore {
  #kernel: () => Promise<KernelClient>;
  #name: string;
  #sessions = new Map<string, SessionCache>();

  /**
   * @param kernel The callback client.
   * @param name The producer name the kernel gives this plugin's events
   *   (its local name in agent.hcl).
   */
  constructor(kernel: () => Promise<KernelClient>, name: string) {
    this.#kernel = kernel;
    this.#name = name;
  }

  #cache(sessionId: string): SessionCache {
    let c = this.#sessions.get(sessionId);
    if (!c) {
      c = { list: new Map(), last: 0n, queue: Promise.resolve() };
      this.#sessions.set(sessionId, c);
    }
    return c;
  }

  /** Runs `fn` with the session's list brought up to date, one at a time. */
  with<T>(
    sessionId: string,
    signal: AbortSignal | undefined,
    fn: (list: TaskList, emit: Emitter) => Promise<T>,
  ): Promise<T> {
    if (!sessionId) {
      return Promise.reject(
        new Failure(
          ToolErrorCategory.INVALID_ARGUMENTS,
          "The call has no session (call_context.session_id is empty); the task list belongs to a session",
        ),
      );
    }
    const c = this.#cache(sessionId);
    const run = c.queue.then(async () => {
      const kernel = await this.#kernel();
      await this.#catchUp(kernel, sessionId, c, signal);
      return await fn(c.list, async (kind, task, callId) => {
        const payload = toBinary(
          MemoryMutationEventSchema,
          create(MemoryMutationEventSchema, {
            recordId: task.id,
            content: [{
              block: { case: "text", value: { text: task.description } },
            }],
            attributes: eventAttributes(task, callId),
          }),
        );
        await kernel.emit({ sessionId, kind, schemaVersion: "1", payload }, {
          ...(signal ? { signal } : {}),
        });
        // Folded again (harmlessly) at the next catch-up.
        c.list.set(task.id, task);
      });
    });
    c.queue = run.catch(() => {});
    return run;
  }

  async #catchUp(
    kernel: KernelClient,
    sessionId: string,
    c: SessionCache,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const stream = kernel.readEvents({
      sessionId,
      kinds: [EventKind.MEMORY_WRITE, EventKind.MEMORY_UPDATE],
      fromSequence: c.last + 1n,
    }, signal ? { signal } : {});
    for await (const e of stream) {
      if (e.sequence > c.last) c.last = e.sequence;
      if (
        e.producer?.category !== Category.TOOL ||
        e.producer.name !== this.#name || e.schemaVersion !== "1"
      ) continue;
      let m;
      try {
        m = fromBinary(MemoryMutationEventSchema, e.payload);
      } catch {
        continue; // not ours after all
      }
      const text = m.content.map((b) =>
        b.block.case === "text" ? b.block.value.text : ""
      ).join("");
      const task = taskOfEvent(m.recordId, text, m.attributes);
      if (task) c.list.set(task.id, task);
    }
  }
}

type Emitter = (kind: EventKind, task: Task, callId: string) => Promise<void>;

function failure(f: Failure): Event {
  return toolError(f.category, f.message);
}

function configure(config: JsonObject | undefined): void {
  const keys = Object.keys(config ?? {});
  if (keys.length > 0) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `config attribute "${
        keys[0]
      }" is not supported: the task provider takes no attributes`,
    );
  }
}

function listFilter(args: JsonObject): TaskStatus | undefined {
  const extra = Object.keys(args).filter((k) => k !== "status");
  if (extra.length) {
    throw new TaskArgumentError(
      `unknown argument "${extra[0]}" (allowed: status)`,
    );
  }
  const s = args.status;
  if (s === undefined || s === null) return undefined;
  if (!TASK_STATUSES.includes(s as TaskStatus)) {
    throw new TaskArgumentError(
      `"status" must be one of ${TASK_STATUSES.join(", ")}, not ${
        JSON.stringify(s)
      }`,
    );
  }
  return s as TaskStatus;
}

function text(content: string, style?: TextStyle) {
  return {
    node: {
      case: "text" as const,
      value: { content, ...(style ? { style } : {}) },
    },
  };
}

function changeTree(
  summary: string,
  rows: [string, string, string][],
): Tree {
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(summary, TextStyle.BOLD),
            {
              node: {
                case: "table",
                value: {
                  headers: ["field", "before", "after"],
                  rows: rows.map((cells) => ({ cells })),
                },
              },
            },
          ],
        },
      },
    },
  };
}

/** The preview of a create or an update against the current list. */
function previewOf(list: TaskList, tool: string, args: JsonObject): Tree {
  if (tool === "task_create") {
    // The id and default position are assigned when the call runs: several
    // creates planned in one turn all see the list as it is now.
    const parsed = parseCreate(args);
    const t = planCreate(list, parsed);
    return changeTree(`Create task: ${t.subject}`, [
      ["subject", "", t.subject],
      ["description", "", t.description],
      ["status", "", t.status],
      ["order", "", parsed.order !== undefined ? String(t.order) : "last"],
    ]);
  }
  const plan = planUpdate(list, parseUpdate(args));
  const summary = plan.changed.length === 0
    ? `Update task ${plan.before.id}: no changes`
    : `Update task ${plan.before.id} (${plan.before.subject}): ${
      plan.changed.join(", ")
    }`;
  return changeTree(
    summary,
    plan.changed.map((k) => [k, String(plan.before[k]), String(plan.after[k])]),
  );
}

/** Draws a stored task event (schema_version "1"). */
function renderEvent(payload: Uint8Array, schemaVersion: string): Tree {
  if (schemaVersion !== "1" && schemaVersion !== "v1") {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `schema_version ${
        JSON.stringify(schemaVersion)
      } is not one this provider emitted (it emits "1")`,
    );
  }
  let m;
  try {
    m = fromBinary(MemoryMutationEventSchema, payload);
  } catch (err) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `the payload is not a MemoryMutationEvent: ${(err as Error).message}`,
    );
  }
  const description = m.content.map((b) =>
    b.block.case === "text" ? b.block.value.text : ""
  ).join("");
  const task = taskOfEvent(m.recordId, description, m.attributes);
  if (!task) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `the payload is not a task event (attribute schema is not ${TASK_EVENT_SCHEMA})`,
    );
  }
  const mark = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(
              `${mark[task.status]} ${task.id}. ${task.subject}`,
              task.status === "completed" ? TextStyle.SUCCESS : TextStyle.BOLD,
            ),
            ...(task.description
              ? [text(task.description, TextStyle.DIM)]
              : []),
          ],
        },
      },
    },
  };
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: (ctx) => {
      const store = new TaskStore(() => ctx.kernel(), ctx.name);
      return [
        service(ToolService, {
          getSchema: () => SCHEMA,
          configure: (req) => {
            configure(req.config);
            return {};
          },
          async *invoke(req, { signal }): AsyncGenerator<Event> {
            const call = req.call;
            const tool = call?.toolName ?? "";
            try {
              if (!call) {
                throw new TaskArgumentError("The call is missing");
              }
              const args = call.arguments ?? {};
              const sessionId = call.callContext?.sessionId ?? "";
              switch (tool) {
                case "task_create": {
                  const parsed = parseCreate(args);
                  yield result(
                    await store.with(sessionId, signal, async (list, emit) => {
                      const t = planCreate(list, parsed);
                      await emit(EventKind.MEMORY_WRITE, t, call.id);
                      return { task: taskJson(t), list: listText(list) };
                    }),
                  );
                  return;
                }
                case "task_update": {
                  const parsed = parseUpdate(args);
                  yield result(
                    await store.with(sessionId, signal, async (list, emit) => {
                      const plan = planUpdate(list, parsed);
                      if (plan.changed.length > 0) {
                        await emit(
                          EventKind.MEMORY_UPDATE,
                          plan.after,
                          call.id,
                        );
                      }
                      return {
                        task: taskJson(plan.after),
                        changed: plan.changed,
                        list: listText(list),
                      };
                    }),
                  );
                  return;
                }
                case "task_list": {
                  const only = listFilter(args);
                  yield result(
                    await store.with(sessionId, signal, (list) => {
                      const tasks = sorted(list).filter((t) =>
                        !only || t.status === only
                      );
                      return Promise.resolve({
                        tasks: tasks.map(taskJson),
                        counts: counts(list),
                        list: listText(list),
                      });
                    }),
                  );
                  return;
                }
                default:
                  throw new TaskArgumentError(
                    `Unknown tool ${
                      JSON.stringify(tool)
                    }: this provider has task_create, task_update and task_list`,
                  );
              }
            } catch (err) {
              const f = classify(err, `${tool} failed`);
              if (f.category === ToolErrorCategory.EXECUTION_FAILED) {
                ctx.log.warn(`${tool} failed`, { message: f.message });
              }
              yield failure(f);
            }
          },
          preview: async (req, { signal }) => {
            const call = req.call;
            const tool = call?.toolName ?? "";
            if (tool !== "task_create" && tool !== "task_update") {
              throw new GrpcStatusError(
                Code.UNIMPLEMENTED,
                `${
                  tool || "this tool"
                } has no preview (only task_create and task_update do)`,
              );
            }
            try {
              const args = call?.arguments ?? {};
              const preview = await store.with(
                call?.callContext?.sessionId ?? "",
                signal,
                (list) => Promise.resolve(previewOf(list, tool, args)),
              );
              return { preview };
            } catch (err) {
              const f = classify(err, `Cannot preview ${tool}`);
              throw new GrpcStatusError(
                STATUS_OF[f.category] ?? Code.INTERNAL,
                f.message,
              );
            }
          },
          render: (req) => ({
            tree: renderEvent(req.payload, req.schemaVersion),
          }),
          describe: () => describeResponse(manifest),
        }),
      ];
    },
  });
}
