/**
 * Compiler benchmarks (the budgets in brackets):
 *
 * - `compile()` of `examples/`, warm, inputs already read [≤ 50 ms], and
 *   the whole `checkConfig("examples")` (reading, two module-graph listings
 *   with `deno info`, compiling);
 * - `compile()` of a generated 500-line `agent.hcl`, warm [≤ 150 ms];
 * - `check-config examples --locked` from process start to exit, cold (an
 *   empty result cache) [≤ 1 s] and cached (unchanged inputs) [≤ 300 ms];
 * - 5 MB of `agent.hcl` (issue 21: "5 MB checked in ≤ 1 s") in each shape
 *   of `_large_configs.ts` (one heredoc, policy blocks, a map, nested
 *   expressions, a long template, providers, profiles, an error per
 *   block, allow rules against command denies): `parseHcl()` and `compile()` warm, and `check-config --json`
 *   from process start to exit, against an empty `deno run` in the same
 *   group for the ratio.
 *
 * Only the 5 MB figures: `deno bench -A --filter "5 MB" config/compile_bench.ts`
 *
 * Run: `deno bench -A config/compile_bench.ts`
 *
 * @module
 */

import { join } from "node:path";
import { compile } from "./compile.ts";
import { checkConfig } from "./check.ts";
import { loadConfigInputs } from "./files.ts";
import { generateConfig } from "./hcl/_testing.ts";
import { largeConfigs } from "./_large_configs.ts";
import { parseHcl } from "./hcl/mod.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const REPO = new URL("../", import.meta.url).pathname;
const EXAMPLES = join(REPO, "examples");
const examples = await loadConfigInputs(EXAMPLES, {
  builtins: BUILTINS,
  globalConfig: null,
});
const LARGE = generateConfig(500);
const large = { dir: "/project", agent: { path: "agent.hcl", text: LARGE } };

Deno.bench(
  "compile() examples/ (warm)",
  { group: "compile", baseline: true },
  () => {
    compile(examples);
  },
);

Deno.bench(
  `compile() a generated ${LARGE.split("\n").length}-line agent.hcl (warm)`,
  { group: "compile" },
  () => {
    compile(large);
  },
);

Deno.bench("checkConfig('examples') with I/O and deno info (warm)", {
  group: "compile",
}, async () => {
  await checkConfig(EXAMPLES, {
    builtins: BUILTINS,
    globalConfig: null,
    locked: true,
  });
});

/**
 * The check-config process as `deno task check-config` starts it: with
 * dynamic imports loaded when reached, so the start does not build the
 * module graph of every module the command could load (the policy test
 * runner, the postgres backend: 330 modules, about half of the CPU of
 * checking a four-line file).
 */
const CHECK_CONFIG = [
  "run",
  "-A",
  "--unstable-lazy-dynamic-imports",
  "cli/commands/check_config.ts",
];

// Deno's own cache must stay where it is when XDG_CACHE_HOME moves.
const denoDir = JSON.parse(
  new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      stdout: "piped",
    }).output()).stdout,
  ),
).denoDir as string;

async function checkConfigProcess(cache: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...CHECK_CONFIG, "examples", "--locked"],
    cwd: REPO,
    env: { XDG_CACHE_HOME: cache, DENO_DIR: denoDir, NO_COLOR: "1" },
    stdout: "null",
    stderr: "null",
  }).output();
  if (out.code !== 0) throw new Error(`check-config exited ${out.code}`);
}

const warmCache = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
await checkConfigProcess(warmCache);

Deno.bench("check-config process, cold (empty result cache)", {
  group: "process",
  baseline: true,
}, async (b) => {
  const cache = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
  b.start();
  await checkConfigProcess(cache);
  b.end();
  await Deno.remove(cache, { recursive: true });
});

Deno.bench("check-config process, cached (unchanged inputs)", {
  group: "process",
}, async () => {
  await checkConfigProcess(warmCache);
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(warmCache, { recursive: true });
});

// 5 MB of agent.hcl in each shape of config/_large_configs.ts: one
// heredoc (the lexer's long-token path), many small policy blocks, a large
// map, nested expressions, a long template, many providers, many profiles
// (the parser's and compiler's per-node costs), an error in every block
// (the diagnostics path) and allow rules against command denies (the
// allow-overrides-deny check). The valid shapes compile without error, so every
// stage runs to the end.
const FIVE_MB = 5 * 1024 * 1024;
const emptyModule = await Deno.makeTempFile({
  prefix: "ph-agent-bench-",
  suffix: ".ts",
});
const bigProjects: string[] = [];

for (const { shape, text, valid } of largeConfigs(FIVE_MB)) {
  const mb = (text.length / 1024 / 1024).toFixed(1);
  const group = `5 MB: ${shape}`;
  const project = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
  await Deno.writeTextFile(join(project, "agent.hcl"), text);
  bigProjects.push(project);
  // The plugins' artifacts, read once; each compile() gets a new agent.hcl
  // object, so it parses the text again.
  const loaded = await loadConfigInputs(project, {
    builtins: BUILTINS,
    globalConfig: null,
    env: {},
  });
  Deno.bench(`${group}: parseHcl() ${mb} MB (warm)`, {
    group,
    n: 3,
    warmup: 1,
  }, () => {
    parseHcl(text, "agent.hcl");
  });
  Deno.bench(`${group}: compile() ${mb} MB (warm)`, {
    group,
    n: 3,
    warmup: 1,
  }, () => {
    const r = compile({ ...loaded, agent: { path: "agent.hcl", text } });
    if (r.diagnostics.some((d) => d.severity === "error") === valid) {
      throw new Error(`valid is not ${valid}: ${r.diagnostics[0]?.summary}`);
    }
  });
  Deno.bench(`${group}: check-config --json process`, {
    group,
    n: 5,
    warmup: 1,
  }, async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        ...CHECK_CONFIG,
        project,
        "--json",
        "--no-cache",
      ],
      cwd: REPO,
      env: { DENO_DIR: denoDir, HOME: "/nonexistent-home", NO_COLOR: "1" },
      stdout: "null",
      stderr: "null",
    }).output();
    if (out.code !== (valid ? 0 : 1)) {
      throw new Error(`check-config exited ${out.code}`);
    }
  });
  Deno.bench(`${group}: deno run of an empty module (floor)`, {
    group,
    baseline: true,
    n: 5,
    warmup: 1,
  }, async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", emptyModule],
      cwd: REPO,
      stdout: "null",
      stderr: "null",
    }).output();
    if (!out.success) throw new Error("deno run failed");
  });
}

globalThis.addEventListener("unload", () => {
  Deno.removeSync(emptyModule);
  for (const p of bigProjects) Deno.removeSync(p, { recursive: true });
});
