/**
 * `memory`: the first-party memory provider (plugins.md §6.4), backed by
 * one SQLite file (`node:sqlite`).
 *
 * One process serves three services on its connection:
 *
 * - `MemoryService`: GetCapabilities, Configure, Recall, Record,
 *   UpdateRecord, DeleteRecord, ApproveRecord/RejectRecord (with
 *   `review_writes`), ListRecords, GetRecord, Describe;
 * - `ToolService`: `remember` (resource, low; with a near-duplicate check),
 *   `forget` (resource, moderate) and `search` (data source, read only),
 *   which the kernel offers the model as `<provider>.remember` etc.;
 * - `HookSubscriberService`: `post-model-response` and `session-end`, in
 *   observe mode.
 *
 * Slugs are made from the suggested id or the title and made unique with
 * `-2`, `-3`, …; `[[name]]` links are parsed on every write; `tokens` come
 * from the kernel's CountTokens callback; provenance is written once.
 * Errors are gRPC statuses whose code follows the MemoryErrorCategory
 * table and whose message starts with the category (`not_found: …`).
 * See README.md for the contract with the kernel.
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
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Metadata } from "@grpc/grpc-js";
import { Code, GrpcStatusError } from "../../proto/grpc_adapter.ts";
import {
  Category,
  HookPoint,
} from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import type { ContentBlock } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { MemoryMutationEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { HookSubscriberService } from "../../proto/gen/pluggableharness/hook/v1/service_pb.ts";
import { HookMode } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { MemoryService } from "../../proto/gen/pluggableharness/memory/v1/service_pb.ts";
import {
  type MemoryRecordSchema,
  MemoryScope,
  MemoryType,
  RecordStatus,
} from "../../proto/gen/pluggableharness/memory/v1/types_pb.ts";
import {
  type RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
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
  parseManifest,
  type PluginContext,
  serve,
  service,
  toolError,
} from "../sdk/mod.ts";
import {
  objectSchema as object,
  toolResult as result,
} from "../sdk/tool_kit.ts";
import {
  DEFAULT_TOKEN_BUDGET,
  type FailureCategory,
  Memory,
  MemoryFailure,
  type Origin,
  type Ranked,
  scopeArg,
  typeArg,
} from "./_memory.ts";
import {
  SCOPE_NAMES,
  type ScopeName,
  type StatusName,
  type StoredRecord,
  TYPE_NAMES,
  type TypeName,
} from "./_store.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;
type Tree = MessageInitShape<typeof RenderTreeSchema>;
type RecordInit = MessageInitShape<typeof MemoryRecordSchema>;

const manifest = parseManifest(manifestJson, "memory/plugin.json");

/**
 * Request metadata through which the kernel hands over provenance (the
 * Record/UpdateRecord messages have no field for it) and the session of a
 * `post-model-response` dispatch.
 */
export const METADATA = {
  sessionId: "ph-session-id",
  turnId: "ph-turn-id",
  recordedBy: "ph-recorded-by",
} as const;

/** A gRPC status code. */
type StatusCode = (typeof Code)[keyof typeof Code];

const STATUS_CODE: Record<FailureCategory, StatusCode> = {
  not_found: Code.NOT_FOUND,
  invalid_type: Code.INVALID_ARGUMENT,
  invalid_scope: Code.INVALID_ARGUMENT,
  invalid_request: Code.INVALID_ARGUMENT,
  ratification_unsupported: Code.FAILED_PRECONDITION,
  budget_exceeded: Code.RESOURCE_EXHAUSTED,
  source_unavailable: Code.UNAVAILABLE,
  unknown: Code.INTERNAL,
};

const TOOL_CATEGORY: Record<FailureCategory, ToolErrorCategory> = {
  not_found: ToolErrorCategory.NOT_FOUND,
  invalid_type: ToolErrorCategory.INVALID_ARGUMENTS,
  invalid_scope: ToolErrorCategory.INVALID_ARGUMENTS,
  invalid_request: ToolErrorCategory.INVALID_ARGUMENTS,
  ratification_unsupported: ToolErrorCategory.EXECUTION_FAILED,
  budget_exceeded: ToolErrorCategory.EXECUTION_FAILED,
  source_unavailable: ToolErrorCategory.EXECUTION_FAILED,
  unknown: ToolErrorCategory.UNKNOWN,
};

function failureOf(err: unknown): MemoryFailure {
  if (err instanceof MemoryFailure) return err;
  if (err instanceof GrpcStatusError) {
    if (err.code === Code.CANCELLED) throw err;
    return new MemoryFailure(
      "source_unavailable",
      `A kernel callback failed: ${err.message}`,
    );
  }
  return new MemoryFailure(
    "unknown",
    err instanceof Error ? err.message : String(err),
  );
}

/** Runs an RPC body; failures become statuses `<category>: <message>`. */
async function rpc<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof GrpcStatusError) throw err; // already a status
    const f = failureOf(err);
    throw new GrpcStatusError(
      STATUS_CODE[f.category],
      `${f.category}: ${f.message}`,
    );
  }
}

const typeName = (t: MemoryType): TypeName => {
  const n = TYPE_NAMES[t - 1];
  if (!n) {
    throw new MemoryFailure(
      "invalid_type",
      `type ${
        MemoryType[t] ?? t
      } is not one of USER, FEEDBACK, PROJECT, REFERENCE`,
    );
  }
  return n;
};
const scopeName = (s: MemoryScope): ScopeName => {
  const n = SCOPE_NAMES[s - 1];
  if (!n) {
    throw new MemoryFailure(
      "invalid_scope",
      `scope ${MemoryScope[s] ?? s} is not one of SESSION, PROJECT, GLOBAL`,
    );
  }
  return n;
};
const typeEnum = (t: TypeName) => TYPE_NAMES.indexOf(t) + 1 as MemoryType;
const scopeEnum = (s: ScopeName) => SCOPE_NAMES.indexOf(s) + 1 as MemoryScope;
const statusEnum = (s: StatusName) =>
  s === "pending" ? RecordStatus.PENDING : RecordStatus.CANONICAL;
const statusName = (s: RecordStatus): StatusName => {
  if (s === RecordStatus.CANONICAL) return "canonical";
  if (s === RecordStatus.PENDING) return "pending";
  throw new MemoryFailure(
    "invalid_request",
    `status_filter ${s} is not CANONICAL or PENDING`,
  );
};

function textsOf(content: readonly ContentBlock[], what: string): string[] {
  return content.map((b, i) => {
    if (b.block.case !== "text") {
      throw new MemoryFailure(
        "invalid_request",
        `${what}: content[${i}] is a ${
          b.block.case ?? "empty"
        } block; memory content is text only`,
      );
    }
    return b.block.value.text;
  });
}

function recordMessage(r: StoredRecord, score?: number): RecordInit {
  return {
    id: r.id,
    type: typeEnum(r.type),
    scope: scopeEnum(r.scope),
    title: r.title,
    content: r.content.map((text) => ({
      block: { case: "text" as const, value: { text } },
    })),
    tokens: BigInt(r.tokens),
    status: statusEnum(r.status),
    links: r.links,
    createdAt: timestampFromMs(r.createdAt),
    updatedAt: timestampFromMs(r.updatedAt),
    provenance: {
      sourceSessionId: r.provenance.sourceSessionId,
      ...(r.provenance.sourceTurnId !== undefined
        ? { sourceTurnId: r.provenance.sourceTurnId }
        : {}),
      recordedBy: r.provenance.recordedBy,
    },
    ...(score !== undefined ? { relevanceScore: score } : {}),
  };
}

function header(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === "string" && v !== "" ? v : undefined;
}

function originOf(md: Metadata): Origin {
  const turn = header(md, METADATA.turnId);
  return {
    sourceSessionId: header(md, METADATA.sessionId) ?? "",
    ...(turn ? { sourceTurnId: turn } : {}),
    recordedBy: header(md, METADATA.recordedBy) ?? "kernel",
  };
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

// ------------------------------------------------------------------ tools

const str = (description: string, enumValues: string[] = []): Schema => ({
  type: SchemaType.STRING,
  description,
  enumValues,
});
const num = (description: string): Schema => ({
  type: SchemaType.NUMBER,
  description,
});
const bool = (description: string): Schema => ({
  type: SchemaType.BOOLEAN,
  description,
});
const TYPE_DOC =
  "user (who the user is, their preferences), feedback (corrections and " +
  "guidance on how to work), project (facts about the current work; " +
  "decays fastest) or reference (pointers to where information lives)";
const SCOPE_DOC =
  "session (this session only), project (this project) or global";
const TIMEOUT = { seconds: 15n };

const TOOLS: MessageInitShape<typeof GetSchemaResponseSchema> = {
  tools: [
    {
      name: "remember",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.LOW,
      description:
        "Saves a memory that later sessions recall: a short title and the " +
        "content (self-contained; link other memories with [[their-id]]). " +
        "If a similar memory exists, nothing is saved and the result lists " +
        "it: then call again with update_id to replace it, or with force " +
        "true if yours is really different.",
      inputSchema: object({
        title: str("A short title; the id is made from it."),
        content: str("The memory itself, self-contained."),
        type: str(`What kind of memory: ${TYPE_DOC}.`, [...TYPE_NAMES]),
        scope: str(`Who recalls it: ${SCOPE_DOC}. Default project.`, [
          ...SCOPE_NAMES,
        ]),
        id: str("A suggested id (slug); default: made from the title."),
        update_id: str(
          "Replace the title and content of this existing memory instead of creating one.",
        ),
        force: bool("Create even if a similar memory exists."),
      }, ["title", "content", "type"]),
      outputSchema: object({
        status: str("What happened.", ["created", "updated", "near_duplicate"]),
        message: str("What happened, in words, and what to do next."),
        id: str("The memory's id (created or updated)."),
        record_status: str("canonical, or pending review.", [
          "canonical",
          "pending",
        ]),
        candidates: {
          type: SchemaType.ARRAY,
          description: "Similar existing memories (near_duplicate only).",
          items: object({
            id: str("Its id."),
            title: str("Its title."),
            content: str("Its content."),
            similarity: num("How alike, 0 to 1."),
          }, ["id", "title", "content", "similarity"]),
        },
      }, ["status", "message"]),
      streaming: false,
      concurrency: { safe: false, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: false,
    },
    {
      name: "forget",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.MODERATE,
      description:
        "Deletes a memory by id (find ids with search). Use it for memories " +
        "that are wrong or no longer true.",
      inputSchema: object({ id: str("The memory's id.") }, ["id"]),
      outputSchema: object({
        id: str("The id deleted."),
        title: str("Its title."),
        deleted: bool("True: it existed and is gone."),
      }, ["id", "title", "deleted"]),
      streaming: false,
      concurrency: { safe: true, keyFields: ["id"] },
      defaultTimeout: TIMEOUT,
      idempotent: false,
    },
    {
      name: "search",
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      description:
        "Searches saved memories by words of their title and content, best " +
        "match first. Returns each memory's id, type, scope, status and content.",
      inputSchema: object({
        query: str("Words to look for."),
        type: str(`Only this kind: ${TYPE_DOC}.`, [...TYPE_NAMES]),
        scope: str(`Only this scope: ${SCOPE_DOC}.`, [...SCOPE_NAMES]),
        limit: num("Most results (1-20, default 5)."),
      }, ["query"]),
      outputSchema: object({
        results: {
          type: SchemaType.ARRAY,
          description: "Matches, best first.",
          items: object({
            id: str("The id."),
            title: str("The title."),
            type: str("The type."),
            scope: str("The scope."),
            status: str("canonical or pending."),
            score: num("Relevance, 0 to 1."),
            content: str("The content."),
            links: {
              type: SchemaType.ARRAY,
              description: "[[links]] in it.",
              items: str("A linked id."),
            },
          }, [
            "id",
            "title",
            "type",
            "scope",
            "status",
            "score",
            "content",
            "links",
          ]),
        },
        count: num("Number of results."),
      }, ["results", "count"]),
      streaming: false,
      concurrency: { safe: true, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: true,
    },
  ],
  slashCommands: [],
  configSchema: configSchemaOf(manifest),
  supportedHookPoints: [HookPoint.POST_MODEL_RESPONSE, HookPoint.SESSION_END],
};

/**
 * Draws a `MemoryMutationEvent` this plugin emitted (schema_version "1"):
 * the record's id, type, scope and title, then its content (none for a
 * delete).
 */
function renderMutation(payload: Uint8Array, schemaVersion: string): Tree {
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
  const a = m.attributes;
  const body = m.content.map((b) =>
    b.block.case === "text" ? b.block.value.text : ""
  ).join("\n");
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(
              `Memory "${m.recordId}"${
                a.type ? ` (${a.type}/${a.scope ?? "?"})` : ""
              }${a.title ? `: ${a.title}` : ""}`,
              TextStyle.BOLD,
            ),
            ...(body
              ? [text(body)]
              : [text("(deleted: no content)", TextStyle.DIM)]),
          ],
        },
      },
    },
  };
}

function toolArgs(args: JsonObject, allowed: string[], tool: string): void {
  const extra = Object.keys(args).filter((k) => !allowed.includes(k));
  if (extra.length) {
    throw new MemoryFailure(
      "invalid_request",
      `${tool}: unknown argument "${extra[0]}" (allowed: ${
        allowed.join(", ")
      })`,
    );
  }
}

function strArg(
  args: JsonObject,
  key: string,
  tool: string,
  required: boolean,
): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) {
    if (required) {
      throw new MemoryFailure(
        "invalid_request",
        `${tool}: "${key}" is required`,
      );
    }
    return undefined;
  }
  if (typeof v !== "string" || (required && v.trim() === "")) {
    throw new MemoryFailure(
      "invalid_request",
      `${tool}: "${key}" must be a non-empty string, not ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function toolFailure(f: MemoryFailure): Event {
  return toolError(TOOL_CATEGORY[f.category], f.message, {
    retryable: f.retryable,
  });
}

function searchResult(r: Ranked): JsonObject {
  return {
    id: r.record.id,
    title: r.record.title,
    type: r.record.type,
    scope: r.record.scope,
    status: r.record.status,
    score: Math.round(r.score * 1000) / 1000,
    content: r.record.content.join("\n"),
    links: r.record.links,
  };
}

function text(content: string, style?: TextStyle) {
  return {
    node: {
      case: "text" as const,
      value: { content, ...(style ? { style } : {}) },
    },
  };
}

function previewTree(summary: string, body: string): Tree {
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(summary, TextStyle.BOLD),
            { node: { case: "codeBlock", value: { content: body } } },
          ],
        },
      },
    },
  };
}

/** Builds the three services over one {@linkcode Memory}. */
function services(
  ctx: PluginContext,
): { bindings: ReturnType<typeof service>[]; close: () => void } {
  const memory = new Memory(async (texts) => {
    const kernel = await ctx.kernel();
    const res = await kernel.countTokens({
      content: texts.map((t) => ({
        block: { case: "text" as const, value: { text: t } },
      })),
    });
    return Number(res.count);
  });

  const producer = (category: Category) => ({
    producer: {
      name: manifest.name,
      version: manifest.version,
      source: manifest.source ?? "",
      category,
      protocolVersion: manifest.protocolVersion,
    },
  });

  /** Best effort: the session log records the mutation (tool path). */
  const emit = async (
    sessionId: string,
    kind: EventKind,
    r: StoredRecord,
    signal: AbortSignal,
  ) => {
    if (!sessionId) return;
    try {
      const kernel = await ctx.kernel();
      await kernel.emit({
        sessionId,
        kind,
        schemaVersion: "1",
        payload: toBinary(
          MemoryMutationEventSchema,
          create(MemoryMutationEventSchema, {
            recordId: r.id,
            content: kind === EventKind.MEMORY_DELETE
              ? []
              : r.content.map((t) => ({
                block: { case: "text" as const, value: { text: t } },
              })),
            attributes: {
              type: r.type,
              scope: r.scope,
              title: r.title,
              status: r.status,
            },
          }),
        ),
      }, { signal });
    } catch (err) {
      ctx.log.warn("could not record the memory change in the session", {
        record: r.id,
        message: (err as Error).message,
      });
    }
  };

  const configure = (config: JsonObject | undefined) => {
    let cwd = ".";
    try {
      cwd = Deno.cwd();
    } catch {
      // no read access to the working directory: relative paths stay relative
    }
    memory.configure(config ?? {}, cwd);
  };

  async function invokeTool(
    tool: string,
    args: JsonObject,
    origin: Origin,
    signal: AbortSignal,
  ): Promise<JsonObject> {
    switch (tool) {
      case "remember": {
        toolArgs(args, [
          "title",
          "content",
          "type",
          "scope",
          "id",
          "update_id",
          "force",
        ], tool);
        const force = args.force ?? false;
        if (typeof force !== "boolean") {
          throw new MemoryFailure(
            "invalid_request",
            `remember: "force" must be true or false, not ${
              JSON.stringify(force)
            }`,
          );
        }
        const id = strArg(args, "id", tool, false);
        const updateId = strArg(args, "update_id", tool, false);
        const out = await memory.remember({
          title: strArg(args, "title", tool, true)!,
          content: strArg(args, "content", tool, true)!,
          type: typeArg(args.type),
          scope: scopeArg(args.scope, "project"),
          ...(id !== undefined ? { id } : {}),
          ...(updateId !== undefined ? { updateId } : {}),
          force,
        }, origin);
        if (out.status === "near_duplicate") {
          return {
            status: out.status,
            message: `Not saved: ${
              out.candidates.length === 1
                ? "a similar memory exists"
                : `${out.candidates.length} similar memories exist`
            } (${
              out.candidates.map((c) => c.record.id).join(", ")
            }). If it says the same, do nothing; if yours corrects or extends it, call remember again with update_id set to its id; if yours is really different, call again with force true.`,
            candidates: out.candidates.map((c) => ({
              id: c.record.id,
              title: c.record.title,
              content: c.record.content.join("\n"),
              similarity: Math.round(c.score * 1000) / 1000,
            })),
          };
        }
        await emit(
          origin.sourceSessionId,
          out.status === "created"
            ? EventKind.MEMORY_WRITE
            : EventKind.MEMORY_UPDATE,
          out.record,
          signal,
        );
        return {
          status: out.status,
          message: `${
            out.status === "created" ? "Saved" : "Updated"
          } memory "${out.record.id}"${
            out.record.status === "pending" ? " (pending review)" : ""
          }.`,
          id: out.record.id,
          record_status: out.record.status,
        };
      }
      case "forget": {
        toolArgs(args, ["id"], tool);
        const r = memory.delete(strArg(args, "id", tool, true)!);
        await emit(origin.sourceSessionId, EventKind.MEMORY_DELETE, r, signal);
        return { id: r.id, title: r.title, deleted: true };
      }
      case "search": {
        toolArgs(args, ["query", "type", "scope", "limit"], tool);
        const limit = args.limit ?? 5;
        if (
          typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 ||
          limit > 20
        ) {
          throw new MemoryFailure(
            "invalid_request",
            `search: "limit" must be an integer from 1 to 20, not ${
              JSON.stringify(limit)
            }`,
          );
        }
        const found = memory.search({
          query: strArg(args, "query", tool, true)!,
          types: args.type === undefined ? [] : [typeArg(args.type)],
          scopes: args.scope === undefined ? [] : [scopeArg(args.scope)],
          limit,
          sessionId: origin.sourceSessionId,
        });
        return { results: found.map(searchResult), count: found.length };
      }
      default:
        throw new MemoryFailure(
          "invalid_request",
          `Unknown tool ${
            JSON.stringify(tool)
          }: this provider has remember, forget and search`,
        );
    }
  }

  const bindings = [
    service(MemoryService, {
      getCapabilities: () => ({
        capabilities: {
          defaultTokenBudget: BigInt(DEFAULT_TOKEN_BUDGET),
          supportedTypes: [
            MemoryType.USER,
            MemoryType.FEEDBACK,
            MemoryType.PROJECT,
            MemoryType.REFERENCE,
          ],
          supportedScopes: [
            MemoryScope.SESSION,
            MemoryScope.PROJECT,
            MemoryScope.GLOBAL,
          ],
          ratificationSupported: memory.config?.reviewWrites ?? false,
          slashCommands: [],
          configSchema: configSchemaOf(manifest),
          supportedHookPoints: [
            HookPoint.POST_MODEL_RESPONSE,
            HookPoint.SESSION_END,
          ],
        },
      }),
      configure: (req) =>
        rpc(() => {
          configure(req.config);
          return {};
        }),
      recall: (req) =>
        rpc(() => {
          if (!req.modelTarget) {
            throw new MemoryFailure(
              "invalid_request",
              "Recall: model_target is required",
            );
          }
          if (req.turnId && !ULID.test(req.turnId)) {
            throw new MemoryFailure(
              "invalid_request",
              `Recall: turn_id ${JSON.stringify(req.turnId)} is not a ULID`,
            );
          }
          if (req.tokenBudget < 0n) {
            throw new MemoryFailure(
              "invalid_request",
              `Recall: token_budget ${req.tokenBudget} is negative`,
            );
          }
          const ranked = memory.recall({
            sessionId: req.sessionId,
            tokenBudget: Number(req.tokenBudget),
            filesTouched: req.filesTouched,
            types: req.typeFilter.map(typeName),
            scopes: req.scopeFilter.map(scopeName),
            includePending: req.includePending,
          });
          return {
            records: ranked.map((r) => recordMessage(r.record, r.score)),
          };
        }),
      record: (req, { metadata }) =>
        rpc(async () => {
          const r = await memory.record({
            type: typeName(req.type),
            scope: scopeName(req.scope),
            ...(req.id !== undefined ? { id: req.id } : {}),
            title: req.title,
            content: textsOf(req.content, "Record"),
          }, originOf(metadata));
          return { result: { id: r.id, status: statusEnum(r.status) } };
        }),
      updateRecord: (req) =>
        rpc(async () => {
          const r = await memory.update(req.id, {
            ...(req.title !== undefined ? { title: req.title } : {}),
            content: textsOf(req.content, `UpdateRecord "${req.id}"`),
          });
          return { result: { id: r.id, status: statusEnum(r.status) } };
        }),
      deleteRecord: (req) =>
        rpc(() => {
          memory.delete(req.id);
          return { result: { deleted: true } };
        }),
      approveRecord: (req) =>
        rpc(() => {
          const r = memory.approve(req.id);
          return { result: { id: r.id, status: statusEnum(r.status) } };
        }),
      rejectRecord: (req) =>
        rpc(() => {
          memory.reject(req.id);
          return { result: { deleted: true } };
        }),
      render: (req) => ({
        tree: renderMutation(req.payload, req.schemaVersion),
      }),
      listRecords: (req) =>
        rpc(() => {
          const size = req.pageSize === 0 ? 50 : req.pageSize;
          if (size < 0 || size > 500) {
            throw new MemoryFailure(
              "invalid_request",
              `ListRecords: page_size ${req.pageSize} is not between 1 and 500`,
            );
          }
          const offset = req.pageToken === "" ? 0 : Number(req.pageToken);
          if (!Number.isInteger(offset) || offset < 0) {
            throw new MemoryFailure(
              "invalid_request",
              `ListRecords: page_token ${
                JSON.stringify(req.pageToken)
              } is not one this provider issued`,
            );
          }
          const all = memory.list({
            types: req.typeFilter.map(typeName),
            scopes: req.scopeFilter.map(scopeName),
            statuses: req.statusFilter === undefined
              ? []
              : [statusName(req.statusFilter)],
          });
          const page = all.slice(offset, offset + size);
          return {
            records: page.map((r) => recordMessage(r)),
            nextPageToken: offset + size < all.length
              ? String(offset + size)
              : "",
          };
        }),
      getRecord: (req) =>
        rpc(() => ({ record: recordMessage(memory.get(req.id)) })),
      describe: () => producer(Category.MEMORY),
    }),
    service(ToolService, {
      getSchema: () => TOOLS,
      configure: (req) =>
        rpc(() => {
          configure(req.config);
          return {};
        }),
      async *invoke(req, { signal }): AsyncGenerator<Event> {
        const call = req.call;
        const tool = call?.toolName ?? "";
        try {
          if (!call) {
            throw new MemoryFailure("invalid_request", "The call is missing");
          }
          const origin: Origin = {
            sourceSessionId: call.callContext?.sessionId ?? "",
            ...(call.callContext?.turnId
              ? { sourceTurnId: call.callContext.turnId }
              : {}),
            recordedBy: `tool:${tool}`,
          };
          yield result(
            await invokeTool(tool, call.arguments ?? {}, origin, signal),
          );
        } catch (err) {
          if (err instanceof GrpcStatusError && err.code === Code.CANCELLED) {
            yield {
              event: {
                event: {
                  case: "error",
                  value: {
                    category: ToolErrorCategory.CANCELLED,
                    message: `${tool} was cancelled`,
                    retryable: false,
                  },
                },
              },
            };
            return;
          }
          const f = failureOf(err);
          if (f.category === "unknown" || f.category === "source_unavailable") {
            ctx.log.warn(`${tool} failed`, { message: f.message });
          }
          yield toolFailure(f);
        }
      },
      preview: (req) =>
        rpc(() => {
          const call = req.call;
          const args = call?.arguments ?? {};
          switch (call?.toolName) {
            case "remember": {
              const title = strArg(args, "title", "remember", true)!;
              const content = strArg(args, "content", "remember", true)!;
              const type = typeArg(args.type);
              const scope = scopeArg(args.scope, "project");
              const updateId = strArg(args, "update_id", "remember", false);
              if (updateId !== undefined) {
                const old = memory.get(updateId);
                return {
                  preview: previewTree(
                    `Update memory "${old.id}" (${old.type}/${old.scope}): ${old.title} → ${title}`,
                    content,
                  ),
                };
              }
              return {
                preview: previewTree(
                  `Remember a ${type} memory (scope ${scope}): ${title}`,
                  content,
                ),
              };
            }
            case "forget": {
              const r = memory.get(strArg(args, "id", "forget", true)!);
              return {
                preview: previewTree(
                  `Forget memory "${r.id}" (${r.type}/${r.scope}): ${r.title}`,
                  r.content.join("\n"),
                ),
              };
            }
            default:
              throw new GrpcStatusError(
                Code.UNIMPLEMENTED,
                `${
                  call?.toolName || "this tool"
                } has no preview (only remember and forget do)`,
              );
          }
        }),
      render: (req) => ({
        tree: renderMutation(req.payload, req.schemaVersion),
      }),
      describe: () => producer(Category.MEMORY),
    }),
    service(HookSubscriberService, {
      dispatchHook: (req, { metadata }) =>
        rpc(async () => {
          const payload = req.payload?.payload;
          if (req.mode !== HookMode.OBSERVE) {
            throw new GrpcStatusError(
              Code.FAILED_PRECONDITION,
              `memory subscribes in observe mode only, not ${
                HookMode[req.mode] ?? req.mode
              }`,
            );
          }
          switch (payload?.case) {
            case "postModelResponse": {
              const text = payload.value.message?.content.map((b) =>
                b.block.case === "text" ? b.block.value.text : ""
              ).join("\n") ?? "";
              memory.observeResponse(
                header(metadata, METADATA.sessionId) ?? "",
                text,
              );
              break;
            }
            case "sessionEnd":
              await memory.sessionEnded(
                payload.value.sessionId,
                payload.value.status === SessionStatus.COMPLETED,
              );
              break;
            default:
              throw new GrpcStatusError(
                Code.INVALID_ARGUMENT,
                `memory does not subscribe to ${
                  payload?.case ?? "an empty payload"
                } (only post-model-response and session-end)`,
              );
          }
          return { outcome: { case: "observe" as const, value: {} } };
        }),
    }),
  ];
  return { bindings, close: () => memory.close() };
}

if (import.meta.main) {
  let close: (() => void) | undefined;
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "memory",
    },
    services: (ctx) => {
      const built = services(ctx);
      close = built.close;
      return built.bindings;
    },
    onShutdown: () => close?.(),
  });
}
