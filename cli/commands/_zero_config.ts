/**
 * The zero-config first run of `agent` and `agent run`: in a directory
 * without `agent.hcl`, the built-in default configuration
 * (`config/default_config.ts`, the text `agent init` writes) is compiled
 * instead, with the model provider the environment's API key selects, and
 * one line on stderr says so.
 *
 * @module
 */
import { join } from "node:path";
import {
  defaultConfigText,
  describeChoice,
  modelChoiceFromEnv,
} from "../../config/default_config.ts";
import { CONFIG_FILE_NAME } from "../../config/files.ts";
import type { CliIo } from "./io.ts";
import { EXIT_CONFIG } from "./exit_codes.ts";
import { openKernel } from "../../kernel/kernel.ts";
import type { Kernel, OpenKernelOptions } from "../../kernel/api.ts";
import { BUILTINS } from "../../plugins/builtin.ts";
import { RUN_DIR } from "../../kernel/control/control_endpoint.ts";
import {
  claimForResume,
  type SessionClaim,
} from "../../kernel/control/session_claim.ts";
import { reportError } from "./_report_error.ts";

/** What {@linkcode zeroConfig} decided. */
export type ZeroConfig =
  /** The directory has `agent.hcl`: open it as usual. */
  | { readonly kind: "project" }
  /** No `agent.hcl`: open the kernel with this default text. */
  | { readonly kind: "default"; readonly text: string }
  /** No `agent.hcl` and no way to run: the message was printed. */
  | { readonly kind: "exit"; readonly code: number };

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * Decides how `agent`/`agent run` configure a project directory: its own
 * `agent.hcl`, or the built-in default (printing the one-line notice that
 * names `agent init`), or an exit (code 2) with the reason: `--locked`
 * without `agent.hcl`, an invalid base URL, or neither API key set.
 *
 * @param dir The project directory (absolute).
 * @param io Where to print, and the environment.
 * @param options `locked`: whether `--locked` was given.
 * @returns What to do.
 */
export async function zeroConfig(
  dir: string,
  io: CliIo,
  options: { locked: boolean },
): Promise<ZeroConfig> {
  if (await exists(join(dir, CONFIG_FILE_NAME))) return { kind: "project" };
  if (options.locked) {
    io.stderr(
      `error: --locked needs agent.hcl and its lock file, but there is no agent.hcl in "${dir}": run "agent init" to write both (the built-in default configuration has no lock file)\n`,
    );
    return { kind: "exit", code: EXIT_CONFIG };
  }
  const { choice, error } = modelChoiceFromEnv(io.env);
  if (error !== undefined) {
    io.stderr(`error: ${error}\n`);
    return { kind: "exit", code: EXIT_CONFIG };
  }
  if (choice === undefined) {
    io.stderr(
      `error: there is no agent.hcl in "${dir}" and no API key to run the built-in default configuration: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run "agent init" to write an agent.hcl (e.g. for a local OpenAI-compatible server)\n`,
    );
    return { kind: "exit", code: EXIT_CONFIG };
  }
  io.stderr(
    `note: no agent.hcl here: using the built-in default configuration (${
      describeChoice(choice)
    }; tools confined to this directory; file changes and shell commands are asked for); run "agent init" to write it to agent.hcl and make it explicit\n`,
  );
  return { kind: "default", text: defaultConfigText(choice) };
}

/** How the CLI opens a project's kernel. */
interface OpenOptions {
  locked: boolean;
  /** What {@linkcode zeroConfig} decided already (its notice printed). */
  config?: Exclude<ZeroConfig, { kind: "exit" }>;
  persistAlways?: boolean;
  prestartFrontend?: OpenKernelOptions["prestartFrontend"];
}

/**
 * Opens the kernel of `agent` and `agent run` on a project: its own
 * `agent.hcl`, else the built-in default ({@linkcode zeroConfig}), with
 * this package's first-party plugins.
 *
 * A session to be resumed (`resume`) is claimed first, for as long as the
 * caller holds the returned claim ({@linkcode claimForResume}): neither a
 * trigger nor another resume drives it meanwhile. Dispose the claim after
 * the kernel (declare it first).
 *
 * @param dir The project directory.
 * @param io Streams and environment (the notice and errors go to stderr).
 * @param options `--locked`, whether ALWAYS answers are persisted, the
 * frontend to start early, and the session to resume.
 * @returns The running kernel (with the resumed session's claim), or the
 * exit code to end with, its reason already printed.
 */
export async function openProjectKernel(
  dir: string,
  io: CliIo,
  options: OpenOptions & { resume?: string },
): Promise<
  { kernel: Kernel; claim: SessionClaim | undefined } | { exit: number }
> {
  let claim: SessionClaim | undefined;
  try {
    if (options.resume !== undefined) {
      claim = await claimForResume(join(dir, RUN_DIR), options.resume);
    }
    const config = options.config ??
      await zeroConfig(dir, io, { locked: options.locked });
    if (config.kind === "exit") {
      await claim?.release();
      return { exit: config.code };
    }
    return { kernel: await open(dir, io, options, config), claim };
  } catch (err) {
    await claim?.release();
    return { exit: reportError(io, err) };
  }
}

async function open(
  dir: string,
  io: CliIo,
  options: OpenOptions,
  config: Exclude<ZeroConfig, { kind: "exit" }>,
): Promise<Kernel> {
  const kernel = await openKernel(dir, {
    builtins: BUILTINS,
    env: io.env,
    locked: options.locked,
    // `agent trigger` from another process reaches this one's sessions.
    controlEndpoint: true,
    onWarning: (m) => io.stderr(`warning: ${m}\n`),
    ...(options.persistAlways ? { persistAlways: true } : {}),
    ...(options.prestartFrontend
      ? { prestartFrontend: options.prestartFrontend }
      : {}),
    ...(config.kind === "default" ? { defaultConfig: config.text } : {}),
  });
  // A dev override is said at every run (config.md §2.8).
  for (const d of kernel.diagnostics) {
    if (d.code === "W_DEV_OVERRIDE") {
      io.stderr(`warning: ${d.summary}. ${d.detail ?? ""}\n`);
    }
  }
  return kernel;
}
