/**
 * `check-config [dir] [--json] [--locked] [--require-env] [--explain]`:
 * checks the agent
 * configuration of a project and says, before any agent runs, whether
 * `agent.hcl` is valid, whether every provider is locked to an exact,
 * checksummed version, and that no plugin gets more than it declares. When
 * `agent.test.hcl` is beside `agent.hcl`, its policy tests run too, and
 * each failure is a diagnostic at the test's block.
 *
 *     deno task check-config examples --locked
 *
 * Exit codes: 0 valid; 1 invalid configuration; 2 lock file missing (with
 * `--locked`), unreadable, outdated or mismatched; 3 usage error.
 *
 * It needs no secrets: an `env()` variable that is unset is the warning
 * `W_ENV_UNSET` (the agent needs it when it runs), an error only with
 * `--require-env`.
 *
 * An unchanged run replays its cached result (see `_cache.ts`); only a miss
 * loads the compiler.
 *
 * @module
 */

import { isAbsolute, join, relative, resolve } from "node:path";
import { computeCacheKey, lookup, store } from "./_check_config_cache.ts";
import { globalConfigPath } from "../../config/_xdg.ts";
import { BUILTINS } from "../../plugins/builtin.ts";
import { type CliIo, processExitCode, processIo } from "./io.ts";
import { errorText, parseOptions, usageError, useColor } from "./_common.ts";
import { EXIT_USAGE } from "./exit_codes.ts";

/** The `--help` text of `check-config`. */
export const CHECK_CONFIG_HELP: string =
  `Usage: check-config [dir] [--json] [--locked] [--require-env] [--explain]
                    [--connect]

Checks the agent configuration in dir (default: the current directory):
agent.hcl, .agent/agent.lock.hcl, the global $XDG_CONFIG_HOME/agent/config.hcl
and the manifest of every plugin available locally, and runs the policy tests
in agent.test.hcl when there is one (see: agent test -h; a failing test is an
error at its block). Prints every problem with
its source line, grouped by file, then a one-line summary.

It needs no secrets: an env("NAME") variable that is not set is a warning
(W_ENV_UNSET, naming the variable and the attribute), since the agent only
needs it when it runs (where it is an error).

Options:
  --json       Print one JSON document: format_version, valid, the
               diagnostics and, when valid, the plan (secrets redacted)
  --locked     Require a complete, current lock file (for CI)
  --require-env
               Make an unset env() variable an error (E_ENV_UNSET), as when
               the agent runs
  --explain    Show, per profile, the tools in scope, each plugin's
               permissions as the Deno flags it will get, and the policy
               outcome per tool
  --connect    With state { backend = "postgres" }: connect to the database
               and check its schema revision (otherwise nothing connects)
  --no-cache   Neither use nor update the result cache
  --no-color   Never colour the output (also: NO_COLOR, or not a terminal)
  -h, --help   Show this help

Exit codes: 0 valid; 1 invalid configuration; 2 lock file missing (with
--locked), unreadable, outdated or not matching; 3 usage error.
`;

/**
 * `--connect`: opens the postgres state backend the plan selects (schema
 * revision checked, created or migrated as a kernel would) and closes it.
 *
 * @returns Why it failed (never the URL), or `undefined`.
 */
async function connectState(
  state: { urlEnv: string; schema: string },
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  const url = env[state.urlEnv];
  if (!url) {
    return `state.url reads the environment variable ${state.urlEnv}, which is not set`;
  }
  const { PostgresSessionStore } = await import(
    "../../kernel/state/postgres_session_store.ts"
  );
  const { stateLocationsOf } = await import("../../kernel/open_sessions.ts");
  let store;
  try {
    store = new PostgresSessionStore({
      url,
      schema: state.schema,
      keyPath: stateLocationsOf(env, undefined).keyPath,
    });
    await store.list({ limit: 1 });
    return undefined;
  } catch (err) {
    return errorText(err).replaceAll(url, "(sensitive)");
  } finally {
    await store?.close().catch(() => {});
  }
}

/** The usage line printed with a usage error. */
export const CHECK_CONFIG_USAGE =
  "Usage: check-config [dir] [--json] [--locked] [--require-env] [--explain] [--connect] [--no-cache] [--no-color]";

/**
 * Runs `check-config`.
 *
 * @example Usage
 * ```ts
 * import { run } from "./check_config.ts";
 * import assert from "node:assert/strict";
 * let out = "";
 * const code = await run(["examples", "--locked", "--json", "--no-cache"], {
 *   stdout: (t) => (out += t), stderr: () => {}, isTerminal: false,
 *   env: { HOME: "/nonexistent" }, cwd: Deno.cwd(),
 * });
 * assert.equal(code, 0);
 * assert.equal(JSON.parse(out).valid, true);
 * ```
 *
 * @param args The arguments after the command name.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function run(
  args: readonly string[],
  io: CliIo = processIo(),
): Promise<number> {
  const parsed = parseOptions(io, CHECK_CONFIG_USAGE, args, {
    json: { type: "boolean" },
    locked: { type: "boolean" },
    "require-env": { type: "boolean" },
    explain: { type: "boolean" },
    connect: { type: "boolean" },
    "no-cache": { type: "boolean" },
    "no-color": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (!parsed) return EXIT_USAGE;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(CHECK_CONFIG_HELP);
    return 0;
  }
  if (positionals.length > 1) {
    return usageError(
      io,
      CHECK_CONFIG_USAGE,
      `expected at most one directory, got ${positionals.length}: ${
        positionals.map((p) => JSON.stringify(p)).join(" ")
      }`,
    );
  }
  const dir = resolve(io.cwd, positionals[0] ?? ".");
  try {
    if (!(await Deno.stat(dir)).isDirectory) {
      return usageError(
        io,
        CHECK_CONFIG_USAGE,
        `"${positionals[0]}" is not a directory`,
      );
    }
  } catch {
    return usageError(
      io,
      CHECK_CONFIG_USAGE,
      `there is no directory "${positionals[0] ?? "."}"`,
    );
  }
  const color = useColor(io, {
    noColor: values["no-color"],
    json: values.json,
  });
  const flags = [
    values.json ? "--json" : "",
    values.locked ? "--locked" : "",
    values["require-env"] ? "--require-env" : "",
    values.explain ? "--explain" : "",
  ].filter(Boolean);
  // Whether bubblewrap works here changes the output (which plugins run
  // sandboxed, a warning): probed once per process, part of the cache key.
  const { probeSandbox } = await import("../../kernel/process/sandbox.ts");
  // `bwrap` on the PATH the agent would give plugins (its environment's).
  // It runs while the rest loads.
  const probing = probeSandbox(undefined, io.env.PATH);
  // --explain runs the context chain, whose inputs (AGENTS.md files, the
  // memory store) the cache key does not cover: never cached.
  // --connect asks a database, whose state the key does not cover either.
  const useCache = !values["no-cache"] && !values.explain && !values.connect;
  // Without the cache, the compiler is certainly needed: it loads while
  // the probe runs (otherwise only a miss loads it).
  const compiler = useCache ? undefined : loadCompiler();
  // A failed load is thrown where it is awaited, not as unhandled before.
  compiler?.catch(() => {});
  const { hostPlatform } = await import("../../config/checksum.ts");
  const platform = io.platform ?? hostPlatform();
  const globalPath = globalConfigPath(io.env);
  const probe = await probing;
  let key: string | undefined;
  if (useCache) {
    key = await computeCacheKey({
      dir,
      flags: [
        ...flags,
        `cwd=${io.cwd}`,
        `sandbox=${probe.available ? "available" : probe.reason}`,
      ],
      color,
      platform,
      globalPath: globalPath === undefined
        ? undefined
        : resolve(dir, globalPath),
      home: io.env.HOME ?? io.env.USERPROFILE,
    });
    const hit = await lookup(key, io.env);
    if (hit) {
      if (hit.stdout) io.stdout(hit.stdout);
      if (hit.stderr) io.stderr(hit.stderr);
      return hit.exitCode;
    }
  }

  const { checkConfig, renderHuman, writeJson } = await (compiler ??
    loadCompiler());
  const result = await checkConfig(dir, {
    builtins: BUILTINS,
    locked: values.locked ?? false,
    requireEnv: values["require-env"] ?? false,
    env: io.env,
    platform,
  });
  // agent.test.hcl: each failing test is a diagnostic at its block. The
  // policy gate (and the protobuf types it loads) only when there is one.
  const { POLICY_TEST_FILE } = await import(
    "../../config/policy_test_file.ts"
  );
  if (result.plan && await mayExist(join(dir, POLICY_TEST_FILE))) {
    const { runPolicyTestsIn } = await import("./_policy_tests.ts");
    const tests = await runPolicyTestsIn(dir, result.plan);
    if (tests.found) {
      if (tests.text !== undefined) result.sources.set(tests.file, tests.text);
      result.diagnostics.push(...tests.diagnostics);
      if (
        result.exitCode === 0 &&
        tests.diagnostics.some((d) => d.severity === "error")
      ) {
        result.exitCode = 1;
        result.valid = false;
      }
    }
  }
  const state = result.plan?.state;
  if (values.connect && state?.backend === "postgres") {
    const problem = await connectState(state, io.env);
    if (problem !== undefined) {
      result.diagnostics.push({
        severity: "error",
        code: "E_STATE_CONNECT",
        summary: "Cannot use the state database",
        detail: problem,
      });
      if (result.exitCode === 0) result.exitCode = 1;
      result.valid = false;
    }
  }
  let sandbox;
  if (result.plan) {
    const { sandboxReport } = await import("../../config/sandbox_report.ts");
    sandbox = sandboxReport(result.plan, probe);
    result.diagnostics.push(...sandbox.diagnostics);
  }
  let explain;
  if (values.explain && result.plan) {
    const { explainPlan } = await import("../../config/explain.ts");
    const { SDK_ENV_NAMES } = await import("../../kernel/plugin/host.ts");
    const { DENO_RUNTIME_ENV_NAMES } = await import(
      "../../contract/runtime_env.ts"
    );
    explain = explainPlan(result.plan, [
      ...SDK_ENV_NAMES,
      ...DENO_RUNTIME_ENV_NAMES,
    ]);
    if (
      result.plan.providers.some((p) =>
        p.category === "context" || p.category === "memory"
      )
    ) {
      const { measureContextChain } = await import(
        "../../kernel/context_probe.ts"
      );
      try {
        const m = await measureContextChain(
          dir,
          result.plan,
          io.env,
          BUILTINS,
        );
        if (m) {
          explain.context = {
            sections: m.sections.map((s) => ({ ...s })),
            tokens: m.sections.reduce((n, s) => n + s.tokens, 0),
            problems: m.reports.filter((r) => r.outcome !== "ok").map((r) =>
              `${r.provider}: ${r.outcome.replaceAll("_", " ")}${
                r.message ? ` (${r.message})` : ""
              }`
            ),
          };
        }
      } catch (err) {
        explain.context = {
          sections: [],
          tokens: 0,
          problems: [
            `the context chain could not be run: ${
              err instanceof Error ? err.message : String(err)
            }`,
          ],
        };
      }
    }
  }
  if (explain && sandbox) {
    const { sandboxPhrase } = await import("../../config/sandbox_report.ts");
    for (const profile of explain.profiles) {
      for (const p of profile.providers) {
        p.osSandbox = sandboxPhrase(sandbox, p.name);
      }
    }
  }
  const displayFile = (f: string) => {
    if (f.startsWith("~") || isAbsolute(f)) return f;
    const r = relative(io.cwd, join(dir, f));
    return r === "" ? "." : r.split("\\").join("/");
  };
  let stdout: string;
  if (values.json) {
    // As bytes: a large plan's indented text is tens of MB, made faster
    // without a string, and written without encoding it again.
    const sink = io.stdoutBytes;
    const chunks: Uint8Array[] = [];
    writeJson(
      result,
      (bytes) => {
        if (sink) sink(bytes);
        if (!sink || useCache) chunks.push(bytes.slice());
      },
      explain,
      sandbox && {
        mode: sandbox.mode,
        available: sandbox.available,
        ...(sandbox.reason !== undefined ? { reason: sandbox.reason } : {}),
        plugins: sandbox.plugins,
      },
    );
    stdout = chunks.length === 0 ? "" : decodeChunks(chunks);
    if (!sink) io.stdout(stdout);
  } else {
    stdout = renderHuman(result, {
      color,
      displayFile,
      locked: values.locked ?? false,
    });
    if (sandbox && result.exitCode === 0) {
      const { formatSandboxReport } = await import(
        "../../config/sandbox_report.ts"
      );
      stdout += formatSandboxReport(sandbox);
    }
    if (explain) {
      const { formatExplain } = await import("../../config/explain.ts");
      stdout += "\n" + formatExplain(explain);
    } else if (values.explain) {
      stdout += "\n(--explain needs a valid configuration.)\n";
    }
  }
  if (!values.json) io.stdout(stdout);
  if (useCache && key !== undefined) {
    const fingerprints = [...result.fingerprints];
    await store(key, { exitCode: result.exitCode, stdout, stderr: "" }, {
      fingerprints,
      envNames: result.envNames,
    }, io.env);
  }
  return result.exitCode;
}

/** The compiler and the renderers, loaded. */
async function loadCompiler() {
  const [{ checkConfig }, { renderHuman, writeJson }] = await Promise.all([
    import("../../config/check.ts"),
    import("../../config/render.ts"),
  ]);
  return { checkConfig, renderHuman, writeJson };
}

/** The UTF-8 text of chunks written in order. */
function decodeChunks(chunks: readonly Uint8Array[]): string {
  let size = 0;
  for (const c of chunks) size += c.length;
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

/** False only when `path` certainly does not exist. */
async function mayExist(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    return !(err instanceof Deno.errors.NotFound);
  }
}

if (import.meta.main) {
  Deno.exit(processExitCode(await run(Deno.args)));
}
