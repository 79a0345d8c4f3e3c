/**
 * `filesystem`: the reference tool provider for files (plugins.md §7.2).
 *
 * - `read_file` (data source, read only): numbered lines (`cat -n`
 *   layout) from `offset` (1-based) for `limit` lines, at most 2000 lines
 *   and 256 KiB, with a truncation marker saying how to read on;
 * - `write_file` (resource, moderate): creates or overwrites a file;
 * - `edit_file` (resource, moderate): replaces `old_str` by `new_str`,
 *   which must occur exactly once unless `replace_all` is set;
 * - `multi_edit` (resource, moderate): changes several files (edits or
 *   whole contents) all or nothing; its Preview shows one diff section per
 *   file, and its Invoke refuses if a file changed since that preview.
 *
 * Writes are atomic (a temporary file in the same directory, synced, then
 * renamed over the target). `Preview` shows the unified diff a write or an
 * edit would make, without touching anything.
 *
 * Every path is confined to the `roots` of the provider block: one that
 * leaves them through `..` or a symbolic link is refused with
 * PERMISSION_DENIED. The manifest asks for read and write access to `.`
 * (the kernel's working directory), so Deno's sandbox backs the plugin's
 * own checks; the operator grants it with `allow_read = ["."]` and
 * `allow_write = ["."]` in the provider block. See README.md.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  DiffLineOp,
  type RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
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
  parseManifest,
  serve,
  service,
} from "../sdk/mod.ts";
import {
  objectSchema as object,
  toolResult as result,
} from "../sdk/tool_kit.ts";
import { unifiedHunks } from "./_diff.ts";
import {
  commitAll,
  fingerprintOf,
  type MultiFilePlan,
  multiTargets,
  PathLocks,
  planMultiEdit,
} from "./_multi.ts";
import {
  type CallInput,
  checkArguments,
  classify,
  commit,
  countLines,
  failureEvent,
  type FailureKind,
  type FilePlan,
  planEdit,
  planWrite,
  readFile,
  target,
  ToolFailure,
} from "./_tools.ts";
import { parseRootsConfig, RootsConfigError } from "../sdk/roots.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;
type Tree = MessageInitShape<typeof RenderTreeSchema>;

const manifest = parseManifest(manifestJson, "filesystem/plugin.json");

const STATUS: Record<FailureKind, Code> = {
  invalid_arguments: Code.INVALID_ARGUMENT,
  not_found: Code.NOT_FOUND,
  permission_denied: Code.PERMISSION_DENIED,
  execution_failed: Code.INTERNAL,
  concurrency_conflict: Code.ABORTED,
  cancelled: Code.CANCELLED,
};

function str(description: string): Schema {
  return { type: SchemaType.STRING, description };
}

function num(description: string): Schema {
  return { type: SchemaType.NUMBER, description };
}

function bool(description: string): Schema {
  return { type: SchemaType.BOOLEAN, description };
}

const PATH = str(
  "The file's path: absolute, or relative to the working directory.",
);
const TIMEOUT = { seconds: 30n };

/** The configured roots; undefined until Configure. */
let roots: string[] | undefined;

const SCHEMA: MessageInitShape<typeof GetSchemaResponseSchema> = {
  tools: [
    {
      name: "read_file",
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      description:
        "Reads a UTF-8 text file and returns its lines numbered like `cat -n` " +
        "(line number, a tab, the line). Reads at most 2000 lines and 256 KiB " +
        "at a time; use offset and limit to read a range, and follow the " +
        "truncation marker to read on.",
      inputSchema: object({
        path: PATH,
        offset: num("First line to read, 1-based. Default 1."),
        limit: num("Lines to read (at most 2000). Default 2000."),
      }, ["path"]),
      outputSchema: object({
        path: str("The absolute path read."),
        content: str("Numbered lines, then a truncation marker if cut."),
        start_line: num("First line shown (1-based)."),
        end_line: num("Last line shown (0 when none)."),
        total_lines: num("Lines in the file."),
        truncated: bool("Whether lines or parts of lines were not shown."),
      }, [
        "path",
        "content",
        "start_line",
        "end_line",
        "total_lines",
        "truncated",
      ]),
      streaming: false,
      concurrency: { safe: true, keyFields: ["path"] },
      defaultTimeout: TIMEOUT,
      idempotent: true,
    },
    {
      name: "write_file",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.MODERATE,
      description:
        "Creates a text file, or overwrites it, with the given content " +
        "(missing parent directories are created). The write is atomic. " +
        "To change part of an existing file, prefer edit_file.",
      inputSchema: object({
        path: PATH,
        content: str("The file's complete new content."),
      }, ["path", "content"]),
      outputSchema: object({
        path: str("The absolute path written."),
        created: bool("True if the file did not exist before."),
        bytes_written: num("Bytes written."),
        lines: num("Lines in the new content."),
      }, ["path", "created", "bytes_written", "lines"]),
      streaming: false,
      concurrency: { safe: true, keyFields: ["path"] },
      defaultTimeout: TIMEOUT,
      idempotent: true,
    },
    {
      name: "edit_file",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.MODERATE,
      description:
        "Replaces an exact string in a text file. old_str must match the " +
        "file exactly (whitespace and line endings included) and occur " +
        "exactly once, unless replace_all is true. Read the file first; " +
        "include enough surrounding lines to make old_str unique.",
      inputSchema: object({
        path: PATH,
        old_str: str("The exact text to replace."),
        new_str: str("The replacement text."),
        replace_all: bool(
          "Replace every occurrence instead of requiring exactly one.",
        ),
      }, ["path", "old_str", "new_str"]),
      outputSchema: object({
        path: str("The absolute path edited."),
        replacements: num("Occurrences replaced."),
        bytes_written: num("Bytes written."),
      }, ["path", "replacements", "bytes_written"]),
      streaming: false,
      concurrency: { safe: true, keyFields: ["path"] },
      defaultTimeout: TIMEOUT,
      idempotent: false,
    },
    {
      name: "multi_edit",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.MODERATE,
      description:
        "Changes several text files at once, all or nothing. Each entry of " +
        "files has a path and either edits (exact old_str → new_str " +
        "replacements applied in order, each old_str occurring exactly once " +
        "unless replace_all) or content (the file's complete new text, " +
        "creating it if missing). If any file cannot be changed, none is.",
      inputSchema: object({
        files: {
          type: SchemaType.ARRAY,
          description: "The files to change (at most 100), each once.",
          items: object({
            path: PATH,
            edits: {
              type: SchemaType.ARRAY,
              description:
                "Replacements applied in order (give edits or content).",
              items: object({
                old_str: str("The exact text to replace."),
                new_str: str("The replacement text."),
                replace_all: bool(
                  "Replace every occurrence instead of requiring exactly one.",
                ),
              }, ["old_str", "new_str"]),
            },
            content: str(
              "The file's complete new content (give content or edits).",
            ),
          }, ["path"]),
        },
      }, ["files"]),
      outputSchema: object({
        paths: {
          type: SchemaType.ARRAY,
          description: "The absolute paths written, in argument order.",
          items: str("An absolute path."),
        },
        files: num("Files written."),
        created: num("Files that did not exist before."),
        replacements: num("Replacements made over all edited files."),
        bytes_written: num("Bytes written over all files."),
      }, ["paths", "files", "created", "replacements", "bytes_written"]),
      streaming: false,
      // Serialized with other multi_edit calls by the kernel (provider-wide
      // lock); against single-file writes the plugin's own per-path locks
      // keep every file consistent.
      concurrency: { safe: false, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: false,
    },
  ],
  configSchema: configSchemaOf(manifest),
  supportedHookPoints: [],
};

async function configure(config: JsonObject | undefined): Promise<void> {
  try {
    roots = await parseRootsConfig(
      config,
      "filesystem",
      "the directories the tools may touch",
      "allow_read and allow_write",
    );
  } catch (err) {
    if (err instanceof RootsConfigError) {
      throw new GrpcStatusError(Code.INVALID_ARGUMENT, err.message);
    }
    throw err;
  }
}

function callInput(
  call: { arguments?: JsonObject; callContext?: { workingDirectory: string } },
  signal?: AbortSignal,
): CallInput {
  if (!roots) {
    throw new ToolFailure(
      "execution_failed",
      "The filesystem provider is not configured: Configure must set roots first",
    );
  }
  return {
    roots,
    args: call.arguments ?? {},
    workingDirectory: call.callContext?.workingDirectory ?? "",
    ...(signal ? { signal } : {}),
  };
}

type Node = NonNullable<Tree["root"]>;

const OP = {
  context: DiffLineOp.CONTEXT,
  add: DiffLineOp.ADD,
  remove: DiffLineOp.REMOVE,
} as const;

/** The unified diff of one file and its `+a −r` counts. */
function diffOf(
  oldText: string,
  newText: string,
): { node: Node; added: number; removed: number; hunks: number } {
  const hunks = unifiedHunks(oldText, newText);
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.op === "add") added++;
      else if (l.op === "remove") removed++;
    }
  }
  return {
    added,
    removed,
    hunks: hunks.length,
    node: {
      node: {
        case: "diff",
        value: {
          hunks: hunks.map((h) => ({
            oldStart: h.oldStart,
            oldLines: h.oldLines,
            newStart: h.newStart,
            newLines: h.newLines,
            lines: h.lines.map((l) => ({ op: OP[l.op], text: l.text })),
          })),
        },
      },
    },
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The one-line summary of a change to one file. */
function summaryOf(
  mode: "edit" | "write",
  plan: {
    target: { absolute: string };
    oldText: string | undefined;
    oldIsBinary: boolean;
    newText: string;
    replacements: number;
  },
  diff: { added: number; removed: number; hunks: number },
): string {
  const where = plan.target.absolute;
  const counts = `+${diff.added} −${diff.removed}`;
  if (mode === "edit") {
    return `Edit ${where}: ${
      plural(plan.replacements, "replacement")
    } (${counts})`;
  }
  if (plan.oldIsBinary) {
    return `Overwrite binary file ${where} with ${
      countLines(plan.newText)
    } lines of text`;
  }
  if (plan.oldText === undefined) {
    return `Create ${where} (${plural(countLines(plan.newText), "line")})`;
  }
  if (diff.hunks === 0) return `Overwrite ${where}: no changes`;
  return `Overwrite ${where} (${counts})`;
}

function bold(content: string): Node {
  return { node: { case: "text", value: { content, style: TextStyle.BOLD } } };
}

function previewTree(tool: string, plan: FilePlan): Tree {
  const diff = diffOf(plan.oldText ?? "", plan.newText);
  const summary = summaryOf(
    tool === "edit_file" ? "edit" : "write",
    plan,
    diff,
  );
  return {
    root: {
      node: { case: "group", value: { children: [bold(summary), diff.node] } },
    },
  };
}

/**
 * The preview of a `multi_edit`: a bold summary of the whole change, then
 * one section per file (a collapsible node titled with that file's
 * summary, holding its diff), in argument order.
 */
function multiPreviewTree(plans: readonly MultiFilePlan[]): Tree {
  let added = 0;
  let removed = 0;
  const sections: Node[] = plans.map((p) => {
    const diff = diffOf(p.oldText ?? "", p.newText);
    added += diff.added;
    removed += diff.removed;
    return {
      node: {
        case: "collapsible",
        value: {
          summary: summaryOf(p.mode, p, diff),
          children: [diff.node],
          collapsedByDefault: false,
        },
      },
    };
  });
  const created = plans.filter((p) => p.oldBytes === undefined).length;
  const summary = `Change ${plural(plans.length, "file")} atomically${
    created > 0 ? ` (${created} new)` : ""
  } (+${added} −${removed})`;
  return {
    root: {
      node: {
        case: "group",
        value: { children: [bold(summary), ...sections] },
      },
    },
  };
}

/** Per-path locks for every write this plugin makes. */
const locks = new PathLocks();

/**
 * What each `multi_edit` Preview saw, by call, so that Invoke can refuse to
 * apply a change to files that changed after the operator saw the diff.
 * Bounded: the oldest entries go first.
 */
const previewed = new Map<string, Map<string, string>>();
const PREVIEWED_MAX = 256;

function callKey(call: {
  id: string;
  callContext?: { sessionId: string; turnId: string };
}): string {
  return `${call.callContext?.sessionId ?? ""}\u0000${
    call.callContext?.turnId ?? ""
  }\u0000${call.id}`;
}

async function remember(
  key: string,
  plans: readonly MultiFilePlan[],
): Promise<void> {
  const seen = new Map<string, string>();
  for (const p of plans) {
    seen.set(p.target.real, await fingerprintOf(p.oldBytes));
  }
  previewed.delete(key);
  previewed.set(key, seen);
  while (previewed.size > PREVIEWED_MAX) {
    previewed.delete(previewed.keys().next().value!);
  }
}

async function checkPreviewed(
  key: string,
  plans: readonly MultiFilePlan[],
): Promise<void> {
  const seen = previewed.get(key);
  if (!seen) return;
  previewed.delete(key);
  for (const p of plans) {
    const before = seen.get(p.target.real);
    if (before !== undefined && before !== await fingerprintOf(p.oldBytes)) {
      throw new ToolFailure(
        "concurrency_conflict",
        `"${p.target.absolute}" changed after the preview was shown; nothing was changed (read the files again and retry)`,
      );
    }
  }
}

async function multiEdit(
  call: { id: string; callContext?: { sessionId: string; turnId: string } },
  input: CallInput,
  signal?: AbortSignal,
): Promise<JsonObject> {
  const targets = await multiTargets(input);
  return await locks.run(targets.map((t) => t.real), async () => {
    const plans = await planMultiEdit(input);
    await checkPreviewed(callKey(call), plans);
    const written = await commitAll(plans, signal);
    return {
      paths: written.map((w) => w.path),
      files: written.length,
      created: written.filter((w) => w.created).length,
      replacements: plans
        .filter((p) => p.mode === "edit")
        .reduce((n, p) => n + p.replacements, 0),
      bytes_written: written.reduce((n, w) => n + w.bytes, 0),
    };
  });
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: (ctx) => [
      service(ToolService, {
        getSchema: () => SCHEMA,
        configure: async (req) => {
          await configure(req.config);
          return {};
        },
        async *invoke(req, { signal }): AsyncGenerator<Event> {
          const call = req.call;
          const tool = call?.toolName ?? "";
          try {
            if (!call) {
              throw new ToolFailure("invalid_arguments", "The call is missing");
            }
            const input = callInput(call, signal);
            switch (tool) {
              case "read_file":
                yield result(await readFile(input));
                return;
              case "write_file":
              case "edit_file": {
                checkArguments(tool, input.args);
                let real: string;
                try {
                  real = (await target(input)).real;
                } catch (err) {
                  throw classify(
                    err,
                    `Cannot ${
                      tool === "edit_file" ? "edit" : "write"
                    } "${input.args.path}"`,
                  );
                }
                yield result(
                  await locks.run([real], async (): Promise<JsonObject> => {
                    if (tool === "write_file") {
                      const plan = await planWrite(input);
                      const { bytes, created } = await commit(plan, signal);
                      return {
                        path: plan.target.absolute,
                        created,
                        bytes_written: bytes,
                        lines: countLines(plan.newText),
                      };
                    }
                    const plan = await planEdit(input);
                    const { bytes } = await commit(plan, signal);
                    return {
                      path: plan.target.absolute,
                      replacements: plan.replacements,
                      bytes_written: bytes,
                    };
                  }),
                );
                return;
              }
              case "multi_edit":
                yield result(await multiEdit(call, input, signal));
                return;
              default:
                throw new ToolFailure(
                  "invalid_arguments",
                  `Unknown tool ${
                    JSON.stringify(tool)
                  }: this provider has read_file, write_file, edit_file and multi_edit`,
                );
            }
          } catch (err) {
            const f = classify(err, `${tool} failed`);
            if (f.kind === "execution_failed") {
              ctx.log.warn(`${tool} failed`, { message: f.message });
            }
            yield failureEvent(f);
          }
        },
        preview: async (req) => {
          const call = req.call;
          const tool = call?.toolName ?? "";
          try {
            if (!call) {
              throw new ToolFailure("invalid_arguments", "The call is missing");
            }
            if (
              tool !== "write_file" && tool !== "edit_file" &&
              tool !== "multi_edit"
            ) {
              throw new GrpcStatusError(
                Code.UNIMPLEMENTED,
                `${
                  tool || "this tool"
                } has no preview (only write_file, edit_file and multi_edit do)`,
              );
            }
            const input = callInput(call);
            if (tool === "multi_edit") {
              const plans = await planMultiEdit(input);
              await remember(callKey(call), plans);
              return { preview: multiPreviewTree(plans) };
            }
            const plan = tool === "write_file"
              ? await planWrite(input)
              : await planEdit(input);
            return { preview: previewTree(tool, plan) };
          } catch (err) {
            if (err instanceof GrpcStatusError) throw err;
            const f = classify(err, `Cannot preview ${tool}`);
            throw new GrpcStatusError(STATUS[f.kind], f.message);
          }
        },
        render: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "filesystem has no Render",
          );
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
