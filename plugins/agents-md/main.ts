/**
 * `agents-md`: a context provider (plugins.md §6.3) that puts the
 * repository's agent instruction files — `AGENTS.md`, `CLAUDE.md` and
 * `GEMINI.md` by default — into the prompt preamble.
 *
 * On each `Contribute` it reads those files in every directory from the
 * repository root (the nearest ancestor of the working directory holding
 * `.git`, or the configured `root`) down to the working directory, and
 * appends one section per file, farthest first and nearest last, labelled
 * with the file's path relative to the root. Section tokens come from the
 * kernel's CountTokens callback. Over the request's `token_budget`, the
 * farthest files are dropped first, then the nearest one is cut with a
 * marker. The answer is the whole chain: the prior sections untouched, then
 * its own.
 *
 * Errors are gRPC statuses whose code follows the ContextErrorCategory
 * table and whose message starts with the category
 * (`invalid_request: …`). See README.md.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { isAbsolute, resolve } from "node:path";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  type ContextSectionSchema,
  Stability,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ContextService } from "../../proto/gen/pluggableharness/context/v1/service_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  type KernelClient,
  parseManifest,
  serve,
  service,
} from "../sdk/mod.ts";
import {
  chainDirectories,
  DEFAULT_FILE_NAMES,
  findRepoRoot,
  fitToBudget,
  readChain,
} from "./_chain.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Section = MessageInitShape<typeof ContextSectionSchema>;

const manifest = parseManifest(manifestJson, "agents-md/plugin.json");

/** The `default_token_budget` this provider declares. */
export const DEFAULT_TOKEN_BUDGET = 8000;

/**
 * Request metadata naming the provider's local name in `agent.hcl` (the
 * `provider` of its sections); absent, the plugin's own name is used.
 */
export const PROVIDER_METADATA = "ph-provider";

/** ContextErrorCategory, lower snake. */
type Category5 =
  | "source_unavailable"
  | "budget_exceeded"
  | "scope_violation"
  | "invalid_request"
  | "unknown";

/** A gRPC status code. */
type StatusCode = (typeof Code)[keyof typeof Code];

const CODE: Record<Category5, StatusCode> = {
  source_unavailable: Code.UNAVAILABLE,
  budget_exceeded: Code.FAILED_PRECONDITION,
  scope_violation: Code.PERMISSION_DENIED,
  invalid_request: Code.INVALID_ARGUMENT,
  unknown: Code.INTERNAL,
};

function fail(category: Category5, message: string): never {
  throw new GrpcStatusError(CODE[category], `${category}: ${message}`);
}

/** The decoded provider block. */
interface Config {
  /** Absolute root, when configured. */
  root?: string;
  /** File names per directory, in reading order. */
  fileNames: string[];
}

function cwd(): string | undefined {
  try {
    return Deno.cwd();
  } catch {
    return undefined;
  }
}

function parseConfig(raw: JsonObject): Config {
  const allowed = ["root", "file_names", "token_budget"];
  for (const k of Object.keys(raw)) {
    if (!allowed.includes(k)) {
      fail(
        "invalid_request",
        `config attribute "${k}" is not supported by agents-md (it takes ${
          allowed.join(", ")
        })`,
      );
    }
  }
  const names = raw.file_names ?? [...DEFAULT_FILE_NAMES];
  if (
    !Array.isArray(names) || names.length === 0 ||
    names.some((n) =>
      typeof n !== "string" || n === "" || n.includes("/") ||
      n.includes("\\") || n === "." || n === ".."
    )
  ) {
    fail(
      "invalid_request",
      `config attribute "file_names" must be a non-empty list of plain file names (no directories), not ${
        JSON.stringify(names)
      }`,
    );
  }
  const budget = raw.token_budget;
  if (
    budget !== undefined && budget !== null &&
    (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1)
  ) {
    fail(
      "invalid_request",
      `config attribute "token_budget" must be a positive integer, not ${
        JSON.stringify(budget)
      }`,
    );
  }
  const root = raw.root;
  // The kernel decodes an unset optional string to "" (its zero value).
  if (root === undefined || root === null || root === "") {
    return { fileNames: names as string[] };
  }
  if (typeof root !== "string") {
    fail(
      "invalid_request",
      `config attribute "root" must be a string, not ${JSON.stringify(root)}`,
    );
  }
  const base = cwd();
  const abs = isAbsolute(root) ? root : base ? resolve(base, root) : root;
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(abs);
  } catch (err) {
    fail(
      "invalid_request",
      `config attribute "root" = ${JSON.stringify(root)} resolves to ${
        JSON.stringify(abs)
      }, which ${
        err instanceof Deno.errors.NotFound
          ? "does not exist"
          : `cannot be read (${
            (err as Error).message
          }; the provider block grants reads with allow_read)`
      }`,
    );
  }
  if (!info.isDirectory) {
    fail(
      "invalid_request",
      `config attribute "root" = ${JSON.stringify(root)} resolves to ${
        JSON.stringify(abs)
      }, which is not a directory`,
    );
  }
  return { root: abs, fileNames: names as string[] };
}

/** Token counts through the kernel, remembered per text (bounded). */
class Counter {
  #cache = new Map<string, number>();
  constructor(private readonly kernel: () => Promise<KernelClient>) {}

  async count(text: string): Promise<number> {
    const hit = this.#cache.get(text);
    if (hit !== undefined) return hit;
    let n: number;
    try {
      const k = await this.kernel();
      n = Number(
        (await k.countTokens({
          content: [{ block: { case: "text", value: { text } } }],
        })).count,
      );
    } catch (err) {
      fail(
        "source_unavailable",
        `the kernel's CountTokens failed: ${(err as Error).message}`,
      );
    }
    if (this.#cache.size >= 256) {
      this.#cache.delete(this.#cache.keys().next().value!);
    }
    this.#cache.set(text, n);
    return n;
  }
}

if (import.meta.main) {
  let config: Config | undefined;
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "context",
    },
    services: (ctx) => {
      const counter = new Counter(() => ctx.kernel());
      return [
        service(ContextService, {
          getCapabilities: () => ({
            capabilities: {
              defaultTokenBudget: BigInt(DEFAULT_TOKEN_BUDGET),
              stability: Stability.STATIC,
              compactor: false,
              slashCommands: [],
              configSchema: configSchemaOf(manifest),
              supportedHookPoints: [],
            },
          }),
          configure: (req) => {
            config = parseConfig(req.config ?? {});
            return {};
          },
          contribute: async (req, { metadata }) => {
            if (!config) {
              fail(
                "invalid_request",
                "agents-md is not configured: Configure must run first",
              );
            }
            if (!req.modelTarget) {
              fail("invalid_request", "model_target is required");
            }
            if (req.tokenBudget < 0n) {
              fail(
                "invalid_request",
                `token_budget ${req.tokenBudget} is negative`,
              );
            }
            const wd = req.workingDirectory || cwd();
            if (!wd || !isAbsolute(wd)) {
              fail(
                "invalid_request",
                `working_directory ${
                  JSON.stringify(req.workingDirectory)
                } is not an absolute path`,
              );
            }
            const name = String(
              metadata.get(PROVIDER_METADATA)[0] ?? "",
            ) || manifest.name;
            const root = config.root ?? findRepoRoot(wd) ?? wd;
            const { files, skipped } = await readChain(
              root,
              chainDirectories(root, wd),
              config.fileNames,
            );
            for (const s of skipped) {
              ctx.log.warn("agents-md skipped a file", {
                path: s.path,
                reason: s.reason,
              });
            }
            const budget = Number(req.tokenBudget);
            const fitted = await fitToBudget(
              files,
              budget,
              (t) => counter.count(t),
            );
            if (!fitted) {
              fail(
                "budget_exceeded",
                `a token budget of ${budget} cannot hold any of ${files.length} instruction files, not even cut to a few lines (${
                  files.map((f) => f.label).join(", ")
                })`,
              );
            }
            if (fitted.dropped.length) {
              ctx.log.info("agents-md dropped files over the token budget", {
                dropped: fitted.dropped.join(", "),
                budget,
              });
            }
            const own: Section[] = fitted.sections.map((s) => ({
              provider: name,
              label: s.label,
              content: [{ block: { case: "text", value: { text: s.text } } }],
              tokens: BigInt(s.tokens),
              stability: Stability.STATIC,
              truncated: s.truncated,
            }));
            return { sections: [...req.priorSections, ...own] };
          },
          render: () => {
            throw new GrpcStatusError(
              Code.UNIMPLEMENTED,
              "agents-md has no Render",
            );
          },
          describe: () => describeResponse(manifest),
        }),
      ];
    },
  });
}
