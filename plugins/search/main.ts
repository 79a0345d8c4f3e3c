/**
 * `search`: the reference tool provider for finding files (plugins.md
 * §7.2).
 *
 * - `glob` (data source, read only): files whose path matches a glob
 *   pattern (`**` for any depth), sorted by path or by modification time,
 *   at most `limit` of them with a truncation marker saying how many more
 *   matched;
 * - `grep` (data source, read only): files whose content matches a
 *   JavaScript regular expression, as matching files, numbered lines (with
 *   context) or counts, filtered by glob or file type, bounded the same
 *   way.
 *
 * Both walk the tree as a stream, respect `.gitignore` files (`.git` is
 * always skipped), never follow symbolic links during a walk, and skip
 * binary files. Every `path` is confined to the provider block's `roots`
 * with the filesystem plugin's rules (`../filesystem/_paths.ts`): one that
 * leaves them through `..` or a symbolic link is PERMISSION_DENIED. The
 * manifest asks to read `.` (the kernel's working directory) and nothing
 * else. See README.md.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
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
import { classify, failureEvent, ToolFailure } from "../sdk/tool_failure.ts";
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
import {
  FILE_TYPES,
  GLOB_DEFAULT_LIMIT,
  globFiles,
  GREP_DEFAULT_LIMIT,
  grepFiles,
  MAX_CONTEXT,
  MAX_LIMIT,
  type SearchInput,
} from "./_search.ts";
import { parseRootsConfig, RootsConfigError } from "../sdk/roots.ts";
import { canRun } from "./_ripgrep.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;

const manifest = parseManifest(manifestJson, "search/plugin.json");

function str(description: string, enumValues: string[] = []): Schema {
  return { type: SchemaType.STRING, description, enumValues };
}

function num(description: string): Schema {
  return { type: SchemaType.NUMBER, description };
}

function bool(description: string): Schema {
  return { type: SchemaType.BOOLEAN, description };
}

const PATH = str(
  "The directory to search (grep also takes a file): absolute, or relative to the working directory. Default: the working directory.",
);
const TIMEOUT = { seconds: 60n };

/** `rg`, when the operator granted it (`allow_run = ["rg"]`). */
const ripgrep = canRun("rg") ? "rg" : undefined;

/** The configured roots; undefined until Configure. */
let roots: string[] | undefined;

const SCHEMA: MessageInitShape<typeof GetSchemaResponseSchema> = {
  tools: [
    {
      name: "glob",
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      description:
        "Finds files by path pattern, e.g. `**/*.ts` or `src/**/test_*.{js,ts}` " +
        "(`*` and `?` stay within a directory, `**` spans any depth). Returns " +
        "one path per line, relative to the working directory, sorted by path " +
        "(or newest first with sort=modified); files ignored by .gitignore and " +
        `.git are left out. At most ${GLOB_DEFAULT_LIMIT} paths unless limit ` +
        "says otherwise; a truncation marker says how many more matched.",
      inputSchema: object({
        pattern: str("The glob, relative to path."),
        path: PATH,
        limit: num(`Paths to return at most (1-${MAX_LIMIT}).`),
        sort: str("Order: by path (default) or modified (newest first).", [
          "path",
          "modified",
        ]),
      }, ["pattern"]),
      outputSchema: object({
        content: str("Matching paths, one per line, then a marker if cut."),
        shown: num("Paths shown."),
        total: num("Paths that matched."),
        truncated: bool("Whether matching paths were left out."),
      }, ["content", "shown", "total", "truncated"]),
      streaming: false,
      concurrency: { safe: true, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: true,
    },
    {
      name: "grep",
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      description:
        "Searches file contents with a JavaScript regular expression. " +
        "output_mode files_with_matches (default) lists matching files; " +
        "content shows matching lines as path:line:text (context lines as " +
        "path-line-text, groups split by --); count shows path:count. Filter " +
        "files with glob (e.g. `*.ts`, or `src/**/*.ts`) or type (e.g. ts, " +
        "py). Skips binary files and files ignored by .gitignore. Output is " +
        "bounded; a truncation marker says how much was left out.",
      inputSchema: object({
        pattern: str("The regular expression (JavaScript syntax)."),
        path: PATH,
        glob: str(
          "Only files matching this glob (without a slash it matches file names at any depth).",
        ),
        type: str(
          `Only files of this type: ${Object.keys(FILE_TYPES).join(", ")}.`,
        ),
        output_mode: str("What to return (default files_with_matches).", [
          "files_with_matches",
          "content",
          "count",
        ]),
        case_insensitive: bool("Ignore case."),
        multiline: bool(
          "Let the pattern span lines (. matches newlines too).",
        ),
        context: num(
          `Lines of context before and after each match (content mode, at most ${MAX_CONTEXT}).`,
        ),
        before: num("Lines of context before each match (content mode)."),
        after: num("Lines of context after each match (content mode)."),
        limit: num(
          `Entries (files, lines or counts) to return at most (1-${MAX_LIMIT}, default ${GREP_DEFAULT_LIMIT}).`,
        ),
      }, ["pattern"]),
      outputSchema: object({
        content: str("The output, then a truncation marker if cut."),
        files: num("Files with a match."),
        matches: num(
          "Matching lines (content and count modes; in files_with_matches mode each file counts once).",
        ),
        shown: num("Entries shown."),
        truncated: bool("Whether entries were left out."),
      }, ["content", "files", "matches", "shown", "truncated"]),
      streaming: false,
      concurrency: { safe: true, keyFields: [] },
      defaultTimeout: TIMEOUT,
      idempotent: true,
    },
  ],
  configSchema: configSchemaOf(manifest),
  supportedHookPoints: [],
};

async function configure(config: JsonObject | undefined): Promise<void> {
  try {
    roots = await parseRootsConfig(
      config,
      "search",
      "the directories glob and grep may search",
      "allow_read",
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
): SearchInput {
  if (!roots) {
    throw new ToolFailure(
      "execution_failed",
      "The search provider is not configured: Configure must set roots first",
    );
  }
  return {
    roots,
    args: call.arguments ?? {},
    workingDirectory: call.callContext?.workingDirectory ?? "",
    ...(signal ? { signal } : {}),
    ...(ripgrep ? { ripgrep } : {}),
  };
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
              case "glob":
                yield result(await globFiles(input));
                return;
              case "grep":
                yield result(await grepFiles(input));
                return;
              default:
                throw new ToolFailure(
                  "invalid_arguments",
                  `Unknown tool ${
                    JSON.stringify(tool)
                  }: this provider has glob and grep`,
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
        preview: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "search has no Preview: glob and grep are read only",
          );
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "search has no Render");
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
