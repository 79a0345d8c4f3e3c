/**
 * The task list of one session, as pure data: argument checks, the change a
 * call makes, and the fold of persisted change events back into the list.
 *
 * A change is persisted as one `memory_write` (created) or `memory_update`
 * (updated) event whose `pluggableharness.event.v1.MemoryMutationEvent`
 * carries the task's **whole** state after the change: `record_id` is the
 * task id, `content` one text block with the description, and
 * `attributes` hold `schema` ({@linkcode TASK_EVENT_SCHEMA}), `subject`,
 * `status`, `order` and the `call_id` that made the change. Folding is
 * therefore "the last event per id wins", in sequence order.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

/** A task's status. */
export type TaskStatus = "pending" | "in_progress" | "completed";

/** Every status, in workflow order. */
export const TASK_STATUSES: readonly TaskStatus[] = [
  "pending",
  "in_progress",
  "completed",
];

/** The value of the `schema` attribute on every task event. */
export const TASK_EVENT_SCHEMA = "task/1";

/** Longest subject, in characters. */
export const MAX_SUBJECT = 200;
/** Longest description, in characters. */
export const MAX_DESCRIPTION = 4000;
/** Most tasks in one session's list. */
export const MAX_TASKS = 500;

/** One task. */
export interface Task {
  /** `1`, `2`, … in creation order within the session. */
  id: string;
  /** A short imperative title. */
  subject: string;
  /** Details (may be empty). */
  description: string;
  /** Where it stands. */
  status: TaskStatus;
  /** Position in the list (ascending); ties break by id. */
  order: number;
}

/** Bad arguments: one message naming every problem. */
export class TaskArgumentError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong, naming the field and value.
   */
  constructor(message: string) {
    super(message);
    this.name = "TaskArgumentError";
  }
}

/** A task id that is not in the list. */
export class TaskNotFoundError extends Error {
  /**
   * Creates the error.
   *
   * @param id The id asked for.
   * @param known The ids in the list.
   */
  constructor(id: string, known: readonly string[]) {
    super(
      `There is no task ${JSON.stringify(id)} in this session's list${
        known.length ? ` (its ids are ${known.join(", ")})` : " (it is empty)"
      }`,
    );
    this.name = "TaskNotFoundError";
  }
}

function only(args: JsonObject, allowed: readonly string[]): string[] {
  return Object.keys(args).filter((k) => !allowed.includes(k)).map((k) =>
    `unknown argument "${k}" (allowed: ${allowed.join(", ")})`
  );
}

function text(
  args: JsonObject,
  key: string,
  max: number,
  problems: string[],
  required: boolean,
): string | undefined {
  const v: JsonValue | undefined = args[key];
  if (v === undefined || v === null) {
    if (required) problems.push(`"${key}" is required`);
    return undefined;
  }
  if (typeof v !== "string") {
    problems.push(`"${key}" must be a string, not ${JSON.stringify(v)}`);
    return undefined;
  }
  const t = v.trim();
  if (required && t === "") problems.push(`"${key}" must not be empty`);
  if (t.length > max) {
    problems.push(`"${key}" has ${t.length} characters, more than ${max}`);
  }
  return t;
}

function status(
  args: JsonObject,
  problems: string[],
): TaskStatus | undefined {
  const v = args.status;
  if (v === undefined || v === null) return undefined;
  if (!TASK_STATUSES.includes(v as TaskStatus)) {
    problems.push(
      `"status" must be one of ${TASK_STATUSES.join(", ")}, not ${
        JSON.stringify(v)
      }`,
    );
    return undefined;
  }
  return v as TaskStatus;
}

function order(args: JsonObject, problems: string[]): number | undefined {
  const v = args.order;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) {
    problems.push(`"order" must be a finite number, not ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

function check(problems: string[]): void {
  if (problems.length) throw new TaskArgumentError(problems.join("; "));
}

/** The arguments of `task_create`, checked. */
export interface CreateArgs {
  /** The subject. */
  subject: string;
  /** The description ("" when absent). */
  description: string;
  /** The initial status (default pending). */
  status: TaskStatus;
  /** The position, when given. */
  order?: number;
}

/**
 * Checks `task_create` arguments.
 *
 * @param args The call's arguments.
 * @returns The checked arguments.
 * @throws {TaskArgumentError} Naming every problem.
 */
export function parseCreate(args: JsonObject): CreateArgs {
  const problems = only(args, ["subject", "description", "status", "order"]);
  const subject = text(args, "subject", MAX_SUBJECT, problems, true);
  const description = text(
    args,
    "description",
    MAX_DESCRIPTION,
    problems,
    false,
  );
  const s = status(args, problems);
  const o = order(args, problems);
  check(problems);
  return {
    subject: subject!,
    description: description ?? "",
    status: s ?? "pending",
    ...(o !== undefined ? { order: o } : {}),
  };
}

/** The arguments of `task_update`, checked. */
export interface UpdateArgs {
  /** The task. */
  id: string;
  /** A new subject. */
  subject?: string;
  /** A new description. */
  description?: string;
  /** A new status. */
  status?: TaskStatus;
  /** A new position. */
  order?: number;
}

/**
 * Checks `task_update` arguments: an id and at least one field to change.
 *
 * @param args The call's arguments.
 * @returns The checked arguments.
 * @throws {TaskArgumentError} Naming every problem.
 */
export function parseUpdate(args: JsonObject): UpdateArgs {
  const problems = only(args, [
    "id",
    "subject",
    "description",
    "status",
    "order",
  ]);
  let id: string | undefined;
  const rawId = args.id;
  if (typeof rawId === "number" && Number.isInteger(rawId)) id = String(rawId);
  else if (typeof rawId === "string" && rawId.trim() !== "") id = rawId.trim();
  else {
    problems.push(
      rawId === undefined
        ? `"id" is required`
        : `"id" must be a task id such as "1", not ${JSON.stringify(rawId)}`,
    );
  }
  const subject = text(args, "subject", MAX_SUBJECT, problems, false);
  if (subject === "") problems.push(`"subject" must not be empty`);
  const description = text(
    args,
    "description",
    MAX_DESCRIPTION,
    problems,
    false,
  );
  const s = status(args, problems);
  const o = order(args, problems);
  if (
    problems.length === 0 && subject === undefined &&
    description === undefined && s === undefined && o === undefined
  ) {
    problems.push(
      "nothing to change: give at least one of subject, description, status, order",
    );
  }
  check(problems);
  return {
    id: id!,
    ...(subject !== undefined ? { subject } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(s !== undefined ? { status: s } : {}),
    ...(o !== undefined ? { order: o } : {}),
  };
}

/** The list of one session, keyed by id. */
export type TaskList = Map<string, Task>;

/**
 * The tasks in list order (by `order`, then by numeric id).
 *
 * @param list The list.
 * @returns The tasks, sorted.
 */
export function sorted(list: TaskList): Task[] {
  return [...list.values()].sort((a, b) =>
    a.order - b.order || Number(a.id) - Number(b.id) ||
    a.id.localeCompare(b.id)
  );
}

/**
 * The task `task_create` would add.
 *
 * @param list The current list.
 * @param args Checked arguments.
 * @returns The new task (the list is not changed).
 * @throws {TaskArgumentError} When the list is full.
 */
export function planCreate(list: TaskList, args: CreateArgs): Task {
  if (list.size >= MAX_TASKS) {
    throw new TaskArgumentError(
      `The list already has ${MAX_TASKS} tasks, the most a session may have; complete or reuse existing ones`,
    );
  }
  let next = 0;
  let last = 0;
  for (const t of list.values()) {
    next = Math.max(next, Number(t.id) || 0);
    last = Math.max(last, t.order);
  }
  const id = String(next + 1);
  return {
    id,
    subject: args.subject,
    description: args.description,
    status: args.status,
    order: args.order ?? (list.size ? last + 1 : 1),
  };
}

/** What `task_update` would do. */
export interface UpdatePlan {
  /** The task before. */
  before: Task;
  /** The task after. */
  after: Task;
  /** The fields whose value changes. */
  changed: (keyof Task)[];
}

/**
 * The change `task_update` would make.
 *
 * @param list The current list.
 * @param args Checked arguments.
 * @returns Before, after and the changed fields (the list is not changed).
 * @throws {TaskNotFoundError} For an unknown id.
 */
export function planUpdate(list: TaskList, args: UpdateArgs): UpdatePlan {
  const before = list.get(args.id);
  if (!before) {
    throw new TaskNotFoundError(
      args.id,
      sorted(list).map((t) => t.id),
    );
  }
  const after: Task = {
    ...before,
    ...(args.subject !== undefined ? { subject: args.subject } : {}),
    ...(args.description !== undefined
      ? { description: args.description }
      : {}),
    ...(args.status !== undefined ? { status: args.status } : {}),
    ...(args.order !== undefined ? { order: args.order } : {}),
  };
  const changed = (["subject", "description", "status", "order"] as const)
    .filter((k) => before[k] !== after[k]);
  return { before, after, changed };
}

/**
 * A task as a tool result object.
 *
 * @param t The task.
 * @returns Its JSON form.
 */
export function taskJson(t: Task): JsonObject {
  return {
    id: t.id,
    subject: t.subject,
    description: t.description,
    status: t.status,
    order: t.order,
  };
}

/** Counts by status. */
export function counts(list: TaskList): Record<TaskStatus, number> {
  const c = { pending: 0, in_progress: 0, completed: 0 };
  for (const t of list.values()) c[t.status]++;
  return c;
}

/**
 * The list as text for the model: one line per task,
 * `[x] 2. Subject` (`[ ]` pending, `[~]` in progress, `[x]` completed).
 *
 * @param list The list.
 * @returns The lines, or a sentence saying the list is empty.
 */
export function listText(list: TaskList): string {
  if (list.size === 0) return "The task list is empty.";
  const mark = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };
  return sorted(list).map((t) => `${mark[t.status]} ${t.id}. ${t.subject}`)
    .join("\n");
}

/** The attributes of a task event. */
export function eventAttributes(
  t: Task,
  callId: string,
): Record<string, string> {
  return {
    schema: TASK_EVENT_SCHEMA,
    subject: t.subject,
    status: t.status,
    order: String(t.order),
    call_id: callId,
  };
}

/**
 * The task an event describes, or `undefined` for an event that is not a
 * well-formed task event (another schema, a bad status).
 *
 * @param recordId The event's `record_id`.
 * @param description The text of its content.
 * @param attributes Its attributes.
 * @returns The task.
 */
export function taskOfEvent(
  recordId: string,
  description: string,
  attributes: Readonly<Record<string, string>>,
): Task | undefined {
  if (attributes.schema !== TASK_EVENT_SCHEMA || !recordId) return undefined;
  const s = attributes.status as TaskStatus;
  const o = Number(attributes.order);
  if (!TASK_STATUSES.includes(s) || !Number.isFinite(o)) return undefined;
  return {
    id: recordId,
    subject: attributes.subject ?? "",
    description,
    status: s,
    order: o,
  };
}
