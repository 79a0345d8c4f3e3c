/**
 * `lsp`: language-server diagnostics after the agent's writes (issue 17
 * part 7). A context provider (it contributes no section) that starts the
 * language server its provider block declares at Configure, and hosts
 * `HookSubscriberService` for `post-tool-call` (observe): after a
 * successful call of one of `write_tools` whose `path` has one of
 * `extensions`, it sends the file's new text to the server, asks for its
 * diagnostics (bounded by `timeout_ms`), and puts its errors before the
 * agent as `<cp:lsp-diagnostics path="…" count="…">` through the kernel's
 * `InjectControl` (delivered at the next round boundary). Only the running
 * server is asked: one that has not started, or has exited, is never
 * (re)started for a check, and a check that times out delivers nothing.
 * A file whose errors are gone after an earlier report gets `count="0"`.
 *
 * One server per provider block: declare several blocks (`lsp_ts`,
 * `lsp_py`, …, all `builtin/lsp`) for several servers.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { extname, isAbsolute, relative, resolve } from "node:path";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Stability } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ContextService } from "../../proto/gen/pluggableharness/context/v1/service_pb.ts";
import { HookSubscriberService } from "../../proto/gen/pluggableharness/hook/v1/service_pb.ts";
import { HookPoint } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { HookMode } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { DENO_RUNTIME_ENV_NAMES } from "../../contract/runtime_env.ts";
import {
  configSchemaOf,
  describeResponse,
  type KernelClient,
  parseManifest,
  type PluginContext,
  serve,
  service,
} from "../sdk/mod.ts";
import { LanguageServer, type LspDiagnostic } from "./_server.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "lsp/plugin.json");

/** The decoded provider block. */
export interface LspConfig {
  /** The server program and arguments. */
  command: string[];
  /** Extensions checked, with their dot, lower case. */
  extensions: string[];
  /** The language id, when set. */
  languageId?: string;
  /** `initializationOptions`, when set. */
  initializationOptions?: unknown;
  /** Extra variables for the server. */
  env: Record<string, string>;
  /** The tools that write files. */
  writeTools: string[];
  /** One check's bound. */
  timeoutMs: number;
  /** Errors listed per block. */
  maxDiagnostics: number;
}

const LANGUAGE_IDS: Readonly<Record<string, string>> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
  ".py": "python",
  ".go": "go",
  ".rs": "rust",
};

function invalid(message: string): never {
  throw new GrpcStatusError(
    Code.INVALID_ARGUMENT,
    `invalid_request: ${message}`,
  );
}

function stringList(raw: JsonObject, name: string): string[] {
  const v = raw[name];
  if (
    !Array.isArray(v) || v.length === 0 ||
    v.some((x) => typeof x !== "string" || x === "")
  ) {
    invalid(
      `config attribute "${name}" must be a non-empty list of non-empty strings, not ${
        JSON.stringify(v)
      }`,
    );
  }
  return v as string[];
}

function positive(raw: JsonObject, name: string, fallback: number): number {
  const v = raw[name] ?? fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) {
    invalid(
      `config attribute "${name}" must be a whole number of at least 1, not ${
        JSON.stringify(v)
      }`,
    );
  }
  return v;
}

/**
 * Decodes and checks the provider block.
 *
 * @param raw The configuration the kernel sent.
 * @returns The configuration.
 * @throws {GrpcStatusError} `INVALID_ARGUMENT` naming the attribute.
 */
export function parseLspConfig(raw: JsonObject): LspConfig {
  const allowed = (manifest.configSchema ?? []).map((a) => a.name);
  for (const k of Object.keys(raw)) {
    if (!allowed.includes(k)) {
      invalid(
        `config attribute "${k}" is not supported by lsp (it takes ${
          allowed.join(", ")
        })`,
      );
    }
  }
  const command = stringList(raw, "command");
  const extensions = stringList(raw, "extensions").map((e) => {
    if (!/^\.[A-Za-z0-9_.+-]+$/.test(e)) {
      invalid(
        `config attribute "extensions" holds ${
          JSON.stringify(e)
        }: write extensions with their dot, e.g. ".ts"`,
      );
    }
    return e.toLowerCase();
  });
  const config: LspConfig = {
    command,
    extensions,
    env: {},
    writeTools: raw.write_tools === undefined || raw.write_tools === null
      ? ["write_file", "edit_file", "multi_edit"]
      : stringList(raw, "write_tools"),
    timeoutMs: positive(raw, "timeout_ms", 3000),
    maxDiagnostics: positive(raw, "max_diagnostics", 20),
  };
  const lang = raw.language_id;
  if (typeof lang === "string" && lang !== "") config.languageId = lang;
  const init = raw.initialization_options;
  if (typeof init === "string" && init !== "") {
    try {
      config.initializationOptions = JSON.parse(init);
    } catch (err) {
      invalid(
        `config attribute "initialization_options" is not JSON text: ${
          (err as Error).message
        }`,
      );
    }
  }
  const env = raw.env ?? {};
  if (typeof env !== "object" || Array.isArray(env)) {
    invalid(`config attribute "env" must be a map of strings`);
  }
  for (const [k, v] of Object.entries(env as JsonObject)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== "string") {
      invalid(
        `config attribute "env" has ${JSON.stringify(k)} = ${
          JSON.stringify(v)
        }: keys are variable names, values strings`,
      );
    }
    config.env[k] = v;
  }
  return config;
}

/** The server's environment: PATH, Deno's runtime settings, `env`. */
function serverEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { DENO_NO_UPDATE_CHECK: "1" };
  for (const name of ["PATH", "HOME", ...DENO_RUNTIME_ENV_NAMES]) {
    try {
      const v = Deno.env.get(name);
      if (v !== undefined) env[name] = v;
    } catch {
      // Not readable under this plugin's grant: the server goes without.
    }
  }
  return { ...env, ...extra };
}

/**
 * The body of a `<cp:lsp-diagnostics>` block: the errors, one a line, as
 * `path:line:column: message [source code]` (1-based), at most `max`.
 *
 * @param path The file, relative to the working directory.
 * @param errors The errors.
 * @param max The most listed.
 * @returns The body.
 */
export function diagnosticsBody(
  path: string,
  errors: readonly LspDiagnostic[],
  max: number,
): string {
  if (errors.length === 0) return `No errors left in ${path}.`;
  const lines = errors.slice(0, max).map((d) => {
    const at = `${path}:${d.range.start.line + 1}:${
      d.range.start.character + 1
    }`;
    const tag = [d.source, d.code].filter((x) => x !== undefined && x !== "")
      .join(" ");
    return `${at}: ${d.message.replace(/\s+/g, " ").trim()}${
      tag ? ` [${tag}]` : ""
    }`;
  });
  if (errors.length > max) {
    lines.push(`… and ${errors.length - max} more`);
  }
  return lines.join("\n");
}

/** The provider: its server, and what it last reported per file. */
class LspHost {
  #config: LspConfig | undefined;
  #server: LanguageServer | undefined;
  readonly #reported = new Map<string, number>();
  readonly #ctx: PluginContext;

  constructor(ctx: PluginContext) {
    this.#ctx = ctx;
  }

  configure(raw: JsonObject): void {
    const config = parseLspConfig(raw);
    if (this.#server) {
      invalid("lsp is configured already: its server is running");
    }
    this.#config = config;
    let cwd: string;
    try {
      cwd = Deno.cwd();
    } catch {
      cwd = "/";
    }
    try {
      this.#server = new LanguageServer({
        command: config.command,
        cwd,
        env: serverEnv(config.env),
        ...(config.initializationOptions !== undefined
          ? { initializationOptions: config.initializationOptions }
          : {}),
      });
    } catch (err) {
      throw new GrpcStatusError(
        Code.FAILED_PRECONDITION,
        `source_unavailable: cannot start the language server ${
          JSON.stringify(config.command[0])
        }: ${
          (err as Error).message
        } (grant the program with allow_run in the provider block)`,
      );
    }
    this.#server.ready.then(
      () =>
        this.#ctx.log.info("lsp: the language server is ready", {
          command: config.command.join(" "),
        }),
      (err) =>
        this.#ctx.log.warn("lsp: the language server did not start", {
          command: config.command.join(" "),
          reason: this.#server?.exited ?? (err as Error).message,
        }),
    );
  }

  /** After a tool call: check the file it wrote, deliver its errors. */
  async afterToolCall(
    sessionId: string,
    workingDirectory: string,
    tool: string,
    args: JsonObject | undefined,
  ): Promise<void> {
    const config = this.#config;
    const server = this.#server;
    if (!config || !server || !config.writeTools.includes(tool)) return;
    const arg = args?.path;
    if (typeof arg !== "string" || arg === "") return;
    const base = workingDirectory || Deno.cwd();
    const abs = isAbsolute(arg) ? resolve(arg) : resolve(base, arg);
    if (!config.extensions.includes(extname(abs).toLowerCase())) return;
    let text: string;
    try {
      text = await Deno.readTextFile(abs);
    } catch (err) {
      this.#ctx.log.warn("lsp: cannot read the written file", {
        path: abs,
        reason: (err as Error).message,
      });
      return;
    }
    const languageId = config.languageId ??
      LANGUAGE_IDS[extname(abs).toLowerCase()] ??
      extname(abs).slice(1).toLowerCase();
    const r = await server.check(abs, languageId, text, config.timeoutMs);
    if (!r.ok) {
      this.#ctx.log.info("lsp: no diagnostics for a written file", {
        path: abs,
        reason: r.reason,
      });
      return;
    }
    const errors = r.diagnostics.filter((d) => (d.severity ?? 1) === 1);
    const rel = relative(base, abs) || abs;
    const before = this.#reported.get(abs) ?? 0;
    this.#reported.set(abs, errors.length);
    if (errors.length === 0 && before === 0) return;
    const kernel: KernelClient = await this.#ctx.kernel();
    const { outcome } = await kernel.injectControl({
      sessionId,
      text: diagnosticsBody(rel, errors, config.maxDiagnostics),
      channel: "lsp-diagnostics",
      attributes: { path: rel, count: String(errors.length) },
    });
    if (outcome !== "queued") {
      this.#ctx.log.info("lsp: diagnostics not delivered", {
        path: rel,
        outcome,
      });
    }
  }

  async close(): Promise<void> {
    await this.#server?.stop();
  }
}

if (import.meta.main) {
  let host: LspHost | undefined;
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "context",
    },
    services: (ctx) => {
      const h = new LspHost(ctx);
      host = h;
      return [
        service(ContextService, {
          getCapabilities: () => ({
            capabilities: {
              defaultTokenBudget: 1n,
              stability: Stability.STATIC,
              compactor: false,
              slashCommands: [],
              configSchema: configSchemaOf(manifest),
              supportedHookPoints: [HookPoint.POST_TOOL_CALL],
            },
          }),
          configure: (req) => {
            h.configure(req.config ?? {});
            return {};
          },
          // No section of its own: its output goes through the hook.
          contribute: (req) => ({ sections: req.priorSections }),
          render: () => {
            throw new GrpcStatusError(
              Code.UNIMPLEMENTED,
              "lsp has no Render",
            );
          },
          describe: () => describeResponse(manifest),
        }),
        service(HookSubscriberService, {
          dispatchHook: async (req) => {
            if (req.mode !== HookMode.OBSERVE) {
              throw new GrpcStatusError(
                Code.FAILED_PRECONDITION,
                `lsp subscribes in observe mode only, not ${
                  HookMode[req.mode] ?? req.mode
                }`,
              );
            }
            const payload = req.payload?.payload;
            if (payload?.case !== "postToolCall") {
              throw new GrpcStatusError(
                Code.INVALID_ARGUMENT,
                `lsp subscribes to post-tool-call only, not ${
                  payload?.case ?? "an empty payload"
                }`,
              );
            }
            const { call, outcome } = payload.value;
            if (call && outcome.case === "result") {
              await h.afterToolCall(
                call.callContext?.sessionId ?? "",
                call.callContext?.workingDirectory ?? "",
                call.toolName,
                call.arguments,
              );
            }
            return { outcome: { case: "observe" as const, value: {} } };
          },
        }),
      ];
    },
    onShutdown: () => host?.close(),
  });
}
